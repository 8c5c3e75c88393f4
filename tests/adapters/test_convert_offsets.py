"""``convert_offsets``: UTF-8 bytes and UTF-16 units to code points and back, in many
scripts; offsets inside a character are an error unless ``snap=`` says which way."""

from __future__ import annotations

import itertools

import pytest

import mycelium
from mycelium import SpanValidationError

TEXTS = {
    "latin": "Œuvre complète, naïveté, Ångström",
    "arabic": "في عام ١٩٤٨ تأسست الدولة",
    "devanagari": "हिन्दी में लिखा गया पाठ।",
    "cjk": "今日は　いい天気ですね。北京",
    "emoji_zwj": "Coder 👩🏽‍💻 and 👨‍👩‍👧‍👦 🏳️‍🌈",
    "combining": "Z͑älgo Tie\u0302\u0301ng",
    "whitespace": "a\tb\n\u00a0c\u3000d",
}


def _encoded_len(ch: str, unit: str) -> int:
    return len(ch.encode("utf-8")) if unit == "utf8" else len(ch.encode("utf-16-le")) // 2


def _units(text: str, unit: str) -> list[int]:
    out = [0]
    for ch in text:
        out.append(out[-1] + _encoded_len(ch, unit))
    return out


@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize("unit", ["utf8", "utf16"])
def test_round_trip_every_span(name, unit):
    text = TEXTS[name]
    spans = [(s, e) for s, e in itertools.combinations(range(len(text) + 1), 2)]
    there = mycelium.convert_offsets(spans, text, unit="codepoint", to=unit)
    # the slow, obviously correct reference: encode the prefix
    ref = _units(text, unit)
    assert there == [(ref[s], ref[e]) for s, e in spans]
    # the encoded slice is the slice encoded
    enc = text.encode("utf-8" if unit == "utf8" else "utf-16-le")
    width = 1 if unit == "utf8" else 2
    for (s, e), (bs, be) in zip(spans[:200], there[:200]):
        codec = "utf-8" if unit == "utf8" else "utf-16-le"
        assert enc[bs * width:be * width].decode(codec) == text[s:e]
    assert mycelium.convert_offsets(there, text, unit=unit) == spans


def test_utf8_to_utf16_directly():
    text = "é😀x"
    # utf8: é 0..2, 😀 2..6, x 6..7; utf16: é 0..1, 😀 1..3, x 3..4
    assert mycelium.convert_offsets([(0, 2), (2, 7)], text, unit="utf8", to="utf16") == [
        (0, 1), (1, 4)]


def test_inside_a_character_is_an_error_naming_it():
    text = "naïve"  # ï is UTF-8 bytes 2..4
    with pytest.raises(SpanValidationError) as exc:
        mycelium.convert_offsets([(0, 2), (3, 6)], text, unit="utf8")
    assert str(exc.value) == (
        "Expected offsets on character boundaries, got start 3 inside the character 'ï' "
        "(code point 2, utf8 units 2..4), at span 1 (3, 6); fix by passing offsets in "
        "the unit they are counted in, or snap='outward' / snap='inward'.")
    assert exc.value.span == 1


def test_inside_a_surrogate_pair_is_an_error():
    with pytest.raises(SpanValidationError, match="got end 2 inside the character '😀'"):
        mycelium.convert_offsets([(0, 2)], "a😀", unit="utf16")


@pytest.mark.parametrize("snap, expected", [
    ("outward", [(2, 3), (1, 3), (2, 4)]),
    # a span inside one character becomes empty at the start of the next
    ("inward", [(3, 3), (1, 3), (3, 4)]),
])
def test_snap(snap, expected):
    text = "ab😀cd"  # 😀 is UTF-8 bytes 2..6, code point 2
    spans = [(3, 5), (1, 6), (4, 7)]
    assert mycelium.convert_offsets(spans, text, unit="utf8", snap=snap) == expected


@pytest.mark.parametrize("span, total", [((0, 8), 7), ((-1, 2), 7), ((3, 2), 7)])
def test_out_of_range(span, total):
    with pytest.raises(SpanValidationError,
                       match=rf"Expected 0 <= start <= end <= {total} \(utf8 units"):
        mycelium.convert_offsets([span], "é😀x", unit="utf8")


@pytest.mark.parametrize("kwargs, name", [({"unit": "bytes"}, "unit"), ({"to": "utf32"}, "to"),
                                          ({"snap": "nearest"}, "snap")])
def test_unknown_options_list_the_valid_ones(kwargs, name):
    with pytest.raises(ValueError, match=f"Expected {name} one of"):
        mycelium.convert_offsets([(0, 1)], "a", **kwargs)


def test_empty_and_token_offsets():
    assert mycelium.convert_offsets([], "abc") == []
    # token offsets from align_tokens, to a JavaScript tool's UTF-16 units
    text = "Heart ❤️ 👍🏽"
    offs = mycelium.align_tokens(text, ["Heart", "ĠâĿ¤ï¸ı", "ĠðŁĳįðŁı½"])
    assert offs == [(0, 5), (6, 8), (9, 11)]
    assert mycelium.convert_offsets(offs, text, unit="codepoint", to="utf16") == [
        (0, 5), (6, 8), (9, 13)]


def test_dict_spans_keep_their_other_keys():
    text = "Ä b"
    spans = [{"start": 0, "end": 2, "label": "x"}, (3, 4)]
    assert mycelium.convert_offsets(spans, text, unit="utf8") == [
        {"start": 0, "end": 1, "label": "x"}, (2, 3)]
    assert spans[0] == {"start": 0, "end": 2, "label": "x"}  # the input is not altered
