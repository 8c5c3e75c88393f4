"""``align_tokens`` where the text and the tokens part (SPEC section 9): the resync rule,
unknown tokens covering the text they stand for, and what the report says of both; a
seeded WordPiece property for unknown words; tokens that are not valid Unicode."""

from __future__ import annotations

import random
import re

import pytest

import mycelium
from test_align_random import POOL, SPACES, _wordpiece


def test_the_resync_never_jumps_to_the_texts_last_match():
    # the tokens have '.' where the text has ',': the '.' token must not jump to the
    # text's last '.', which left every token after it unplaced
    text = "It costs 1,5 euros. Really."
    toks = ["It", "costs", "1", ".", "5", "euros", ".", "Really", "."]
    offsets, rep = mycelium.align_tokens(text, toks, report=True)
    assert offsets == [(0, 2), (3, 8), (9, 10), (10, 10), (11, 12), (13, 18), (18, 19),
                       (20, 26), (26, 27)]
    assert (rep.placed, rep.unplaced, rep.first_unplaced) == (8, 1, ((3, "."),))
    assert (rep.resyncs, rep.uncovered, rep.first_uncovered) == (1, 1, ((10, 11),))


def test_unknown_tokens_cover_their_stretch():
    # SPEC section 9's example: each '[UNK]' stands for the emoji between its neighbours
    text = "It costs 😀😃😄😁.😀 euros. Really."
    toks = ["It", "costs", "[UNK]", ".", "[UNK]", "euros", ".", "Really", "."]
    offsets, rep = mycelium.align_tokens(text, toks, report=True)
    assert offsets == [(0, 2), (3, 8), (9, 13), (13, 14), (14, 15), (16, 21), (21, 22),
                       (23, 29), (29, 30)]
    assert mycelium.align_tokens(text, toks, trim=False) == [
        (0, 2), (2, 8), (8, 13), (13, 14), (14, 16), (16, 21), (21, 22), (22, 29), (29, 30)]
    assert (rep.placed, rep.unknown, rep.unknown_stretches, rep.unplaced, rep.special) == (
        7, 2, 2, 0, 0)


@pytest.mark.parametrize("text, tokens, trimmed", [
    # one per word (BERT's unknown words), the whitespace between trimmed away
    ("a 🇩🇪 🇨🇿 🇯🇵 b", ["a", "[UNK]", "[UNK]", "[UNK]", "b"],
     [(0, 1), (2, 4), (5, 7), (8, 10), (11, 12)]),
    # one per character cluster while more tokens than words are left (one unknown
    # token per character); the last takes the rest
    ("x 😀👍🏽🎉 y", ["x", "<unk>", "<unk>", "y"], [(0, 1), (2, 3), (3, 6), (7, 8)]),
    ("x 😀👍🏽🎉 y", ["x", "<unk>", "<unk>", "<unk>", "y"],
     [(0, 1), (2, 3), (3, 5), (5, 6), (7, 8)]),
    # words first: a many-cluster word goes whole to one token
    ("x 😀😃 Щёлково y", ["x", "[UNK]", "[UNK]", "y"], [(0, 1), (2, 4), (5, 12), (13, 14)]),
    # CJK ideographs and punctuation are words of their own
    ("。鰻重ぢ", ["。", "[UNK]", "[UNK]", "[UNK]"], [(0, 1), (1, 2), (2, 3), (3, 4)]),
    # more tokens than characters: the last ones get (p, p)
    ("a 😀 b", ["a", "[UNK]", "[UNK]", "b"], [(0, 1), (2, 3), (4, 4), (4, 5)]),
    # nothing between the neighbours: (p, p)
    ("ab", ["a", "[UNK]", "##b"], [(0, 1), (1, 1), (1, 2)]),
    # at the start and at the end
    ("😀 ok 🎉", ["[UNK]", "ok", "[UNK]"], [(0, 1), (2, 4), (5, 6)]),
])
def test_runs_of_unknown_tokens_share_their_stretch(text, tokens, trimmed):
    assert mycelium.align_tokens(text, tokens) == trimmed


def test_unknown_tiling_covers_the_whole_stretch():
    text = "ok 🇩🇪 🇨🇿 ya"
    toks = ["ok", "[UNK]", "[UNK]", "ya"]
    assert mycelium.align_tokens(text, toks, trim=False) == [(0, 2), (2, 5), (5, 9),
                                                             (9, 11)]


def test_a_tokenizers_own_unknown_token():
    text = "hi 😀 there"
    toks = ["hi", "<UNK>", "there"]
    assert mycelium.align_tokens(text, toks) == [(0, 2), (2, 2), (5, 10)]  # special
    offsets, rep = mycelium.align_tokens(text, toks, unk_token="<UNK>", report=True)
    assert offsets == [(0, 2), (3, 4), (5, 10)]
    assert (rep.unknown, rep.special, rep.uncovered) == (1, 0, 0)
    # a plain string works too, and the scheme is read without it
    assert mycelium.align_tokens("a😀b", ["a", "\ufffd", "b"], unk_token="\ufffd") == [
        (0, 1), (1, 2), (2, 3)]


def test_unk_token_must_be_a_string():
    with pytest.raises(TypeError, match="Expected unk_token as a non-empty str or None, "
                                        "got 3"):
        mycelium.align_tokens("a", ["a"], unk_token=3)


def test_text_the_tokens_lack_is_uncovered_and_reported():
    text = "Answer: the sky is blue. NOISE NOISE And the grass is green."
    toks = ["Answer", ":", "Ġthe", "Ġsky", "Ġis", "Ġblue", ".", "ĠAnd", "Ġthe", "Ġgrass",
            "Ġis", "Ġgreen", "."]
    offsets, rep = mycelium.align_tokens(text, toks, report=True)
    assert offsets[7] == (37, 40) and offsets[-1] == (59, 60)
    assert (rep.placed, rep.resyncs, rep.uncovered, rep.first_uncovered) == (
        13, 1, 10, ((25, 36),))


def test_an_echoed_prompt_that_repeats_the_answer_takes_what_it_repeats():
    # SPEC section 9: the earliest position from which the next tokens match for 8
    # non-whitespace characters wins, even in a prompt the tokens lack
    text = "Q: The capital is? A: The capital is Paris."
    toks = ["The", "Ġcapital", "Ġis", "ĠParis", "."]
    assert mycelium.align_tokens(text, toks) == [(3, 6), (7, 14), (15, 17), (37, 42),
                                                 (42, 43)]


def test_lone_surrogates_in_tokens_are_refused():
    with pytest.raises(ValueError, match=r"Expected token strings of valid Unicode, got "
                                         r"a lone surrogate U\+D83D at character 1 of "
                                         r"token 1 \('a\\ud83d'\)"):
        mycelium.align_tokens("a😀", ["a", "a\ud83d"])
    # in the text it is just a code point
    assert mycelium.align_tokens("a\ud800", ["a"]) == [(0, 1)]


def _words(text):
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


@pytest.mark.parametrize("seed", range(4))
def test_random_wordpiece_unknown_words(seed):
    # WordPiece cuts with one word replaced by '[UNK]': it covers that word, the other
    # tokens keep their places, whenever the 8 characters after the word first occur
    # right there (SPEC section 9's resync rule)
    rng = random.Random(300 + seed)
    checked = 0
    for _ in range(200):
        words = [rng.choice(POOL) for _ in range(rng.randint(2, 8))]
        text = words[0]
        for w in words[1:]:
            text += rng.choice(SPACES) + w
        tokens, trimmed, _ = _wordpiece(rng, text)
        spans = _words(text)
        k = rng.randrange(len(spans))
        s, e = spans[k]
        inside = [i for i, (a, b) in enumerate(trimmed) if s <= a and b <= e]
        after = "".join(ch for ch in text[e:] if not ch.isspace())[:8]
        before = "".join(ch for ch in text[:e] if not ch.isspace())
        if after and (before + after).find(after) < len(before):
            continue
        toks = tokens[:inside[0]] + ["[UNK]"] + tokens[inside[-1] + 1:]
        want = trimmed[:inside[0]] + [(s, e)] + trimmed[inside[-1] + 1:]
        assert mycelium.align_tokens(text, toks) == want, (text, toks)
        checked += 1
    assert checked > 150


def test_token_logit_scores_count_unknown_tokens():
    # the detector's score on an unknown token belongs to the characters it stands for
    rec = {"id": "x", "model_output_text": "Es hat 25 °C heute.",
           "model_output_tokens": ["▁Es", "▁hat", "▁25", "▁", "<unk>", "C", "▁heute", "."],
           "model_output_logits": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]}
    offsets, _, info = mycelium.token_logit_scores(rec, report=True)
    assert offsets[4] == (10, 11)
    assert (info["placed"], info["special"], info["unknown"], info["unplaced"]) == (
        6, 0, 1, 0)
