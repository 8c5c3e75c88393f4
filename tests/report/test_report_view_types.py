"""Span types in the views: each type a colour and an underline pattern of its own (HTML),
its letter as the reference marker (terminal), and a legend listing the types present with
their reference and predicted spans; the counts are the view's spans, the legend bounded."""

from __future__ import annotations

import re

import mycelium
from mycelium.report.model import MAX_LEGEND_TYPES
from mycelium.report.render import TYPE_COLOURS, TYPE_PATTERNS, type_style

TEXT = "The sign reads OPEN 24 HOURS and two cats sit below it."
REFS = [{"start": 15, "end": 27, "label": "OCR"}, {"start": 32, "end": 35, "label": "miscounting"},
        {"start": 36, "end": 40, "label": "invention"}, {"start": 36, "end": 40, "label": "OCR"}]
PREDS = {"det-a": [{"start": 15, "end": 19, "label": "OCR"},
                   {"start": 32, "end": 40, "label": "miscounting"}],
         "det-b": [{"start": 0, "end": 3, "label": "other"}]}


def legend_of(html: str) -> list[tuple[str, str]]:
    """(type, its counts) for each type swatch of the legend."""
    legend = re.search(r'<div class="myc-legend">(.*?)</div>', html).group(1)
    return re.findall(r'<span class="myc-span myc-type-\d+" style="[^"]*">([^<]*)</span>'
                      r'<span class="myc-count">([^<]*)</span>', legend)


def test_legend_lists_each_type_with_its_spans():
    view = mycelium.show(TEXT, REFS, PREDS, metrics=None, type_field="label")
    assert view.types == ["OCR", "miscounting", "invention", "other"]
    assert legend_of(view._repr_html_()) == [
        ("OCR", "2 reference, 1 predicted"), ("miscounting", "1 reference, 1 predicted"),
        ("invention", "1 reference, 0 predicted"), ("other", "0 reference, 1 predicted")]


def test_each_type_has_its_own_colour_and_pattern():
    styles = [type_style(i) for i in range(len(TYPE_COLOURS) * len(TYPE_PATTERNS))]
    assert len(set(styles)) == 35  # 7 colours x 5 patterns, no pair twice
    assert [s.split("--myc-pattern:")[1] for s in styles[:5]] == list(TYPE_PATTERNS)
    html = mycelium.show(TEXT, REFS, PREDS, metrics=None, type_field="label")._repr_html_()
    # the reference row's runs carry their type's style; [36, 40) holds two types and
    # takes the first in sorted order (OCR), as the terminal marks it
    assert re.search(r'class="myc-span myc-type-1" data-s="32" data-e="35" style="'
                     + re.escape(type_style(1)) + '"', html)
    assert re.search(r'class="myc-span myc-type-0 myc-type-2" data-s="36" data-e="40" '
                     r'style="' + re.escape(type_style(0)) + '"', html)
    assert "text-decoration-style:var(--myc-pattern,solid)" in html


def test_terminal_marks_types_by_letter_and_lists_them():
    text = repr(mycelium.show(TEXT, REFS, PREDS, metrics=None, type_field="label"))
    lines = text.splitlines()
    ref = next(line for line in lines if line.startswith("reference"))
    start = lines[1].index("The")
    assert ref[start + 15:start + 27] == "a" * 12 and ref[start + 32:start + 35] == "bbb"
    assert ref[start + 36:start + 40] == "aaaa"  # OCR and invention: OCR, sorted first
    assert lines[-5:] == [
        "types: the reference row marks a span of each type with its letter",
        "       a OCR (2 reference, 1 predicted)",
        "       b miscounting (1 reference, 1 predicted)",
        "       c invention (1 reference, 0 predicted)",
        "       d other (0 reference, 1 predicted)"]


def test_untyped_views_are_unchanged():
    text = repr(mycelium.show("Paris is in Italy.", [[12, 17]], [[9, 17]], metrics=None))
    assert "^^^^^" in text and "types:" not in text
    assert 'class="myc-count"' not in mycelium.show(
        "Paris is in Italy.", [[12, 17]], [[9, 17]], metrics=None)._repr_html_()


def test_the_legend_is_bounded():
    n = MAX_LEGEND_TYPES + 20
    text = "x" * (2 * n)
    refs = [{"start": 2 * k, "end": 2 * k + 1, "label_type": f"t{k:03d}"} for k in range(n)]
    view = mycelium.show(text, refs, [refs[:3]], metrics=None)
    html = view._repr_html_()
    assert len(legend_of(html)) == MAX_LEGEND_TYPES
    assert "and 20 more types (20 reference, 0 predicted)" in html
    lines = repr(view).splitlines()
    assert lines[-1] == "       ^ 20 more types (20 reference, 0 predicted)"
    assert sum(1 for line in lines if re.match(r"       \S t\d{3} \(", line)) == \
        MAX_LEGEND_TYPES


def test_a_frame_s_worst_rows_read_the_type_field():
    import pandas as pd

    df = pd.DataFrame({"text": [TEXT], "ref": [REFS], "pred": [PREDS["det-a"]]})
    view = df.mycelium.show("ref", "pred", text="text", type_field="label", metrics=None)
    assert view.types == ["OCR", "miscounting", "invention"]
    assert legend_of(view._repr_html_())[0] == ("OCR", "2 reference, 1 predicted")
    assert mycelium.show(TEXT, REFS, PREDS["det-a"]).types == []  # label_type by default
