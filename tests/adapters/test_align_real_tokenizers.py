"""``align_tokens`` against real tokenizers' own offsets: ten tokenizers of the kinds LLMs
use, trained here on generated multilingual text (tests/adapters/_corpus.py, no
download), each run on held-out text of another seed that also has words and characters
the training text lacks (unknown tokens, byte fallback). A token matches when the
non-whitespace characters its offsets cover are those its tokenizer's own offsets cover
(special tokens: zero-length); tests/adapters/_real_tokenizers.py states the design.
docs/alignment.md has the table this checks.
"""

from __future__ import annotations

import pytest

import mycelium

pytest.importorskip("tokenizers", reason="the real-tokenizer tests need HF tokenizers "
                    "(the test extra installs it)")
pytest.importorskip("sentencepiece", reason="the real-tokenizer tests need sentencepiece "
                    "(the test extra installs it)")
pytest.importorskip("google.protobuf", reason="sentencepiece's offsets need protobuf "
                    "(the test extra installs it)")

from _real_tokenizers import KINDS, compare, held_out, training_lines  # noqa: E402

_TRAINED: dict = {}
# Tokenizers whose normaliser rewrites the text: matched through normalize= with it.
NORMALISING = {"wordpiece_uncased", "spm_unigram_nfkc", "spm_bpe_nfkc"}


@pytest.fixture(scope="session")
def corpus():
    return training_lines(), held_out()


@pytest.fixture(scope="session")
def trained(corpus):
    """Each kind trained once per session (a few seconds for all ten)."""
    def get(kind):
        if kind not in _TRAINED:
            _TRAINED[kind] = KINDS[kind](corpus[0])
        return _TRAINED[kind]
    return get


@pytest.fixture(scope="session")
def tally(trained, corpus):
    """The comparison of one kind on the held-out text, with or without its own
    normaliser, computed once per session."""
    done: dict = {}

    def get(kind, use_normalize=True):
        if (kind, use_normalize) not in done:
            done[kind, use_normalize] = compare(mycelium.align_tokens, trained(kind),
                                                corpus[1], use_normalize=use_normalize)
        return done[kind, use_normalize]
    return get


@pytest.mark.parametrize("kind", list(KINDS))
def test_tokens_cover_what_their_tokenizer_says(tally, kind):
    got = tally(kind)
    assert got.tokens > 25_000
    assert got.matched / got.tokens >= 0.99, (kind, got.matched, got.tokens,
                                              got.misses[:5])


@pytest.mark.parametrize("kind", sorted(NORMALISING))
def test_normalising_tokenizers_need_their_normaliser(trained, tally, kind):
    assert trained(kind).normalize is not None
    with_it, without = tally(kind), tally(kind, use_normalize=False)
    assert without.tokens == with_it.tokens
    assert without.matched < with_it.matched
    if kind == "wordpiece_uncased":  # lowercased, accents stripped: most tokens differ
        assert without.matched / without.tokens < 0.7


def test_unknown_tokens_cover_the_words_they_stand_for(trained):
    tok = trained("wordpiece_cased")
    text = "Der Föhnsturm 🦩🪐 kam ⌘ spät."
    tokens, own, special = tok.encode(text)
    assert tokens.count("[UNK]") >= 2
    offsets, rep = mycelium.align_tokens(text, tokens, report=True)
    for t, o, a, sp in zip(tokens, own, offsets, special):
        if t == "[UNK]":
            assert a == tuple(o)
    assert rep.unknown == tokens.count("[UNK]") and rep.unplaced == 0


def test_persian_decimal_point_does_not_jump(trained):
    # NFKC sentencepiece: after the decimal point every token used to be lost
    tok = trained("spm_unigram_nfkc")
    text = "میانگین سن شرکت‌کنندگان با ۲۸.۵ سال بوده است. ﬁnal"
    tokens, own, _ = tok.encode(text)
    offsets = mycelium.align_tokens(text, tokens, normalize=tok.normalize)
    for o, a in zip(own, offsets):
        assert {i for i in range(*o) if not text[i].isspace()} == set(range(*a)) - {
            i for i in range(*a) if text[i].isspace()}
