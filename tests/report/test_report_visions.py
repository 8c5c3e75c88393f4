"""The HTML report of a SHROOM-Visions result (``mycelium shroom-visions ... --html FILE``,
`mycelium.report.visions_report`): the kit's lines, the per-label table (the numbers of
`VisionsResult.per_label`, beside the Cor of the same items computed here from the files
by a slow obvious reference) and the items where Cor+Lbl falls furthest below Cor."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from mycelium.cli.app import main
from mycelium.protocols.shroom_visions import score_files, score_records
from mycelium.report import visions_report
from mycelium.report.visions import MAX_ITEMS_SHOWN
from tests._data_dirs import SHROOM_VISIONS_ENV, data_folder

DEMO = Path(__file__).resolve().parents[2] / "examples" / "data" / "shroom_visions"


def tables(html: str) -> list[list[list[str]]]:
    """Every table's rows of cells (header first), as text."""
    out = []
    for table in re.findall(r"<table[^>]*>(.*?)</table>", html, flags=re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        out.append([[re.sub(r"<[^>]+>", "", c) for c in
                     re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, flags=re.S)] for r in rows])
    return out


def read(path: Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return {r["id"]: r for r in map(json.loads, f)}


def reference_rows(result, gold: dict, pred: dict) -> dict[str, tuple[float, int]]:
    """Per label, the Cor of the items whose label union holds it, read from the files
    item by item (not from the result's pairs)."""
    cor = dict(zip(result.ids, result.cor.tolist()))
    items: dict[str, list] = {}
    for i in result.ids:
        labels = {s["label"] for s in gold[i]["labels"]} | {s["label"] for s in
                                                              pred[i]["labels"]}
        for label in labels:
            items.setdefault(label, []).append(cor[i])
    return {label: (float(np.mean(v)), len(v)) for label, v in items.items()}


def check_page(html: str, result, gold: dict, pred: dict) -> None:
    assert result.printed in html
    per_label, worst = tables(html)
    head, *body = per_label
    assert head == ["label", "Cor", "Cor, all labels", "difference", "IoU", "items", "spans",
                    "predicted spans"]
    frame = result.per_label()
    assert [r[0] for r in body] == frame["label"].tolist()
    want = reference_rows(result, gold, pred)
    for row, (_, r) in zip(body, frame.iterrows()):
        assert row[1] == f"{r['Cor']:.8f}" and row[4] == f"{r['IoU']:.8f}"
        assert row[5:] == [f"{r['items']:,}", f"{r['spans']:,}", f"{r['pred_spans']:,}"]
        cor_all, items = want[r["label"]]
        assert (row[2], row[3]) == (f"{cor_all:.8f}", f"{r['Cor'] - cor_all:+.8f}")
        assert row[5] == f"{items:,}"
    # the items with the largest drop, largest first, as many as there are (up to a cap)
    gaps = sorted(((c - lbl, i) for i, c, lbl in zip(result.ids, result.cor.tolist(),
                                                     result.cor_lbl.tolist()) if c > lbl),
                  key=lambda t: -t[0])[:MAX_ITEMS_SHOWN]
    assert [r[0] for r in worst[1:]] == [i for _, i in gaps]
    differ = sum(c != lbl for c, lbl in zip(result.cor.tolist(), result.cor_lbl.tolist()))
    assert f"Cor+Lbl differs from Cor on {differ:,} of {len(result.ids):,} items" in html


def test_cli_writes_the_page_and_prints_as_before(tmp_path, capsys):
    args = ["shroom-visions", str(DEMO / "gold.jsonl"), str(DEMO / "pred.jsonl"),
            str(tmp_path / "out.txt")]
    assert main(args) == 0
    plain = capsys.readouterr().out
    page = tmp_path / "visions.html"
    assert main(args + ["--html", str(page)]) == 0
    assert capsys.readouterr().out == plain  # the kit's lines, unchanged
    html = page.read_text(encoding="utf-8")
    result = score_files(DEMO / "gold.jsonl", DEMO / "pred.jsonl")
    check_page(html, result, read(DEMO / "gold.jsonl"), read(DEMO / "pred.jsonl"))
    assert "<title>SHROOM-Visions: pred.jsonl</title>" in html
    assert result.signature in html and "<script" not in html


def test_numbers_of_the_demo_as_the_docs_say(tmp_path):
    html = visions_report(score_files(DEMO / "gold.jsonl", DEMO / "pred.jsonl"))
    rows = {r[0]: r for r in tables(html)[0][1:]}
    assert rows["mischaracterization"][1:5] == ["0.43625841", "0.99897562", "-0.56271721",
                                                "0.42105263"]
    assert rows["other"][1:] == ["0.00000000", "0.65232807", "-0.65232807", "0.00000000",
                                 "1", "0", "1"]
    assert [r[0] for r in tables(html)[1][1:]] == ["demo-en-2", "demo-en-3", "demo-en-1"]


def test_no_label_on_either_side():
    gold = [{"id": "a", "response": "abcd", "labels": []}]
    html = visions_report(score_records(gold, [{"id": "a", "labels": []}]))
    assert "No item has a label on either side." in html
    assert "Cor+Lbl differs from Cor on 0 of 1 items, and is lower on 0." in html
    assert "<table" not in html


def test_many_items_are_capped():
    gold, pred = [], []
    for k in range(MAX_ITEMS_SHOWN + 15):
        gold.append({"id": f"i{k}", "response": "abcdefgh", "labels": [
            {"start": 0, "end": 4, "prob": 1.0, "label": "OCR"}]})
        pred.append({"id": f"i{k}", "labels": [
            {"start": 0, "end": 4 + k % 4, "prob": 0.9, "label": "invention"}]})
    result = score_records(gold, pred)
    html = visions_report(result, title="<cap>")
    assert len(tables(html)[1]) == 1 + MAX_ITEMS_SHOWN
    assert f"(at most {MAX_ITEMS_SHOWN})" in html and "<title>&lt;cap&gt;</title>" in html
    check_page(html, result, {g["id"]: g for g in gold}, {p["id"]: p for p in pred})


DATA, WHY = data_folder(SHROOM_VISIONS_ENV)


@pytest.mark.skipif(DATA is None, reason=WHY or "")
def test_a_real_file_s_page():
    rows = list(csv.DictReader(open(DATA / "OFFICIAL.csv", encoding="utf-8")))
    row = next(r for r in rows if not r["refused"] and r["lang"] == "en")
    pred = DATA / row["path"].split("shroom_visions/", 1)[1]
    gold = DATA / "gold" / "shroom-vision.test.en.labeled.jsonl"
    result = score_files(gold, pred)
    assert f"Cor lbl: {float(row['Cor_lbl']):.8f}" in result.printed
    check_page(visions_report(result), result, read(gold), read(pred))
