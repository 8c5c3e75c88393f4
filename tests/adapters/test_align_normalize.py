"""``align_tokens(normalize=...)``: tokens of a normalising tokenizer matched on the
normalised text, offsets in code points of the original (SPEC section 9); the presets,
a sentencepiece-like callable, the map back to the original characters, and properties
against the unnormalised alignment."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium.adapters._normalize import PRESETS, normalize_text
from test_align_random import POOL, SPACES, _bytelevel, _plain, _sentencepiece


def _spm_like(text):
    # sentencepiece's nmt_nfkc as its normalize() writes it: NFKC, whitespace runs
    # collapsed to one '▁', none at the edges, a dummy '▁' in front
    return "▁" + re.sub(r"\s+", "▁", unicodedata.normalize("NFKC", text).strip())


@pytest.mark.parametrize("text, tokens, normalize, trimmed", [
    ("Hello WORLD", ["hello", "Ġworld"], "lower", [(0, 5), (6, 11)]),
    # a ligature's letters all cover the one original character
    ("ﬁnal", ["fi", "nal"], "nfkc", [(0, 1), (1, 4)]),
    ("ﬁnal", ["f", "inal"], "nfkc", [(0, 1), (0, 4)]),
    # full-width forms and a superscript
    ("ＡＢＣ x²", ["ABC", "▁x", "2"], "nfkc", [(0, 3), (4, 5), (5, 6)]),
    ("Ｓtraße", ["straße"], "nfkc_lower", [(0, 6)]),
    # a composition: the composed token covers the letter and its combining mark
    ("cafe\u0301 ok", ["café", "▁ok"], "nfkc", [(0, 5), (6, 8)]),
    # BERT uncased: accents stripped, a control character dropped (covered by nobody)
    ("Ça\x07 Va", ["ca", "va"], "bert_uncased", [(0, 2), (4, 6)]),
    ("ÜNÏCODE", ["unic", "##ode"], "bert_uncased", [(0, 4), (4, 7)]),
    # a final sigma: str.lower writes 'ς', the whole text is aligned, not per character
    ("ΟΔΟΣ ok", ["οδος", "▁ok"], "lower", [(0, 4), (5, 7)]),
    # sentencepiece's own normaliser: a dummy '▁', collapsed whitespace
    ("  Ｈｅｌｌｏ   wörld ", ["▁Hello", "▁w", "ö", "rld"], _spm_like,
     [(2, 7), (10, 11), (11, 12), (12, 15)]),
])
def test_normalised_tokens_get_original_offsets(text, tokens, normalize, trimmed):
    assert mycelium.align_tokens(text, tokens, normalize=normalize) == trimmed


def test_tiling_with_a_normaliser_that_collapses_whitespace():
    text = "  Ｈｅｌｌｏ   wörld "
    toks = ["▁Hello", "▁w", "ö", "rld"]
    assert mycelium.align_tokens(text, toks, normalize=_spm_like, trim=False) == [
        (0, 7), (7, 11), (11, 12), (12, 16)]


def test_report_counts_normalised_characters():
    _, rep = mycelium.align_tokens("ＡＢ cd", ["ab", "▁cd"], normalize="nfkc_lower",
                                   report=True)
    assert (rep.placed, rep.normalized, rep.uncovered) == (2, 2, 0)
    _, rep = mycelium.align_tokens("ab", ["ab"], normalize="nfkc", report=True)
    assert rep.normalized == 0
    # a dummy '▁' token stands on the '▁' the normaliser wrote, not on the text:
    # unplaced, as without the normaliser
    offsets, rep = mycelium.align_tokens("Hi there", ["▁", "Hi", "▁there"],
                                         normalize=_spm_like, report=True)
    assert offsets == [(0, 0), (0, 2), (3, 8)]
    assert (rep.placed, rep.whitespace, rep.unplaced, rep.normalized) == (2, 0, 1, 1)


def test_without_the_normaliser_the_tokens_are_not_found():
    _, rep = mycelium.align_tokens("ÜNÏCODE", ["unic", "##ode"], report=True)
    assert rep.unplaced == 2


def test_the_map_back_to_the_original():
    norm = normalize_text("Ｓtraße ﬁ", PRESETS["nfkc_lower"])
    assert norm.text == "straße fi"
    assert list(zip(norm.lo, norm.hi)) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6),
                                           (6, 7), (7, 8), (7, 8)]
    assert norm.changed == 2
    # the whole text aligned: sentencepiece's dummy '▁' and collapsed spaces stand for
    # the whitespace they replace (empty at the start: none there)
    norm = normalize_text("a  b", _spm_like)
    assert norm.text == " a b"
    assert list(zip(norm.lo, norm.hi)) == [(0, 0), (0, 1), (1, 3), (3, 4)]


@pytest.mark.parametrize("normalize, message", [
    ("casefold", "Expected normalize as None, a callable str -> str or one of lower, "
                 "nfkc, nfkc_lower, bert_uncased, got 'casefold'"),
    (3, "Expected normalize as None, a callable str -> str or one of"),
])
def test_unknown_normaliser_names_the_valid_ones(normalize, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        mycelium.align_tokens("a", ["a"], normalize=normalize)


def test_a_normaliser_must_return_a_string():
    with pytest.raises(TypeError, match="Expected normalize to return a str, got bytes"):
        mycelium.align_tokens("a", ["a"], normalize=lambda s: s.encode())


_TEXTS = st.lists(st.sampled_from(POOL), min_size=1, max_size=8).flatmap(
    lambda words: st.lists(st.sampled_from(SPACES), min_size=len(words) - 1,
                           max_size=len(words) - 1).map(
        lambda spaces: words[0] + "".join(s + w for s, w in zip(spaces, words[1:]))))


@settings(max_examples=150, deadline=None)
@given(text=_TEXTS, make=st.sampled_from([_bytelevel, _sentencepiece, _plain]),
       rng=st.randoms(use_true_random=False), trim=st.booleans())
def test_an_identity_normaliser_changes_nothing(text, make, rng, trim):
    tokens, _ = make(rng, text)
    assert mycelium.align_tokens(text, tokens, normalize=lambda s: s, trim=trim) == \
        mycelium.align_tokens(text, tokens, trim=trim)


@settings(max_examples=150, deadline=None)
@given(text=_TEXTS, rng=st.randoms(use_true_random=False), trim=st.booleans())
def test_lowercased_tokens_align_as_on_the_lowercased_text(text, rng, trim):
    # capitals where lowercasing keeps one character per character
    text = "".join(ch.upper() if rng.random() < 0.3 and len(ch.upper()) == 1
                   and ch.upper().lower() == ch else ch for ch in text)
    tokens, _ = _plain(rng, text.lower())
    assert mycelium.align_tokens(text, tokens, normalize="lower", trim=trim) == \
        mycelium.align_tokens(text.lower(), tokens, trim=trim)
