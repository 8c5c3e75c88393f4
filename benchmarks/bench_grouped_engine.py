"""The grouping engine on its span and score paths: grouped against ungrouped, in one run.

``python benchmarks/bench_grouped_engine.py [--rows N] [--groups G] [--repeat K]``

Every path of `mycelium.core.groups` is timed on the same seeded rows (texts of 300-700
characters, 0-3 reference spans, tokens of 1-7 characters with scores rounded to 3
decimals, predictions at threshold 0.5), each once without groups and once by a key
column of ``--groups`` groups:

- ``spans``: ``df.mycelium.evaluate(ref, pred, metrics=[iou, character])`` (pandas; the
  per-row statistics reduced by group);
- ``scores``: ``df.mycelium.evaluate(ref, token_offsets_col=..., token_scores_col=...,
  threshold=0.5, metrics=[iou, char_auroc, char_ap])`` (pandas; each group's rows
  scored by ``mycelium.evaluate``);
- ``lazy scores``: the same call on a Polars LazyFrame, collected (the score sums per
  group and distinct score);
- ``sweep``: ``df.mycelium.sweep(..., thresholds=[0.1, ..., 0.9])``.

After one untimed call of each path, it prints the best of ``--repeat`` times (CPU time of this process by default) and the
grouped/ungrouped ratio, which is the figure to compare across checkouts: point
``PYTHONPATH`` at another checkout to time that one the same way. The last column is a
digest of the grouped result (keys, metric, measure, value, examples): equal across
checkouts when their numbers are equal to the bit. A script, not a test: it never
asserts on a time.
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np
import pandas as pd

import mycelium

try:
    import polars as pl
except ImportError:  # the lazy path is left out
    pl = None


def make(n: int, n_groups: int, seed: int = 0) -> pd.DataFrame:
    """Seeded rows: text, reference spans, predicted spans, token offsets and scores."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"text": [], "ref": [], "pred": [], "offsets": [], "scores": []}
    for _ in range(n):
        length = int(rng.integers(300, 701))
        refs = []
        for _ in range(int(rng.integers(0, 4))):
            s = int(rng.integers(0, length - 1))
            refs.append([s, min(length, s + int(rng.integers(1, 60)))])
        lens = rng.integers(1, 8, size=length // 2)
        ends = np.cumsum(lens + rng.integers(0, 2, size=lens.size))
        starts = ends - lens
        keep = ends <= length
        starts, ends = starts[keep], ends[keep]
        inside = np.zeros(length + 1, bool)
        for a, b in refs:
            inside[a:b] = True
        scores = np.round(np.clip(rng.random(starts.size) * 0.7 + 0.3 * inside[starts],
                                  0, 1), 3)
        preds = [[int(a), int(b)] for a, b, p in zip(starts, ends, scores) if p > 0.6][:4]
        rows["text"].append("x" * length)
        rows["ref"].append(refs)
        rows["pred"].append(preds)
        rows["offsets"].append([[int(a), int(b)] for a, b in zip(starts, ends)])
        rows["scores"].append(scores.tolist())
    df = pd.DataFrame(rows)
    df["key"] = rng.integers(0, n_groups, size=n).astype(str)
    return df


def digest(out) -> str:
    frame = out if isinstance(out, pd.DataFrame) else out.to_pandas()
    cols = [c for c in ("key", "threshold", "metric", "measure", "value", "examples")
            if c in frame.columns]
    data = frame[cols].to_csv(index=False, float_format="%r")
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def timed(fn, repeat: int, clock) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = clock()
        out = fn()
        best = min(best, clock() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--groups", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    df = make(args.rows, args.groups)
    scores = dict(text="text", token_offsets_col="offsets", token_scores_col="scores",
                  threshold=0.5, metrics=["iou", "char_auroc", "char_ap"])
    cases = {
        "spans": lambda by: df.mycelium.evaluate("ref", "pred", text="text", by=by,
                                                 metrics=["iou", "character"]),
        "scores": lambda by: df.mycelium.evaluate("ref", by=by, **scores),
        "sweep": lambda by: df.mycelium.sweep(
            "ref", text="text", token_offsets_col="offsets", token_scores_col="scores",
            metrics=["iou"], thresholds=[i / 10 for i in range(1, 10)], by=by),
    }
    if pl is not None:
        lf = pl.from_pandas(df).lazy()
        cases["lazy scores"] = lambda by: lf.mycelium.evaluate("ref", by=by,
                                                               **scores).collect()
    print(f"mycelium {mycelium.__file__}; {args.rows:,} rows, {args.groups} groups, "
          f"best of {args.repeat}, {args.clock} time")
    print(f"{'path':<12} {'ungrouped s':>12} {'grouped s':>10} {'ratio':>7}  digest")
    for name, run in cases.items():
        run("key")  # warm: imports and first-call caches are not timed
        plain, _ = timed(lambda: run(None), args.repeat, clock)
        grouped, out = timed(lambda: run("key"), args.repeat, clock)
        print(f"{name:<12} {plain:>12.3f} {grouped:>10.3f} {grouped / plain:>7.2f}  "
              f"{digest(out)}")


if __name__ == "__main__":
    main()
