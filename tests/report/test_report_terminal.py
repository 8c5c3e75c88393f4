"""The terminal view (``repr`` of `mycelium.show`): a text's control characters never
reach the terminal, markers stay under their characters in Devanagari (by ``wcwidth``'s
widths, the ones terminals use), right-to-left lines keep logical order, and row names
that share a prefix stay apart."""

from __future__ import annotations

import re

import pytest
from wcwidth import wcswidth

import mycelium
from mycelium.report.text import name_labels

OBEYED = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def lines(view) -> list[str]:
    return repr(view).splitlines()


def text_and_marks(view, row: int = 2) -> tuple[str, str]:
    out = lines(view)
    return out[1][13:], out[row][13:]


@pytest.mark.parametrize("text", [
    "first line\r\nsecond line",
    "one\u2028two\u2029three",
    "red \x1b[31mALERT\x1b[0m and \x1b]0;title\x07 bell",
    "csi \x9b2J and del \x7f and nul \x00",
    "flip \u202eevil\u202c done",
])
def test_no_character_of_the_text_is_obeyed(text):
    view = mycelium.show(text, [[0, 4]], [[2, len(text)]], metrics=None)
    shown = repr(view)
    assert OBEYED.search(shown.replace("\n", "")) is None, repr(shown)
    # the text line and the prediction's markers (to the end of the text) are as wide
    body, marks = text_and_marks(view, row=3)
    assert wcswidth(body) == len(marks) and marks.endswith("+")


def test_crlf_keeps_the_layout():
    view = mycelium.show("ab\r\ncd", [[4, 6]], [[0, 6]], metrics=None)
    assert lines(view)[1:4] == ["             ab\u240d\u23cecd",
                                "reference        ^^",
                                "prediction   ++++=="]


def test_ansi_sequences_are_drawn_not_run():
    view = mycelium.show("a\x1b[2Jb", [[0, 1]], {"x\x1b[31m": [[5, 6]]}, metrics=None)
    out = lines(view)
    assert out[1] == "             a\u241b[2Jb"
    assert out[3].startswith("x\u241b[31m ") and out[3].endswith("+")
    assert "\x1b" not in repr(view)


def test_line_separator_and_invisible_characters_are_escaped():
    view = mycelium.show("a\u2028b\u200bc", [[1, 2]], [[3, 4]], metrics=None)
    out = lines(view)
    assert out[1] == "             a\\u2028b\\u200bc"
    assert out[2] == "reference     ^^^^^^"
    assert out[3] == "prediction    ------ ++++++"


def test_devanagari_markers_sit_under_their_word():
    # "का" (ka + the spacing vowel sign aa) takes two terminal columns, "े" none.
    text = "\u0928\u0926\u0940 \u0915\u093e \u0915\u093f\u0928\u093e\u0930\u0947"
    view = mycelium.show(text, [[7, 13]], [[4, 6]], metrics=None)
    out = lines(view)
    assert out[2] == "reference    " + " " * wcswidth(text[:7]) + "^" * 5
    assert out[3] == "prediction   " + " " * wcswidth(text[:4]) + "++ -----"
    assert wcswidth(text[4:6]) == 2 and wcswidth(text[7:13]) == 5  # का, किनारे


def test_right_to_left_lines_keep_logical_order_and_say_so():
    text = "\u0648\u0644\u062f \u0641\u064a 2004"
    view = mycelium.show(text, [[7, 11]], [[0, 3]], metrics=None)
    out = lines(view)
    assert out[1] == "             \u202d" + text + "\u202c"
    assert out[2] == "reference    " + " " * 7 + "^^^^"  # 2004, at the right of the code points
    assert out[3] == "prediction   +++    ----"
    assert "right-to-left text is written in logical order" in out[-1]
    assert "logical order" not in repr(mycelium.show("abc", [[0, 1]], metrics=None))


def test_names_sharing_a_prefix_stay_apart():
    names = ["token-logit-baseline-large", "token-logit-baseline-small"]
    view = mycelium.show("abcdef", [[0, 2]], {n: [[0, 2]] for n in names}, metrics=None)
    out = lines(view)
    rows = [line.split(" ")[0] for line in out[3:5]]
    assert len(set(rows)) == 2 and all(wcswidth(r) <= 24 for r in rows)
    assert rows[0].endswith("large") and rows[1].endswith("small")
    assert f"names: {rows[0]} = {names[0]}" in out


def test_names_alike_after_cutting_are_numbered():
    names = ["a" * 30 + "x" + "b" * 10, "a" * 30 + "y" + "b" * 10]
    labels, key = name_labels(names, 12)
    assert len(set(labels)) == 2 and all(wcswidth(lb) <= 12 for lb in labels), labels
    assert [k.split(" = ")[1] for k in key] == names


def test_short_names_are_unchanged():
    labels, key = name_labels(["careful", "\u6771\u4eac"], 24)
    assert labels == ["careful", "\u6771\u4eac"] and key == []


def test_context_is_shown_above_the_text():
    view = mycelium.show("Paris is in Italy.", [[12, 17]], [[12, 17]], metrics=None,
                         context="Where is Paris?\x1b[2J")
    out = lines(view)
    assert out[1] == "context      Where is Paris?\u241b[2J"
    assert out[2] == "             Paris is in Italy."
