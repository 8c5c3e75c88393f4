"""`mycelium.show`: which characters get which class (hand-checked), escaping, scripts
that are not Latin, the plain-text face, and the errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mycelium
from mycelium.report.segments import cluster_boundary
from _spanhtml import parse


def rows_of(view):
    return parse(view._repr_html_()).rows


def test_paris_golden_runs():
    rows = rows_of(mycelium.show("Paris is in Italy.", [[12, 17]], [[9, 17]], metrics=None))
    assert rows == [
        [("", "Paris is in "), ("myc-span", "Italy"), ("", ".")],
        [("", "Paris is "), ("myc-pred", "in "), ("myc-both", "Italy"), ("", ".")],
    ]


def test_every_outcome_in_one_row():
    rows = rows_of(mycelium.show("abcdefghijklmnopq", [[0, 5], [10, 15]], [[3, 12]],
                                 metrics=None))
    assert rows[1] == [("myc-ref", "abc"), ("myc-both", "de"), ("myc-pred", "fghij"),
                       ("myc-both", "kl"), ("myc-ref", "mno"), ("", "pq")]
    assert parse(mycelium.show("abcdefghijklmnopq", [[0, 5], [10, 15]], [[3, 12]],
                               metrics=None)._repr_html_()).offsets[1] == [
        (0, 3), (3, 5), (5, 10), (10, 12), (12, 15)]


def test_several_rows_named_and_metrics_beside_them():
    view = mycelium.show("The tower is 410 metres tall.", [[13, 23]],
                         {"exact": [[13, 23]], "none": []}, metrics=["iou"])
    parsed = parse(view._repr_html_())
    assert parsed.names == ["reference", "exact", "none"]
    assert parsed.rows[1] == [("", "The tower is "), ("myc-both", "410 metres"),
                              ("", " tall.")]
    assert parsed.rows[2] == [("", "The tower is "), ("myc-ref", "410 metres"), ("", " tall.")]
    assert [ex.metrics for ex in view.examples] == [[{"iou": {"score": 1.0}},
                                                     {"iou": {"score": 0.0}}]]
    assert "iou <b>1.000</b>" in view._repr_html_()


def test_list_of_span_sets_is_several_rows_with_labels():
    view = mycelium.show("abcdef", [[0, 2]], [[[0, 2]], [[4, 6]]], labels=["ann1", "ann2"],
                         metrics=None)
    assert parse(view._repr_html_()).names == ["reference", "ann1", "ann2"]
    with pytest.raises(ValueError, match=r"Expected one label per prediction row \(2\), "
                                         r"got 1 labels"):
        mycelium.show("abcdef", [[0, 2]], [[[0, 2]], [[4, 6]]], labels=["x"])


def test_typed_reference_spans_get_distinct_types_and_a_legend():
    refs = [{"start": 0, "end": 3, "label_type": "Evident Conflict"},
            {"start": 4, "end": 7, "label_type": "Subtle Baseless Info"}]
    view = mycelium.show("one two three", refs, [[0, 7]], metrics=None)
    html = view._repr_html_()
    assert view.types == ["Evident Conflict", "Subtle Baseless Info"]
    assert 'class="myc-span myc-type-0"' in html and 'class="myc-span myc-type-1"' in html
    assert "--myc-type:#0072B2" in html and "--myc-type:#E69F00" in html
    assert html.count('<div class="myc-legend">') == 1
    assert ">Subtle Baseless Info</span></div>" in html


def test_script_in_text_names_and_types_is_shown_literally():
    text = "<script>alert(1)</script> & done"
    view = mycelium.show(text, [{"start": 0, "end": 8, "label_type": "<img src=x>"}],
                         {"<b>bold</b>": [[0, 8]]}, metrics=None)
    html = view._repr_html_()
    assert "<script>alert" not in html and "<img" not in html and "<b>bold" not in html
    assert "&lt;script&gt;</span>alert(1)&lt;/script&gt; &amp; done</td>" in html
    assert rows_of(view)[1][0] == ("myc-both", "<script>")  # the text, read back exactly


def test_combining_mark_stays_with_its_letter():
    text = "cafe\u0301 noir"
    rows = rows_of(mycelium.show(text, [[3, 4]], [[4, 5]], metrics=None))
    assert rows[1] == [("", "caf"), ("myc-ref", "e\u0301"), ("", " noir")]
    for row in rows:
        assert all(not chunk.startswith("\u0301") for _, chunk in row)


def test_zwj_sequence_and_flags_are_never_split():
    family = "a\U0001F469\u200d\U0001F4BBb"
    rows = rows_of(mycelium.show(family, [], [[1, 2]], metrics=None))
    assert rows[1] == [("", "a"), ("myc-pred", "\U0001F469\u200d\U0001F4BB"), ("", "b")]
    flags = "\U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA"  # FR DE
    assert cluster_boundary(flags, 1) == 2 and cluster_boundary(flags, 3) == 4
    rows = rows_of(mycelium.show(flags, [], [[1, 3]], metrics=None))
    assert rows[1] == [("", flags[:2]), ("myc-pred", flags[2:])]
    skin = "\U0001F44D\U0001F3FD!"
    assert cluster_boundary(skin, 1) == 2


def test_rtl_and_cjk_text_keeps_order_and_direction():
    arabic = "مرحبا بالعالم"
    view = mycelium.show(arabic, [[6, 13]], [[0, 5]], metrics=None)
    html = view._repr_html_()
    assert html.count('dir="auto"') == 2
    assert rows_of(view)[1] == [("myc-pred", "مرحبا"), ("", " "), ("myc-ref", "بالعالم")]
    rows = rows_of(mycelium.show("東京は日本の首都", [[0, 2]], [[1, 3]], metrics=None))
    assert rows[1] == [("myc-ref", "東"), ("myc-both", "京"), ("myc-pred", "は"),
                       ("", "日本の首都")]


def test_plain_text_face_marks_and_aligns_wide_characters():
    view = mycelium.show("Paris is in Italy.", [[12, 17]], [[9, 17]], metrics=["iou"])
    assert repr(view).splitlines()[1:4] == [
        "             Paris is in Italy.",
        "reference                ^^^^^",
        "prediction            +++=====     iou 0.625"]
    lines = repr(mycelium.show("東京は", [[1, 2]], [[0, 1]], metrics=None)).splitlines()
    assert lines[2:4] == ["reference      ^^", "prediction   ++--"]


def test_batch_of_examples_and_soft_heat_strip():
    view = mycelium.show(["abc", "defg"], [[[0, 1]], []], [[[0, 1]], [[1, 2]]],
                         soft_predictions=[[{"start": 0, "end": 3, "prob": 0.2},
                                            {"start": 1, "end": 2, "prob": 0.9}], []],
                         metrics=["iou"])
    assert [ex.title for ex in view.examples] == ["example 0", "example 1"]
    assert [m[0]["iou"]["score"] for m in (ex.metrics for ex in view.examples)] == [1.0, 0.0]
    html = view._repr_html_()
    assert 'style="--p:0.150" title="prob 0.200">a<' in html
    assert 'style="--p:0.675" title="prob 0.900">b<' in html  # the later span wins
    with pytest.raises(ValueError, match="prob in \\[0, 1\\], got .*prob: 1.5"):
        mycelium.show("abc", [], soft_predictions=[{"start": 0, "end": 1, "prob": 1.5}])


def test_span_outside_the_text_is_the_evaluate_error():
    with pytest.raises(mycelium.SpanValidationError, match="len\\(text\\)|text"):
        mycelium.show("abc", [[0, 9]])
    with pytest.raises(ValueError, match="Expected predictions 'p' for each of the 2 texts, "
                                         "got 1"):
        mycelium.show(["a", "b"], [[], []], {"p": [[]]})


def test_show_is_loaded_lazily():
    code = ("import sys, mycelium\n"
            "assert 'mycelium.report' not in sys.modules\n"
            "mycelium.show\n"
            "assert 'mycelium.report.view' in sys.modules\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout == "ok\n", done.stderr
