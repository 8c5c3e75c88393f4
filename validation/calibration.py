"""``python -m validation.calibration``: how often `mycelium.compare` calls a difference
significant when there is none (the false-positive rate of each test at a given size).

Null model: per example, a reference span set and two predictions drawn independently
from the *same* distribution (the reference with both ends jittered by up to ``jitter``
characters, or dropped with probability ``p_drop``), so the two detectors are
exchangeable and every rejection at level ``alpha`` is a false positive. The rate is
reported with its Wilson 95% interval over ``--replicates`` independent datasets.
Writes ``validation/results/calibration.csv``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import mycelium

OUT = Path(__file__).resolve().parent / "results" / "calibration.csv"


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion k/n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def null_dataset(rng: np.random.Generator, n: int, jitter: int = 4, p_drop: float = 0.2):
    refs, a, b = [], [], []
    for _ in range(n):
        start = int(rng.integers(0, 50))
        ref = [[start, start + int(rng.integers(3, 30))]]
        refs.append(ref)
        for side in (a, b):
            if rng.random() < p_drop:
                side.append([])
                continue
            s = max(0, ref[0][0] + int(rng.integers(-jitter, jitter + 1)))
            e = max(s + 1, ref[0][1] + int(rng.integers(-jitter, jitter + 1)))
            side.append([[s, e]])
    return refs, a, b


def run(sizes, replicates: int, n_resamples: int, alpha: float, seed: int) -> pd.DataFrame:
    rows = []
    for n in sizes:
        for test in ("paired_bootstrap", "permutation"):
            rng = np.random.default_rng([seed, n])
            rejected = 0
            for r in range(replicates):
                refs, a, b = null_dataset(rng, n)
                out = mycelium.compare(refs, {"a": a, "b": b}, metrics="iou", test=test,
                                       n_resamples=n_resamples, seed=r)
                rejected += bool(out["p_value"].iloc[0] < alpha)
            low, high = wilson(rejected, replicates)
            rows.append({"examples": n, "test": test, "metric": "iou", "average": "macro",
                         "alpha": alpha, "replicates": replicates,
                         "n_resamples": n_resamples, "rejections": rejected,
                         "false_positive_rate": rejected / replicates,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m validation.calibration",
                                description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="20,50,200")
    p.add_argument("--replicates", type=int, default=1000)
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    frame = run([int(x) for x in args.sizes.split(",")], args.replicates, args.n_resamples,
                args.alpha, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    print(frame.to_string(index=False))
    print(f"wrote {args.out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
