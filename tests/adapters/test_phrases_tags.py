"""``anchor_phrases`` (repeated, absent and whitespace-varied phrases; never a silent
first match) and ``parse_tagged`` (PsiloQA, FAVA-style and two tag types; nested and
unbalanced tags are errors naming the position)."""

from __future__ import annotations

import pytest

import mycelium
from mycelium import SpanValidationError

TEXT = "The Eiffel Tower is in Paris. It opened in 1889 in Paris,\nFrance."


def test_all_occurrences_and_the_report():
    spans, rep = mycelium.anchor_phrases(TEXT, ["Paris", "1889", "in 1890", "Tower"])
    assert spans == [(23, 28), (51, 56), (43, 47), (11, 16)]
    assert rep.not_found == ((2, "in 1890"),)
    assert rep.ambiguous == ((0, "Paris", 2),)
    assert not rep.ok


@pytest.mark.parametrize("occurrence, spans", [
    ("first", [(23, 28), (43, 47)]),
    ("unique", [(43, 47)]),
])
def test_first_and_unique_still_report_the_ambiguous_phrase(occurrence, spans):
    got, rep = mycelium.anchor_phrases(TEXT, ["Paris", "1889"], occurrence=occurrence)
    assert got == spans
    assert rep.ambiguous == ((0, "Paris", 2),)


def test_whitespace_runs_match_any_whitespace():
    # the detector returned the phrase on one line with a double space
    spans, rep = mycelium.anchor_phrases(TEXT, [" Paris,  France. "])
    assert spans == [(51, 65)] and rep.ok
    assert TEXT[51:65] == "Paris,\nFrance."


def test_empty_and_case_sensitive_phrases_are_not_found():
    spans, rep = mycelium.anchor_phrases(TEXT, ["", "  ", "paris"])
    assert spans == []
    assert rep.not_found == ((0, ""), (1, "  "), (2, "paris"))


def test_phrase_in_non_latin_scripts():
    text = "北京是中国的首都。北京很大。"
    spans, rep = mycelium.anchor_phrases(text, ["首都", "北京"], occurrence="unique")
    assert spans == [(6, 8)]
    assert rep.ambiguous == ((1, "北京", 2),)


def test_unknown_occurrence():
    with pytest.raises(ValueError, match="Expected occurrence one of 'all', 'first', "
                                         "'unique', got 'last'"):
        mycelium.anchor_phrases(TEXT, ["Paris"], occurrence="last")


def test_psiloqa_tags():
    text, spans = mycelium.parse_tagged(
        "Marie Curie won [HAL]three[/HAL] Nobel prizes in [HAL]1920[/HAL].")
    assert text == "Marie Curie won three Nobel prizes in 1920."
    assert spans == [{"start": 16, "end": 21, "tag": "HAL"},
                     {"start": 38, "end": 42, "tag": "HAL"}]
    assert [text[s["start"]:s["end"]] for s in spans] == ["three", "1920"]


def test_two_tag_types_and_untouched_other_tags():
    tagged = "<entity>Ångström</entity> was <b>born</b> in <mark>1814</mark>."
    text, spans = mycelium.parse_tagged(tagged, tags=("entity", "mark"))
    assert text == "Ångström was <b>born</b> in 1814."
    assert [(s["start"], s["end"], s["tag"]) for s in spans] == [
        (0, 8, "entity"), (28, 32, "mark")]
    # they score as typed reference spans
    result = mycelium.evaluate([spans], [[(0, 8)]], text=[text], metrics=["character"])
    assert result["character"]["recall"] == pytest.approx(8 / 12)


def test_fava_nested_tags_are_an_error():
    with pytest.raises(SpanValidationError) as exc:
        mycelium.parse_tagged("<entity>a <mark>b</mark></entity>",
                              tags=["entity", "mark", "delete"])
    assert str(exc.value) == (
        "Expected tags that do not nest, got <mark> inside <entity> opened at character "
        "0, at character 10 of the tagged text; fix by closing each tag before the next "
        "opens.")


@pytest.mark.parametrize("tagged, message", [
    ("a [/HAL] b", "got [/HAL] with no tag open, at character 2"),
    ("[HAL]a</HAL>", "got </HAL> closing [HAL] opened at character 0, at character 6"),
    ("<mark>a</delete>",
     "got </delete> closing <mark> opened at character 0, at character 7"),
    ("x [HAL]a", "Expected every tag closed, got [HAL] still open at the end, at character 2"),
])
def test_unbalanced_tags_are_an_error(tagged, message):
    with pytest.raises(SpanValidationError, match=message.replace("[", r"\[")):
        mycelium.parse_tagged(tagged, tags=["HAL", "mark", "delete"])


def test_empty_tag_list():
    with pytest.raises(ValueError, match="Expected at least one tag name"):
        mycelium.parse_tagged("a", tags=[])


def test_parse_tagged_nested_tags_in_opening_order():
    text, spans = mycelium.parse_tagged(
        "The <entity><mark>Argentine</mark><delete>American</delete></entity> star.",
        tags=["entity", "mark", "delete"], nested=True)
    assert text == "The ArgentineAmerican star."
    assert [(s["tag"], s["start"], s["end"]) for s in spans] == [
        ("entity", 4, 21), ("mark", 4, 13), ("delete", 13, 21)]


def test_parse_tagged_nested_still_requires_the_innermost_to_close_first():
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"got </entity> closing <delete> opened at character 8"):
        mycelium.parse_tagged("<entity><delete>x</entity></delete>",
                              tags=["entity", "delete"], nested=True)
    with pytest.raises(mycelium.SpanValidationError, match="Expected tags that do not nest"):
        mycelium.parse_tagged("<entity><delete>x</delete></entity>",
                              tags=["entity", "delete"])
