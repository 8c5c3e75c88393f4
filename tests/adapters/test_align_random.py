"""``align_tokens`` on seeded random tokenizations whose offsets are known from how each
token was cut out of the text (never from an aligner): byte-level BPE cut at any byte
(inside characters too), SentencePiece with '▁' and byte-fallback runs, WordPiece with
the whitespace dropped, plain substrings; special tokens around them."""

from __future__ import annotations

import random

import pytest

import mycelium
from mycelium.adapters._decode import BYTE_ENCODER

POOL = ["Straße", "naïve", "Œuvre", "في", "عام", "हिन्दी", "में", "今日は", "天気",
        "👩🏽‍💻", "🏳️‍🌈", "1️⃣", "Tie\u0302\u0301ng", "x", "42", "(a)", "ok.", "😀!"]
SPACES = [" ", " ", " ", "  ", "\n", "\t", "\u00a0", " \n"]
SPECIALS = ["<s>", "</s>", "<|endoftext|>", "<|eot_id|>", "[CLS]", "[SEP]"]


def _text(rng):
    words = [rng.choice(POOL) for _ in range(rng.randint(1, 9))]
    out = words[0]
    for w in words[1:]:
        out += rng.choice(SPACES) + w
    return out


def _cuts(rng, n, p):
    return [0] + sorted({i for i in range(1, n) if rng.random() < p}) + [n]


def _expected(text, char_ranges):
    """Tiling and trimmed offsets of tokens covering the given char ranges, which tile
    the text (a token covering part of a character covers all of it)."""
    tiling = list(char_ranges)
    trimmed = []
    for s, e in char_ranges:
        inner = [i for i in range(s, e) if not text[i].isspace()]
        trimmed.append((inner[0], inner[-1] + 1) if inner else (e, e))
    return trimmed, tiling


def _bytelevel(rng, text):
    data = text.encode("utf-8")
    char_of = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")]
    tokens, ranges = [], []
    cuts = _cuts(rng, len(data), 0.4)
    for a, b in zip(cuts, cuts[1:]):
        tokens.append("".join(BYTE_ENCODER[x] for x in data[a:b]))
        ranges.append((char_of[a], char_of[b - 1] + 1))
    return tokens, ranges


def _sentencepiece(rng, text):
    cuts = _cuts(rng, len(text), 0.35)
    tokens, ranges = [], []
    for a, b in zip(cuts, cuts[1:]):
        piece = text[a:b]
        if any(ch.isspace() and ch != " " for ch in piece) or rng.random() < 0.1:
            # byte fallback: one token per UTF-8 byte, each covers its character
            for i in range(a, b):
                for x in text[i].encode("utf-8"):
                    tokens.append(f"<0x{x:02X}>")
                    ranges.append((i, i + 1))
        else:
            tokens.append(piece.replace(" ", "▁"))
            ranges.append((a, b))
    return tokens, ranges


def _plain(rng, text):
    cuts = _cuts(rng, len(text), 0.35)
    return [text[a:b] for a, b in zip(cuts, cuts[1:])], list(zip(cuts, cuts[1:]))


def _wordpiece(rng, text):
    """Whitespace dropped; uncovered whitespace joins the following token's tiling."""
    tokens, trimmed, tiling, prev = [], [], [], 0
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        j = i
        while j < len(text) and not text[j].isspace():
            j += 1
        cuts = _cuts(rng, j - i, 0.4)
        for k, (a, b) in enumerate(zip(cuts, cuts[1:])):
            tokens.append(("##" if k else "") + text[i + a:i + b])
            trimmed.append((i + a, i + b))
            tiling.append((prev, i + b))
            prev = i + b
        i = j
    if tiling and prev < len(text):  # trailing whitespace goes to the last token
        tiling[-1] = (tiling[-1][0], len(text))
    return tokens, trimmed, tiling


def _with_specials(rng, tokens, ranges, text):
    trimmed, tiling = _expected(text, ranges)
    return _add_specials(rng, tokens, trimmed, tiling, text)


def _add_specials(rng, tokens, trimmed, tiling, text):
    if rng.random() < 0.5:
        tokens, trimmed, tiling = ([rng.choice(SPECIALS)] + tokens, [(0, 0)] + trimmed,
                                   [(0, 0)] + tiling)
    if rng.random() < 0.5:
        n = len(text)
        tokens, trimmed, tiling = (tokens + [rng.choice(SPECIALS)], trimmed + [(n, n)],
                                   tiling + [(n, n)])
    return tokens, trimmed, tiling


@pytest.mark.parametrize("seed", range(4))
def test_random_wordpiece(seed):
    rng = random.Random(seed)
    for _ in range(150):
        text = _text(rng)
        tokens, trimmed, tiling = _add_specials(rng, *_wordpiece(rng, text), text)
        assert mycelium.align_tokens(text, tokens) == trimmed, (text, tokens)
        assert mycelium.align_tokens(text, tokens, trim=False) == tiling, (text, tokens)


def _skeleton(text):
    return "".join(ch for ch in text if not ch.isspace())


def _prompt_not_repeating(rng, body):
    """A prompt in which the body's first 8 non-whitespace characters do not occur
    before the body itself (SPEC section 9: alignment resumes at the earliest position
    the tokens' content matches from, so a prompt repeating them would take them)."""
    while True:
        prompt = "Q: " + _text(rng) + "?" + rng.choice(SPACES)
        head = _skeleton(body)[:8]
        if _skeleton(prompt + body).find(head) == len(_skeleton(prompt)):
            return prompt


@pytest.mark.parametrize("seed", range(4))
def test_random_echoed_prompt_and_truncation(seed):
    # the text starts with a prompt no token covers, and the last tokens' content was
    # cut from it: the first token's tiling takes the whitespace before it only, the
    # cut tokens get (n, n)
    rng = random.Random(100 + seed)
    for _ in range(150):
        body = _text(rng)
        tokens, ranges = _bytelevel(rng, body)
        prompt = _prompt_not_repeating(rng, body)
        shift = len(prompt)
        text = prompt + body
        trimmed, tiling = _expected(body, ranges)
        trimmed = [(s + shift, e + shift) for s, e in trimmed]
        tiling = [(s + shift, e + shift) for s, e in tiling]
        ws = len(prompt) - len(prompt.rstrip())
        tiling[0] = (tiling[0][0] - ws, tiling[0][1])
        n = len(text)
        extra = ["ĠZZq", "ĠÃ¦Ã¸"][: rng.randint(0, 2)]
        got = mycelium.align_tokens(text, tokens + extra)
        assert got == trimmed + [(n, n)] * len(extra), (text, tokens + extra)
        got = mycelium.align_tokens(text, tokens + extra, trim=False)
        assert got == tiling + [(n, n)] * len(extra), (text, tokens + extra)


@pytest.mark.parametrize("make", [_bytelevel, _sentencepiece, _plain])
@pytest.mark.parametrize("seed", range(4))
def test_random_tokenizations(make, seed):
    rng = random.Random(seed * 7919 + len(make.__name__))
    for _ in range(150):
        text = _text(rng)
        tokens, ranges = make(rng, text)
        tokens, trimmed, tiling = _with_specials(rng, tokens, ranges, text)
        assert mycelium.align_tokens(text, tokens) == trimmed, (text, tokens)
        assert mycelium.align_tokens(text, tokens, trim=False) == tiling, (text, tokens)
