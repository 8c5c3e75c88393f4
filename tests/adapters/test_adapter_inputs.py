"""``convert_offsets`` and ``anchor_phrases`` refuse bad input in mycelium's words
("Expected ..., got ..., at ...; fix by ..."): `SpanValidationError` for bad values in the
spans, ``TypeError`` for arguments of the wrong type. Nothing is truncated or read letter
by letter; the scores' checked path names a scalar where a row of scores belongs."""

from __future__ import annotations

import re

import numpy as np
import pytest

import mycelium
from mycelium import SpanValidationError

TEXT = "Café 😀 ok"  # 4-byte and 2-byte UTF-8, a UTF-16 surrogate pair


def _four_parts(info) -> None:
    """The message says what was expected, what was got, where, and the fix, in order."""
    assert re.fullmatch(r"Expected .+, got .+, at .+; fix by .+\.", str(info.value),
                        flags=re.S), str(info.value)


@pytest.mark.parametrize("spans, match", [
    ([(0.5, 3.9)], r"Expected an integer start offset, got the non-integral number 0\.5, "
                   r"at span 0; fix by passing whole offsets"),
    ([(0, 3.9)], r"Expected an integer end offset, got the non-integral number 3\.9, at "
                 r"span 0"),
    ([(0, 2), ("0", "3")], r"Expected an integer start offset, got the str '0', at span 1; "
                           r"fix by passing integers \(convert offsets read as text with "
                           r"int\(\)\)"),
    ([(True, 3)], r"Expected an integer start offset, got the bool True, at span 0; fix by "
                  r"passing integers \(True and False are not offsets\)"),
    ([(np.bool_(False), 3)], r"got the bool False, at span 0"),
    ([(0, float("nan"))], r"Expected an integer end offset, got the non-integral number "
                          r"nan, at span 0"),
    ([(0, 2**70)], r"Expected 0 <= start <= end <= 13 \(utf8 units of the text\), got "
                   r"\(0, 1180591620717411303424\), at span 0; fix by"),
    ([(-2**70, 1)], r"got \(-1180591620717411303424, 1\), at span 0"),
    ([None], r"Expected a span \(start, end\) or \{'start': s, 'end': e\}, got None, at "
             r"span 0; fix by passing two integer offsets per span"),
    ([(1, 2, 3)], r"got the tuple \(1, 2, 3\), at span 0"),
    ([{"start": 0}], r"Expected a span with 'start' and 'end' keys, got keys \['start'\], "
                     r"at span 0"),
])
def test_bad_values_in_the_spans(spans, match):
    with pytest.raises(SpanValidationError, match=match) as info:
        mycelium.convert_offsets(spans, TEXT, unit="utf8")
    _four_parts(info)
    assert info.value.span is not None


def test_integral_floats_and_numpy_values_are_offsets():
    """Whole numbers in any numeric type are accepted, as `evaluate` accepts them;
    fractional ones are never truncated (``(0.5, 3.9)`` used to give ``(0, 2)``)."""
    want = mycelium.convert_offsets([(0, 5)], TEXT, unit="utf8")
    assert want == [(0, 4)]
    for spans in ([(0.0, 5.0)], [(np.int32(0), np.uint8(5))], np.array([[0, 5]]),
                  np.array([[0.0, 5.0]]), [np.array([0, 5])]):
        assert mycelium.convert_offsets(spans, TEXT, unit="utf8") == want


@pytest.mark.parametrize("spans, text, match", [
    ([(0, 3)], None, r"Expected one text as a str, got None, at text; fix by passing the "
                     r"text"),
    ([(0, 3)], b"Cafe", r"Expected one text as a str, got the bytes b'Cafe', at text"),
    ([(0, 3)], ["Cafe", "ok"], r"got the list \['Cafe', 'ok'\], at text; fix by calling "
                               r"once per text"),
    ([[(0, 3)], [(1, 2)]], TEXT, r"Expected one example's spans, got a batch \(item 0 is "
                                 r"a list of spans: \[\(0, 3\)\]\), at spans; fix by "
                                 r"converting each example on its own"),
    ([[(0, 3), (4, 5)]], TEXT, r"got a batch \(item 0 is a list of spans"),
    ([[{"start": 0, "end": 3}]], TEXT, r"got a batch"),
    ("03", TEXT, r"Expected one example's spans as a list of \(start, end\) pairs or "
                 r"\{'start', 'end'\} dicts, got the str '03', at spans; fix by passing a "
                 r"list"),
    (None, TEXT, r"got None, at spans"),
    ({"start": 0, "end": 3}, TEXT, r"got the dict \{'start': 0, 'end': 3\}, at spans"),
    (7, TEXT, r"got the int 7, at spans"),
    (np.zeros((2, 3)), TEXT, r"Expected one example's spans as an array of shape \(m, 2\), "
                             r"got shape \(2, 3\), at spans"),
])
def test_arguments_of_the_wrong_type(spans, text, match):
    with pytest.raises(TypeError, match=match) as info:
        mycelium.convert_offsets(spans, text, unit="utf8")
    _four_parts(info)


def test_a_lone_surrogate():
    """Code points and UTF-16 units count a lone surrogate as one (as JavaScript does);
    UTF-8 cannot encode it, so byte offsets of such a text are refused, with where."""
    text = "a\ud800b"
    assert mycelium.convert_offsets([(1, 3)], text, unit="codepoint", to="utf16") == [(1, 3)]
    assert mycelium.convert_offsets([(0, 2)], text, unit="utf16") == [(0, 2)]
    match = (r"Expected a text UTF-8 can encode, got the lone surrogate '\\ud800' at code "
             r"point 1, at text; fix by decoding the text as the tool that counted the "
             r"offsets did")
    for kw in ({"unit": "utf8"}, {"unit": "codepoint", "to": "utf8"}):
        with pytest.raises(SpanValidationError, match=match) as info:
            mycelium.convert_offsets([(0, 1)], text, **kw)
        _four_parts(info)
        assert info.value.side == "text"


# ------------------------------------------------------------------ anchor_phrases

SENTENCE = "Der Ball liegt hier und liegt dort."


@pytest.mark.parametrize("phrases, match", [
    ("liegt", r"Expected phrases as a list of str, got the str 'liegt', at phrases; fix by "
              r"wrapping it in a list: \['liegt'\]"),
    (None, r"Expected phrases as a list of str, got None, at phrases"),
    (3, r"got the int 3, at phrases"),
    ({"liegt": 1}, r"got the dict \{'liegt': 1\}, at phrases"),
    ([None], r"Expected each phrase as a str, got None, at phrases\[0\]; fix by dropping "
             r"the missing phrases"),
    (["Ball", 4], r"Expected each phrase as a str, got the int 4, at phrases\[1\]"),
    ([["Ball"], ["hier"]], r"got the list \['Ball'\], at phrases\[0\]; fix by calling once "
                           r"per text with its own phrases"),
])
def test_phrases_of_the_wrong_type(phrases, match):
    with pytest.raises(TypeError, match=match) as info:
        mycelium.anchor_phrases(SENTENCE, phrases)
    _four_parts(info)


@pytest.mark.parametrize("text, match", [
    (None, r"Expected one text as a str, got None, at text"),
    ([SENTENCE, SENTENCE], r"got the list .*, at text; fix by calling once per text"),
])
def test_a_text_of_the_wrong_type(text, match):
    with pytest.raises(TypeError, match=match) as info:
        mycelium.anchor_phrases(text, ["liegt"])
    _four_parts(info)


def test_phrases_in_any_sequence_and_a_lone_surrogate():
    """A tuple, a numpy array or a pandas Series of str are lists of phrases; a lone
    surrogate is a code point like any other (no encoding is involved)."""
    import pandas as pd

    want = ([(9, 14), (24, 29)], (), ((0, "liegt", 2),))
    for phrases in (("liegt",), np.array(["liegt"]), pd.Series(["liegt"])):
        spans, report = mycelium.anchor_phrases(SENTENCE, phrases)
        assert (spans, report.not_found, report.ambiguous) == want
    spans, report = mycelium.anchor_phrases("x \ud800 y", ["\ud800 y"])
    assert spans == [(2, 5)] and report.ok


# --------------------------------------------------- scores: a scalar where a row belongs

@pytest.mark.parametrize("kwargs, match", [
    ({"token_offsets": [[(0, 2)]], "token_scores": [0.5]},
     r"token_scores example 0: Expected a list of token scores for the example, got float "
     r"0\.5; fix by passing one list of token scores per example"),
    ({"token_offsets": [3], "token_scores": [[0.5]]},
     r"token_offsets example 0: Expected a list of \(start, end\) pairs for the example, "
     r"got int 3; fix by passing one list"),
    ({"token_offsets": [[(0, 2)]], "token_scores": [np.float64(0.5)]},
     r"token_scores example 0: Expected a list of token scores for the example, got "
     r"float64 0\.5"),
    ({"soft_predictions": [0.5]},
     r"soft_predictions example 0: Expected a list of \{start, end, prob\} dicts for the "
     r"example, got float 0\.5"),
])
def test_a_scalar_row_of_scores_says_so(kwargs, match):
    with pytest.raises(SpanValidationError, match=match):
        mycelium.evaluate([[[0, 2]]], text=["abcd"], metrics="char_auroc", **kwargs)
