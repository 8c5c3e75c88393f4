"""The drop-in on the 72 real SHROOM-Visions prediction files against ``OFFICIAL.csv``
(the kit scorer's printed numbers, or its refusal), from MYCELIUM_SHROOM_VISIONS_DIR; and,
opt-in, the kit itself (MYCELIUM_SHROOM_VISIONS_SCORER: a copy of its ``scorer.py``)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest

from mycelium.protocols.shroom_visions import VisionsInputError, score_files
from tests._data_dirs import SHROOM_VISIONS_ENV, data_folder

DATA, WHY = data_folder(SHROOM_VISIONS_ENV)
pytestmark = pytest.mark.skipif(DATA is None, reason=WHY or "")
ROWS = list(csv.DictReader(open(DATA / "OFFICIAL.csv", encoding="utf-8"))) if DATA else []
SCORER = os.environ.get("MYCELIUM_SHROOM_VISIONS_SCORER", "")


def _pred(row):
    return DATA / row["path"].split("shroom_visions/", 1)[1]


def _printed(row, *, classification=True):
    keys = [("Cor    ", "Cor"), ("IoU    ", "IoU"), ("Cor lbl", "Cor_lbl")]
    if classification:
        keys += [("acc    ", "acc"), ("f1     ", "f1"), ("prec   ", "prec"), ("rec    ", "rec")]
    return [f"{k}: {row[c]}" for k, c in keys]


def test_counts():
    assert len(ROWS) == 72
    assert sum(bool(r["refused"]) for r in ROWS) == 25


@pytest.mark.parametrize("gold", ["gold_kit", "gold"])
def test_every_file_as_the_kit(gold):
    for row in ROWS:
        name = "shroom-vision.test.{}.labeled.jsonl" if gold == "gold" else "{}.jsonl"
        ref = DATA / gold / name.format(row["lang"])
        if row["refused"]:
            with pytest.raises(VisionsInputError) as err:
                score_files(ref, _pred(row))
            assert err.value.rule in ("label-set", "span-type"), row["path"]
            continue
        result = score_files(ref, _pred(row))
        assert result.printed.splitlines() == _printed(row, classification=gold == "gold_kit")
        assert result.written.splitlines() == [_printed(row)[0], _printed(row)[2]]


def test_refusals_are_the_closed_label_set():
    rules = set()
    for row in ROWS:
        if row["refused"]:
            with pytest.raises(VisionsInputError) as err:
                score_files(DATA / "gold_kit" / f"{row['lang']}.jsonl", _pred(row))
            rules.add(err.value.rule)
    assert rules == {"label-set"}


@pytest.mark.skipif(not SCORER, reason="MYCELIUM_SHROOM_VISIONS_SCORER is not set to a copy "
                                       "of the kit's scorer.py: the kit itself is not run")
def test_the_kit_itself(tmp_path):
    # The kit's source cannot ship with the tests: this runs only where a copy is named.
    # Every one of the 72 files (minutes): the same lines and OUT file, or both refuse.
    for k, row in enumerate(ROWS):
        out = tmp_path / f"kit-{k}.txt"
        ref = DATA / "gold_kit" / f"{row['lang']}.jsonl"
        done = subprocess.run([sys.executable, SCORER, str(ref), str(_pred(row)), str(out)],
                              capture_output=True, text=True)
        if row["refused"]:
            assert done.returncode != 0
            continue
        lines = [x for x in done.stdout.splitlines() if x.startswith(("Cor", "IoU", "acc",
                                                                      "f1 ", "prec", "rec "))]
        result = score_files(ref, _pred(row))
        assert lines == result.printed.splitlines()
        assert out.read_text(encoding="utf-8") == result.written


def test_the_profile_on_a_frame_prints_the_kits_numbers_for_every_scored_file():
    """The shroom_visions profile on the pandas face, on each of the 47 real files the
    kit scores: the files read by `read_shroom_visions` (the kit's float parser), the gold
    cut to the predicted ids; per item Cor, Cor lbl and IoU are the drop-in's bit for bit,
    and the means print as OFFICIAL.csv's."""
    import warnings

    import numpy as np

    import mycelium
    from mycelium.io.shroom_visions import read_shroom_visions

    metrics = {"soft_spearman": ("Cor", "cor"), "soft_spearman_by_label": ("Cor_lbl", "cor_lbl"),
               "iou": ("IoU", "iou")}
    for row in [r for r in ROWS if not r["refused"]]:
        ref = DATA / "gold" / f"shroom-vision.test.{row['lang']}.labeled.jsonl"
        drop_in = score_files(ref, _pred(row))
        gold, pred = read_shroom_visions(ref), read_shroom_visions(_pred(row))
        df = gold.merge(pred[["id", "labels"]], on="id", suffixes=("_gold", "_pred"))
        with warnings.catch_warnings():  # zero-length spans, each call warns of them
            warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
            table = df.mycelium.evaluate("labels_gold", "labels_pred", text="response",
                                         profile="shroom_visions")
            per_item = df.mycelium.score("labels_gold", "labels_pred", text="response",
                                         profile="shroom_visions")
        at = {i: k for k, i in enumerate(df["id"])}
        order = [at[str(i)] for i in drop_in.ids]
        means = table[table["type"].isna()].set_index("metric")["value"]
        for metric, (column, field) in metrics.items():
            got = per_item[f"{metric}_score"].to_numpy()[order]
            assert np.array_equal(got, getattr(drop_in, field)), (row["path"], metric)
            assert f"{means[metric]:.8f}" == row[column], (row["path"], metric)

