"""Seeded synthetic inputs for bench_paths.py: Mu-SHROOM files, span lists, JSON lines.

The Mu-SHROOM records follow the official format and its statistics (texts of 40-900
characters, 0-5 soft spans on a thirds grid, hard labels = prob > 0.5 merged); the
predictions are noisy detectors (overlapping soft spans in some records, 4-decimal
probabilities), with both label fields.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = ("Paris", "is", "the", "capital", "of", "Italy", "and", "was", "founded", "in",
         "1850", "by", "a", "famous", "émigré", "世界", "mountain", "river", "Nobel")


def _text(rng: random.Random) -> str:
    n = rng.randint(40, 900)
    words = []
    size = 0
    while size < n:
        w = rng.choice(WORDS)
        words.append(w)
        size += len(w) + 1
    return " ".join(words)[:n]


def _spans(rng: random.Random, n: int, k: int) -> list[tuple[int, int]]:
    cuts = sorted(rng.sample(range(n + 1), min(2 * k, n + 1)))
    return [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)
            if cuts[i] < cuts[i + 1]]


def _hard(soft: list[dict]) -> list[list[int]]:
    kept = sorted((s for s in soft if s["prob"] > 0.5), key=lambda s: (s["start"], s["end"]))
    hard: list[list[int]] = []
    prev = None
    for s in kept:
        if hard and s["start"] == prev:
            hard[-1][1] = s["end"]
        else:
            hard.append([s["start"], s["end"]])
        prev = s["end"]
    return hard


def mushroom_records(n: int, seed: int = 0) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    refs, preds = [], []
    for i in range(n):
        text = _text(rng)
        soft = [{"start": s, "prob": rng.choice((0.3333333333, 0.6666666667, 1.0)), "end": e}
                for s, e in _spans(rng, len(text), rng.randint(0, 5))]
        refs.append({"id": f"tst-xx-{i}", "lang": "XX", "model_input": "Who?",
                     "model_output_text": text, "model_id": "m",
                     "soft_labels": soft, "hard_labels": _hard(soft)})
        psoft = [{"start": s, "end": e, "prob": round(rng.random(), 4)}
                 for s, e in _spans(rng, len(text), rng.randint(0, 6))]
        if rng.random() < 0.1 and len(text) > 10:  # an overlapping span, written last
            psoft.append({"start": 2, "end": len(text) // 2, "prob": 0.55})
        preds.append({"id": f"tst-xx-{i}", "hard_labels": _hard(psoft), "soft_labels": psoft})
    order = list(range(n))
    rng.shuffle(order)
    return refs, [preds[i] for i in order]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def span_lists(n: int, seed: int = 0, dicts: bool = False):
    """``n`` examples of 0-6 random spans each (tuples or dicts), texts up to 2,000,
    in text order as detectors write them (some overlap)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        spans = []
        for _ in range(rng.randint(0, 6)):
            s = rng.randrange(0, 2000)
            e = s + rng.randint(1, 60)
            spans.append((s, e))
        spans.sort()
        out.append([{"start": s, "end": e} for s, e in spans] if dicts else spans)
    return out


def evaluate_rows(path: Path, n: int, seed: int = 0) -> Path:
    """JSON lines with ``id``, ``ref`` and ``pred`` span lists (``[[s, e], ...]``)."""
    refs, preds = span_lists(n, seed), span_lists(n, seed + 1)
    with open(path, "w", encoding="utf-8") as fh:
        for i, (r, p) in enumerate(zip(refs, preds)):
            fh.write(json.dumps({"id": i, "ref": [list(s) for s in r],
                                 "pred": [list(s) for s in p]}) + "\n")
    return path
