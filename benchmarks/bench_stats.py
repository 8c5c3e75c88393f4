"""Uncertainty at scale: bootstrap intervals and paired detector comparisons.

On the seeded synthetic batch of ``bench_evaluate.py`` (100,000 examples by default):

- ``mycelium.evaluate(..., ci=0.95, n_resamples=1000)`` with all metrics, macro and
  micro, beside the same call without intervals;
- the pandas accessor with intervals per group (``by`` a key with ~50 values);
- ``mycelium.compare`` of 5 detectors (perturbations of the references), every pair,
  paired bootstrap and permutation tests.

Figures are printed, never asserted. Run: ``python benchmarks/bench_stats.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_batch  # noqa: E402

import mycelium  # noqa: E402
from mycelium.stats.comparison import compare  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def detectors(refs, rng, k: int) -> dict[str, list]:
    """k detectors: the references with spans shifted by 0..k-1 characters, some dropped."""
    ref_lists = refs.to_pylist()
    out = {}
    for d in range(k):
        preds = []
        for spans in ref_lists:
            kept = [[s["start"] + d, s["end"] + d] for s in spans if rng.random() > 0.1 * d]
            preds.append(kept)
        out[f"det{d}"] = preds
    return out


def run(args) -> int:
    refs, preds, _ = make_batch(args.examples, args.seed)
    n, R = args.examples, args.resamples
    print(f"mycelium {mycelium.__version__} | {n:,} examples, {R:,} resamples, all metrics")
    rows = []
    for average in ("macro", "micro"):
        base, _ = timed(lambda: mycelium.evaluate(refs, preds, average=average))
        with_ci, report = timed(lambda: mycelium.evaluate(
            refs, preds, average=average, ci=0.95, n_resamples=R, seed=0, progress=False))
        rows.append((f"evaluate {average}, no intervals", base))
        rows.append((f"evaluate {average}, ci=0.95 x {R} resamples", with_ci))
    iou = report["ci"]["iou"]["score"]
    print(f"  (micro iou {report['iou']['score']:.4f}, 95% CI [{iou['low']:.4f}, "
          f"{iou['high']:.4f}])")
    rng = np.random.default_rng(args.seed)
    frame = pd.DataFrame({"ref": pd.Series(refs.to_pylist()), "pred": pd.Series(
        preds.to_pylist()), "group": rng.integers(0, args.groups, n)})
    try:
        grouped, _ = timed(lambda: frame.mycelium.evaluate(
            "ref", "pred", by="group", ci=0.95, n_resamples=R, seed=0, progress=False))
        rows.append((f"pandas accessor by {args.groups} groups, ci x {R}", grouped))
    except TypeError as exc:  # an older accessor without intervals
        print(f"  grouped intervals not available: {exc}")
    dets = detectors(refs.slice(0, args.compare_examples), rng, args.detectors)
    sub_refs = refs.slice(0, args.compare_examples)
    for test in ("paired_bootstrap", "permutation"):
        seconds, out = timed(lambda: compare(sub_refs, dets, test=test, n_resamples=R,
                                             seed=0, progress=False))
        rows.append((f"compare {args.detectors} detectors ({len(out)} rows), {test}",
                     seconds))
    print(f"\n  {'case':58s} {'seconds':>8s}")
    for name, seconds in rows:
        print(f"  {name:58s} {seconds:8.2f}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--detectors", type=int, default=5)
    parser.add_argument("--compare-examples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
