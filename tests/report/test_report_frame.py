"""``df.mycelium.show``: the worst (or best) rows first, per group, over the right texts."""

from __future__ import annotations

import pandas as pd
import pytest

import mycelium  # noqa: F401  (registers df.mycelium)
from _spanhtml import parse


@pytest.fixture
def df():
    return pd.DataFrame({
        "lang": ["en", "en", "fr", "fr", None],
        "text": ["abcdefgh", "ijklmnop", "qrstuvwx", "yzabcdef", "ghijklmn"],
        "ref": [[[0, 4]], [[0, 4]], [[2, 6]], [], [[0, 2]]],
        "pred": [[[0, 4]], [[2, 6]], [[0, 2]], [[1, 2]], [[0, 2]]],
        "other": [[], [[0, 4]], [[2, 6]], [], []],
    }, index=[10, 11, 12, 13, 14])


def test_worst_rows_first_by_iou(df):
    view = df.mycelium.show("ref", "pred", text="text", n=3)
    assert [ex.title for ex in view.examples] == [
        "row 12 · iou_score 0.000", "row 13 · iou_score 0.000", "row 11 · iou_score 0.333"]
    assert view.note == ("lowest iou_score first: up to 3 of 5 rows; ties: most characters "
                         "marked on either side first")
    # the view of row 12 draws row 12's text and spans, not another row's
    assert parse(view._repr_html_()).rows[1] == [("myc-pred", "qr"), ("myc-ref", "stuv"),
                                                 ("", "wx")]


def test_best_rows_per_group_with_null_keys_and_two_columns(df):
    view = df.mycelium.show("ref", ["pred", "other"], text="text", by="lang", n=1,
                            ascending=False, sort_by="character_f1", metrics=["character"])
    assert [ex.title for ex in view.examples] == [
        "row 10 · lang=en · character_f1 1.000", "row 12 · lang=fr · character_f1 0.000",
        "row 14 · lang=null · character_f1 1.000"]
    assert [name for name, _ in view.examples[0].rows] == ["pred", "other"]
    assert view.examples[0].metrics == [
        {"character": {"precision": 1.0, "recall": 1.0, "f1": 1.0}},
        {"character": {"precision": 0.0, "recall": 0.0, "f1": 0.0}}]


def test_bad_sort_by_and_missing_text_say_how_to_fix(df):
    with pytest.raises(ValueError, match="Expected sort_by to name a metric or a per-row "
                                         "measure, got 'nope'; fix by choosing one of"):
        df.mycelium.show("ref", "pred", text="text", sort_by="nope")
    with pytest.raises(ValueError, match="Expected text= naming the column"):
        df.mycelium.show("ref", "pred")
    with pytest.raises(KeyError, match="text column 'missing' not found"):
        df.mycelium.show("ref", "pred", text="missing")


def test_frame_is_not_modified(df):
    before = df.copy()
    df.mycelium.show("ref", "pred", text="text", by="lang")
    pd.testing.assert_frame_equal(df, before)


def _polars(df):
    from _optional import pl

    if pl is None:
        pytest.skip("polars is not installed")
    return pl.from_pandas(df.reset_index(drop=True))


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(by="lang", n=1, ascending=False, sort_by="character_f1", metrics=["character"]),
    dict(by=["lang"], n=2, sort_by="iou"),
])
def test_polars_frame_gives_the_same_rows_order_and_html(df, kwargs):
    flat = df.reset_index(drop=True)
    pandas_view = flat.mycelium.show("ref", ["pred", "other"], text="text", **kwargs)
    polars_view = _polars(df).mycelium.show("ref", ["pred", "other"], text="text", **kwargs)
    assert [ex.title for ex in polars_view.examples] == [ex.title for ex in pandas_view.examples]
    assert polars_view.note == pandas_view.note
    assert polars_view._repr_html_() == pandas_view._repr_html_()
    assert repr(polars_view) == repr(pandas_view)


def test_polars_frame_worst_rows_hand_checked(df):
    view = _polars(df).mycelium.show("ref", "pred", text="text", n=3, by="lang")
    assert [ex.title for ex in view.examples] == [
        "row 1 · lang=en · iou_score 0.333", "row 0 · lang=en · iou_score 1.000",
        "row 2 · lang=fr · iou_score 0.000", "row 3 · lang=fr · iou_score 0.000",
        "row 4 · lang=null · iou_score 1.000"]
    # row 1: "ijklmnop", reference [0, 4), prediction [2, 6)
    assert parse(view._repr_html_()).rows[1] == [("myc-ref", "ij"), ("myc-both", "kl"),
                                                 ("myc-pred", "mn"), ("", "op")]
    with pytest.raises(KeyError, match="text column 'missing' not found"):
        _polars(df).mycelium.show("ref", "pred", text="missing")


def test_ties_go_to_the_most_characters_marked_then_row_order():
    frame = pd.DataFrame({
        "text": ["abcdefghijkl"] * 4,
        "ref": [[[0, 2]], [[0, 8]], [[0, 4]], [[0, 8]]],
        "pred": [[[5, 6]], [[9, 12]], [[6, 8]], [[9, 12]]],  # iou 0 everywhere
    }, index=[7, 8, 9, 5])
    view = frame.mycelium.show("ref", "pred", text="text", n=4, metrics=None)
    # marked on either side: 3, 11, 6, 11 characters
    assert [ex.title.split(" · ")[0] for ex in view.examples] == [
        "row 8", "row 5", "row 9", "row 7"]


def test_titles_by_an_id_column_and_a_context_above_the_text(df):
    framed = df.assign(qid=["q1", "q2", "q3", "q4", "q5"],
                       question=["Q one?", None, "Q three?", "Q four?", "Q five?"])
    view = framed.mycelium.show("ref", "pred", text="text", n=2, id_col="qid",
                                context="question")
    assert [ex.title for ex in view.examples] == ["qid q3 · iou_score 0.000",
                                                  "qid q4 · iou_score 0.000"]
    assert [ex.context for ex in view.examples] == ["Q three?", "Q four?"]
    html = view._repr_html_()
    assert html.count('<details class="myc-context"><summary>context</summary>') == 2
    assert "context      Q three?" in repr(view)
    none = framed.mycelium.show("ref", "pred", text="text", n=5, context="question")
    assert [ex.context for ex in none.examples if ex.title.startswith("row 11")] == [None]
