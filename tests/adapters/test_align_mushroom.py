"""``align_tokens`` on the real Mu-SHROOM tokens: every record of every validation (v2)
and labeled test file, ``model_output_tokens`` against ``model_output_text``.

A non-special token is *placed* when its offsets show its decoded content: trimmed
``text[s:e]`` equal to the content without its edge whitespace (any White_Space equal
to any other), or, for a whitespace-only token, non-empty tiling offsets over as much
whitespace as it carries. The content comes from the tokens alone
(``token_contents``), never from the text.
"""

from __future__ import annotations

import ast
import json
from collections import Counter

import pytest

import mycelium
from mycelium.adapters._decode import WS_TABLE, token_contents

VAL = ["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"]
TEST = ["ar", "ca", "cs", "de", "en", "es", "eu", "fa", "fi", "fr", "hi", "it", "sv", "zh"]
FILES = ([f"splits/val/v2/mushroom.{lang}-val.v2.extra.jsonl" for lang in VAL]
         + [f"splits/test_labeled/v1/mushroom.{lang}-tst.v1.extra.jsonl" for lang in TEST])
# (placed, non-special) tokens per file: every token with non-whitespace content is
# placed; what is not is whitespace the text does not have (UNPLACED below).
PLACED = {
    "ar-val": (1834, 1834), "de-val": (2228, 2228), "en-val": (2914, 2914),
    "es-val": (6739, 6739), "fi-val": (2499, 2499), "fr-val": (6139, 6139),
    "hi-val": (1841, 1841), "it-val": (2359, 2359), "sv-val": (1893, 1923),
    "zh-val": (12372, 12372),
    "ar-tst": (5912, 5912), "ca-tst": (4887, 4965), "cs-tst": (11492, 11492),
    "de-tst": (6504, 6504), "en-tst": (9397, 9397), "es-tst": (19055, 19055),
    "eu-tst": (5515, 5515), "fa-tst": (2771, 2771), "fi-tst": (7496, 7508),
    "fr-tst": (13384, 13384), "hi-tst": (4623, 4629), "it-tst": (6728, 6728),
    "sv-tst": (4907, 5023), "zh-tst": (30278, 30280),
}
# (content, where) of the unplaced tokens over all files: newlines and spaces after the
# text ends (the text was stripped), spaces before it (a dummy leading '▁'), empty tokens.
UNPLACED = {("\n", "after"): 183, (" ", "after"): 40, (" ", "before"): 12,
            ("", "after"): 6, ("\n", "inside"): 1, ("", "inside"): 1, ("\n", "before"): 1}


def _records(path):
    """The records, tokens and logits parsed (the Catalan test file stores both as
    Python-repr strings)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                for key in ("model_output_tokens", "model_output_logits"):
                    if isinstance(rec[key], str):
                        rec[key] = ast.literal_eval(rec[key])
                out.append(rec)
    return out


def _key(relpath):
    name = relpath.rsplit("/", 1)[1]
    return name.split(".")[1]


def _placed(text, tokens):
    contents = token_contents(tokens)
    trimmed = mycelium.align_tokens(text, tokens)
    tiling = mycelium.align_tokens(text, tokens, trim=False)
    placed, total, missing = 0, 0, []
    for content, (s, e), (ts, te) in zip(contents, trimmed, tiling):
        if content is None:
            continue
        total += 1
        want = content.translate(WS_TABLE).strip(" ")
        if want:
            ok = text[s:e].translate(WS_TABLE) == want
        else:
            ok = te > ts and text[ts:te].translate(WS_TABLE) == content.translate(WS_TABLE)
        if ok:
            placed += 1
        else:
            where = "after" if ts == len(text) else "before" if ts == 0 else "inside"
            missing.append((content, where))
    return placed, total, missing


@pytest.fixture(scope="module")
def aligned(mushroom_dir):
    out = {}
    for relpath in FILES:
        records = _records(mushroom_dir / relpath)
        out[_key(relpath)] = [
            (rec, _placed(rec["model_output_text"], rec["model_output_tokens"]))
            for rec in records]
    return out


@pytest.mark.parametrize("key", list(PLACED))
def test_real_file_placement(aligned, key):
    placed = sum(p for _, (p, _, _) in aligned[key])
    total = sum(t for _, (_, t, _) in aligned[key])
    assert (placed, total) == PLACED[key]
    # every token with non-whitespace content is placed
    assert all(not c.strip() for _, (_, _, miss) in aligned[key] for c, _ in miss)


def test_real_files_overall_share_and_unplaced_classes(aligned):
    placed = sum(p for recs in aligned.values() for _, (p, _, _) in recs)
    total = sum(t for recs in aligned.values() for _, (_, t, _) in recs)
    assert (placed, total) == (173767, 174011)
    assert round(100 * placed / total, 2) == 99.86
    missing = Counter(m for recs in aligned.values() for _, (_, _, miss) in recs
                      for m in miss)
    assert dict(missing) == UNPLACED


def test_real_files_logits_per_token(aligned):
    # 135 test records (28 German, 107 English) carry one logit more than tokens; the
    # other 2,266 of the 2,401 records one logit per token
    extra = Counter((key, len(rec["model_output_logits"]) - len(rec["model_output_tokens"]))
                    for key, recs in aligned.items() for rec, _ in recs)
    assert {k: v for k, v in extra.items() if k[1]} == {("de-tst", 1): 28, ("en-tst", 1): 107}
    assert sum(v for k, v in extra.items() if not k[1]) == 2266
