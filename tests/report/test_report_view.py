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
    assert (">Subtle Baseless Info</span><span class=\"myc-count\">1 reference, "
            "0 predicted</span></span></div>") in html


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
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"soft_predictions example 0, span 0: Expected a finite score "
                             r"in \[0, 1\], got 1.5"):
        mycelium.show("abc", [], soft_predictions=[{"start": 0, "end": 1, "prob": 1.5}])


def test_token_scores_heat_strip_takes_the_highest_covering_token():
    # byte-level halves of "ñ" score .3 and .8: the character takes .8; the zero-length
    # special token scores nothing; "c" is covered by no token (0: unmarked)
    view = mycelium.show("añbc", [[1, 2]], [[1, 3]],
                         token_offsets=[(0, 1), (1, 2), (1, 2), (2, 3), (4, 4)],
                         token_scores=[0.2, 0.3, 0.8, 0.05, 1.0], metrics=["iou"])
    html = view._repr_html_()
    parsed = parse(html)
    assert parsed.names == ["reference", "prediction", "scores"]
    assert parsed.rows[2] == [("myc-soft", "a"), ("myc-soft", "ñ"), ("myc-soft", "b"),
                              ("", "c")]
    assert parsed.offsets[2] == [(0, 1), (1, 2), (2, 3)]
    assert 'style="--p:0.150" title="score 0.200">a<' in html
    assert 'style="--p:0.600" title="score 0.800">ñ<' in html
    assert 'style="--p:0.038" title="score 0.050">b<' in html
    ex = view.examples[0]
    assert ex.soft == [(0, 1, 0.2), (1, 2, 0.8), (2, 3, 0.05)]
    # per-example metrics: the span metric beside the prediction, the score metrics
    # named in `metrics` beside the scores (none here)
    assert ex.metrics == [{"iou": {"score": 0.5}}] and ex.score_metrics is None
    assert repr(view).splitlines()[1:5] == [
        "             añbc",
        "reference     ^",
        "prediction    =+     iou 0.500",
        "scores       280"]


def test_token_scores_show_the_score_metrics_by_default_and_on_request():
    # positives: "b" (score .9); negatives a (.5), c (.5), d (0): AUROC 1, AP 1
    view = mycelium.show("abcd", [[1, 2]], token_offsets=[(0, 1), (1, 2), (2, 3)],
                         token_scores=[0.5, 0.9, 0.5])
    assert view.examples[0].score_metrics == {"char_auroc": {"score": 1.0},
                                              "char_ap": {"score": 1.0}}
    assert ('<span>char_auroc <b>1.000</b></span> · <span>char_ap <b>1.000</b></span></td>'
            '</tr>') in view._repr_html_()
    # second example, hand-checked: positive b = .2; negatives a = .6, c = d = 0: b
    # outranks two of the three negatives, AUROC 2/3
    batch = mycelium.show(["abcd", "abcd"], [[[1, 2]], [[1, 2]]], [[[1, 2]], []],
                          token_offsets=[[(1, 2)], [(0, 1), (1, 2)]],
                          token_scores=[[0.7], [0.6, 0.2]], metrics=["iou", "char_auroc"])
    assert [ex.score_metrics for ex in batch.examples] == [
        {"char_auroc": {"score": 1.0}}, {"char_auroc": {"score": pytest.approx(2 / 3)}}]
    assert [ex.metrics for ex in batch.examples] == [[{"iou": {"score": 1.0}}],
                                                     [{"iou": {"score": 0.0}}]]
    assert "char_auroc 0.667" in repr(batch)


def test_soft_and_token_scores_draw_the_same_strip_for_the_same_character_scores():
    soft = mycelium.show("abcdef", [[0, 2]], soft_predictions=[
        {"start": 0, "end": 4, "prob": 0.3}, {"start": 2, "end": 3, "prob": 0.9}],
        metrics=None)
    tokens = mycelium.show("abcdef", [[0, 2]], token_offsets=[(0, 2), (2, 3), (3, 4)],
                           token_scores=[0.3, 0.9, 0.3], metrics=None)
    assert parse(soft._repr_html_()).rows == parse(tokens._repr_html_()).rows
    assert soft.examples[0].soft == tokens.examples[0].soft == [
        (0, 2, 0.3), (2, 3, 0.9), (3, 4, 0.3)]
    assert repr(soft).splitlines()[3] == repr(tokens).splitlines()[3] == "scores       3393"


def test_token_score_errors_are_the_core_errors():
    with pytest.raises(mycelium.SpanValidationError, match="token_offsets example 0, "
                                                           "token 1: Expected 0 <= start"):
        mycelium.show("abc", [], token_offsets=[(0, 1), (2, 9)], token_scores=[0.1, 0.2])
    with pytest.raises(mycelium.SpanValidationError, match="Expected one score per token "
                                                           r"\(2 tokens\), got 1 scores"):
        mycelium.show("abc", [], token_offsets=[(0, 1), (1, 2)], token_scores=[0.1])
    with pytest.raises(ValueError, match="Expected one score form, got both"):
        mycelium.show("abc", [], soft_predictions=[], token_offsets=[], token_scores=[])


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


def test_a_marked_line_break_shows_a_marker_and_the_text_stays_the_text():
    text = "first line\nsecond\tcell \u0645\u0631\u062d\u0628\u0627\n"
    html = mycelium.show(text, [[5, 11]], [[10, 11], [17, 18], [28, 29]],
                         metrics=None)._repr_html_()
    runs = parse(html).rows
    assert "".join(t for _, t in runs[1]) == text  # the DOM's text is the text
    # a false alarm on the final "\n" of an Arabic line, and a tab: both drawn
    assert html.count('<span class="myc-ws" data-ws="\u23ce"></span>\n') == 3  # ref + 2 pred
    assert html.count('<span class="myc-ws" data-ws="\u2192"></span>\t') == 1
    assert '.myc span.myc-ws::before{content:attr(data-ws)' in html
    # unmarked whitespace gets no marker
    plain = mycelium.show("a\nb", [], [], metrics=None)._repr_html_()
    assert "myc-ws" not in plain.split("</style>")[1]


def test_control_and_bidi_characters_are_drawn_as_escapes_in_html():
    html = mycelium.show("a\u202eb\x1b[2Jc\u2028d", [[0, 2]], [[3, 6]],
                         metrics=None)._repr_html_()
    body = html.split("</style>")[1]
    assert "\u202e" not in body and "\x1b" not in body and "\u2028" not in body
    assert '<span class="myc-esc" title="U+202E">\\u202e</span>' in body
    assert '<span class="myc-esc" title="U+001B">\u241b</span>[2J' in body
