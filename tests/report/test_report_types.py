"""The per-type section: `mycelium.report.type_table` printed and drawn from the dict face's
``by_type`` and from the pandas face's per-type rows, and the "Per type" section of the
HTML report (``mycelium report --type-field``). Every number shown is the result's."""

from __future__ import annotations

import math
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import mycelium
from mycelium.cli.app import main
from mycelium.report import TypeTable, type_table
from mycelium.report.types import MAX_TYPES_SHOWN, NO_TYPE, predicted_type_counts

# PREDS holds a zero-length span on purpose: it counts no predicted span of its type.
pytestmark = pytest.mark.filterwarnings("ignore::mycelium.EmptySpanWarning")
VISIONS = Path(__file__).resolve().parents[2] / "examples" / "data" / "shroom_visions"

REFS = [[{"start": 0, "end": 5, "t": "Evident"}, {"start": 9, "end": 14, "t": "Subtle"}],
        [{"start": 2, "end": 8, "t": "Subtle"}, {"start": 10, "end": 12, "t": None}],
        []]
PREDS = [[{"start": 0, "end": 4, "t": "Evident"}, {"start": 0, "end": 4, "t": "Evident"}],
         [{"start": 2, "end": 8, "t": "Evident"}, {"start": 3, "end": 3, "t": "Subtle"}],
         [{"start": 1, "end": 2, "t": "Odd"}]]


class Cells(HTMLParser):
    """The rows of every ``table.myc-types``: header cells, then body cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._in = False
        self._cell: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and "myc-types" in (dict(attrs).get("class") or ""):
            self._in = True
            self.tables.append([])
        elif self._in and tag == "tr":
            self.tables[-1].append([])
        elif self._in and tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif self._in and tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def tables_of(html: str) -> list[list[list[str]]]:
    parser = Cells()
    parser.feed(html)
    return parser.tables


def shown(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def expected_rows(by_type: dict, predicted: Counter | None) -> dict[str, dict[str, str]]:
    """What the table must show for each type: the result's numbers, as written."""
    out = {}
    for t, entry in by_type.items():
        row = {"reference spans": str(entry["n_ref"]), "examples": str(entry["examples"])}
        if predicted is not None:
            row["predicted spans"] = str(predicted.get(t, 0))
        for metric, measures in entry.items():
            if isinstance(measures, dict):
                for measure, value in measures.items():
                    row[f"{metric} {measure}"] = shown(value)
        out[NO_TYPE if t is None else t] = row
    return out


def rows_by_type(table: list[list[str]]) -> dict[str, dict[str, str]]:
    head, *body = table
    return {r[0]: dict(zip(head[1:], r[1:])) for r in body}


@pytest.mark.parametrize("typed_matching", [False, True])
def test_html_and_text_show_the_dict_face_s_numbers(typed_matching):
    result = mycelium.evaluate(REFS, PREDS, type_field="t", typed_matching=typed_matching)
    table = type_table(result, PREDS, type_field="t")
    assert isinstance(table, TypeTable)
    [html] = tables_of(table._repr_html_())
    got = rows_by_type(html)
    want = expected_rows(result["by_type"], Counter({"Evident": 2, "Odd": 1}))
    for t, row in want.items():
        assert {k: got[t][k] for k in row} == row, t
    # the text table holds the same cells, row for row
    text = repr(table).splitlines()
    assert [line.split()[0] for line in text[1:]] == [r[0].split()[0] for r in html[1:]]
    for line, row in zip(text[1:], html[1:]):
        assert line.split()[-len(row) + 1:] == row[1:]


def test_counts_without_typed_matching():
    result = mycelium.evaluate(REFS, PREDS, type_field="t", metrics=["character"])
    table = type_table(result, PREDS, type_field="t")
    frame = table.frame
    assert frame["type"].tolist() == ["Evident", "Subtle", None, "Odd"]
    # duplicates and the zero-length span count none; "Odd" is predicted only
    assert frame["predicted spans"].tolist() == [2, 0, 0, 1]
    assert frame["reference spans"].tolist() == [1, 2, 1, 0]
    assert frame["examples"].tolist() == [1, 2, 1, 0]
    assert frame["character recall"].tolist()[:3] == [
        result["by_type"][t]["character"]["recall"] for t in ("Evident", "Subtle", None)]
    assert math.isnan(frame["character recall"].iloc[3])
    assert repr(table).splitlines()[3].startswith(NO_TYPE)


def test_the_pandas_face_s_rows_give_the_same_table():
    df = pd.DataFrame({"ref": REFS, "pred": PREDS, "g": ["a", "a", "b"]})
    tidy = df.mycelium.evaluate("ref", "pred", type_field="t")
    from_frame = type_table(tidy, df["pred"], type_field="t").frame
    from_dict = type_table(mycelium.evaluate(REFS, PREDS, type_field="t"), PREDS,
                           type_field="t").frame
    pd.testing.assert_frame_equal(from_frame, from_dict)


def test_predicted_counts_are_a_set_of_non_empty_spans():
    assert predicted_type_counts(PREDS, "t") == Counter({"Evident": 2, "Odd": 1})
    assert predicted_type_counts([[[0, 3]], []], "t") == Counter()


def test_typed_span_result_points_to_the_overall_number():
    result = mycelium.evaluate(REFS, PREDS, type_field="t", metrics=["typed_span"])
    table = type_table(result)
    assert list(table.frame.columns) == ["type", "reference spans", "examples"]
    assert "typed_span is scored over every type at once" in repr(table)
    # the frame faces give typed_span's rows with a null type: not the no-type group's
    df = pd.DataFrame({"ref": REFS, "pred": PREDS})
    tidy = df.mycelium.evaluate("ref", "pred", type_field="t",
                                metrics=["typed_span", "character"])
    from_frame = type_table(tidy)
    pd.testing.assert_frame_equal(from_frame.frame, type_table(mycelium.evaluate(
        REFS, PREDS, type_field="t", metrics=["typed_span", "character"])).frame)
    assert "typed_span is scored over every type at once" in repr(from_frame)


def test_many_types_are_capped_and_the_rest_summed():
    n = MAX_TYPES_SHOWN + 30
    refs = [[{"start": 0, "end": 2 + k % 3, "t": f"type-{k:03d}"}] * (1 + k % 4)
            for k in range(n)]
    refs = [[dict(s, start=j * 10, end=j * 10 + 2) for j, s in enumerate(r)] for r in refs]
    result = mycelium.evaluate(refs, refs, type_field="t", metrics=["exact_span"])
    table = type_table(result, refs, type_field="t")
    assert len(table.frame) == MAX_TYPES_SHOWN
    n_ref = {t: e["n_ref"] for t, e in result["by_type"].items()}
    shown_ref = int(table.frame["reference spans"].sum())
    assert table.left_out == {"types": n - MAX_TYPES_SHOWN,
                              "reference spans": sum(n_ref.values()) - shown_ref,
                              "predicted spans": sum(n_ref.values()) - shown_ref}
    # the most frequent types are kept, in the result's order
    kept = table.frame["type"].tolist()
    assert kept == sorted(kept) and min(n_ref[t] for t in kept) >= max(
        n_ref[t] for t in n_ref if t not in kept)
    assert f"{n - MAX_TYPES_SHOWN} more types" in table._repr_html_()
    assert len(tables_of(table._repr_html_())[0]) == 1 + MAX_TYPES_SHOWN


def test_names_are_escaped_and_cut():
    name = "<b>" + "x" * 80 + "\x1b[31m"
    refs = [[{"start": 0, "end": 2, "t": name}]]
    table = type_table(mycelium.evaluate(refs, refs, type_field="t"))
    html = table._repr_html_()
    assert "<b>x" not in html and "&lt;b&gt;x" in html and "\x1b" not in repr(table)
    assert f'title="{name.replace("<", "&lt;").replace(">", "&gt;")}"' in html
    assert max(len(line.split("  ")[0]) for line in repr(table).splitlines()) <= 40


def test_errors_say_what_to_do():
    with pytest.raises(ValueError, match="by scoring with type_field="):
        type_table(mycelium.evaluate([[[0, 1]]], [[[0, 1]]]))
    with pytest.raises(ValueError, match="fix by passing type_field="):
        type_table(mycelium.evaluate(REFS, PREDS, type_field="t"), PREDS)
    with pytest.raises(ValueError, match="'type' column"):
        type_table(pd.DataFrame({"metric": ["iou"]}))


def _section(html: str) -> str:
    return html[html.index('<section id="types">'):].split("</section>")[0]


@pytest.mark.parametrize("typed_matching", [False, True])
def test_report_section_is_each_detector_s_dict_face(tmp_path, typed_matching):
    out = tmp_path / "report.html"
    args = ["report", str(VISIONS / "gold.jsonl"), str(VISIONS / "pred.jsonl"),
            str(VISIONS / "gold.jsonl"), "--ref-col", "labels", "--pred-col", "labels",
            "--text-col", "response", "--id-col", "id", "--type-field", "label",
            "--ci", "0", "-o", str(out)]
    assert main(args + (["--typed-matching"] if typed_matching else [])) == 0
    html = out.read_text(encoding="utf-8")
    section = _section(html)
    assert re.findall(r"<h3>([^<]*)</h3>", section) == ["gold", "pred"]
    gold = pd.read_json(VISIONS / "gold.jsonl", lines=True)
    tables = tables_of(section)
    assert len(tables) == 2
    for name, table in zip(("gold", "pred"), tables):
        preds = pd.read_json(VISIONS / f"{name}.jsonl", lines=True).set_index("id") \
            .loc[gold["id"], "labels"].tolist()
        result = mycelium.evaluate(gold["labels"].tolist(), preds, text=gold["response"],
                                   type_field="label", typed_matching=typed_matching)
        want = expected_rows(result["by_type"], predicted_type_counts(preds, "label"))
        got = rows_by_type(table)
        for t, row in want.items():
            assert {k: got[t][k] for k in row} == row, (name, t)
    # the section sits after the tables, before the figures
    order = re.findall(r'<section id="(\w+)">', html)
    assert order.index("types") == order.index("figures") - 1
    # the example views (the worst rows, the disagreement) style the same field's types
    for key in ("examples", "disagreement"):
        part = html[html.index(f'<section id="{key}">'):].split("</section>")[0]
        legend = re.findall(r'<span class="myc-span myc-type-\d+" style="[^"]*">([^<]*)'
                            r'</span><span class="myc-count">', part)
        assert legend and set(legend) <= {"OCR", "invention", "mischaracterization",
                                          "miscounting", "other"}, (key, legend)


def test_report_refuses_typed_matching_without_a_type_field(tmp_path, capsys):
    assert main(["report", str(VISIONS / "gold.jsonl"), "--ref-col", "labels",
                 "--pred-col", "labels", "--typed-matching", "-o",
                 str(tmp_path / "r.html")]) == 2
    assert "--typed-matching needs --type-field" in capsys.readouterr().err


def test_report_without_a_type_field_has_no_section(tmp_path):
    out = tmp_path / "report.html"
    assert main(["report", str(VISIONS / "gold.jsonl"), str(VISIONS / "pred.jsonl"),
                 "--ref-col", "labels", "--pred-col", "labels", "--id-col", "id", "--ci",
                 "0", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert '<section id="types">' not in html and "myc-types" not in html


def test_a_polars_result_frame_gives_the_same_table():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"ref": REFS, "pred": PREDS})
    tidy = df.mycelium.evaluate("ref", "pred", type_field="t")
    pd.testing.assert_frame_equal(
        type_table(tidy, PREDS, type_field="t").frame,
        type_table(mycelium.evaluate(REFS, PREDS, type_field="t"), PREDS,
                   type_field="t").frame)
