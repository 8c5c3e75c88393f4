"""How long ``mycelium report`` takes: on the example dataset (the command, end to end)
and on a synthetic long frame of N examples x D detectors (the report builder, in
process, with its phases timed). Prints numbers; never fails on a timing.

    python benchmarks/bench_report.py                         # 1,000,000 x 4
    python benchmarks/bench_report.py --examples 100000                   # quick
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium
from mycelium.report.document import ReportOptions, build_report

ROOT = Path(__file__).resolve().parents[1]


def spans_array(starts, lengths, per_example) -> pa.Array:
    offsets = np.concatenate([[0], np.cumsum(per_example)]).astype(np.int32)
    struct = pa.StructArray.from_arrays([pa.array(starts, pa.int64()),
                                         pa.array(starts + lengths, pa.int64())],
                                        names=["start", "end"])
    return pa.ListArray.from_arrays(pa.array(offsets), struct).cast(mycelium.SPAN_TYPE)


def synthetic(n: int, detectors: int, seed: int) -> pd.DataFrame:
    """``n`` examples (texts of 300 characters from a pool of 1,000; one span or none
    per side) scored by ``detectors`` detectors of different quality; long format."""
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    pool = [" ".join(rng.choice(words, 60))[:300].ljust(300, ".") for _ in range(1000)]
    texts = np.array(pool, dtype=object)[rng.integers(0, 1000, n)]
    has = rng.random(n) < 0.85
    start = rng.integers(0, 240, n)
    length = rng.integers(1, 60, n)
    refs = spans_array(start[has], length[has], has.astype(np.int64))
    lang = np.array(["en", "de", "fi", "zh"], dtype=object)[rng.integers(0, 4, n)]
    parts = []
    for d in range(detectors):
        shift = rng.integers(-3 * (d + 1), 3 * (d + 1) + 1, n)
        pstart = np.clip(start + shift, 0, 240)
        plen = np.clip(length + rng.integers(-5, 6, n), 1, 60)
        keep = has & (rng.random(n) < 0.9 - 0.1 * d)
        preds = spans_array(pstart[keep], plen[keep], keep.astype(np.int64))
        parts.append(pd.DataFrame({
            "detector": f"detector-{d}", "lang": lang, "text": texts,
            "ref": pd.arrays.ArrowExtensionArray(refs),
            "pred": pd.arrays.ArrowExtensionArray(preds)}))
    return pd.concat(parts, ignore_index=True)


def example_dataset() -> float:
    data = ROOT / "examples" / "data"
    preds = sorted(str(p) for p in (data / "predictions").glob("*.jsonl"))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mycelium", "report", str(data / "references.jsonl"),
                    *preds, "--ref-col", "spans", "--pred-col", "spans", "--text-col",
                    "text", "--id-col", "id", "--by", "lang", "-o", "/tmp/bench_report.html"],
                   check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1_000_000)
    parser.add_argument("--detectors", type=int, default=4)
    parser.add_argument("--resamples", type=int, default=None,
                        help="default: the report's (1000, or 200 above 200,000 rows)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"example dataset, `mycelium report` end to end (a new process): "
          f"{example_dataset():.2f} s")
    started = time.perf_counter()
    frame = synthetic(args.examples, args.detectors, args.seed)
    print(f"synthetic frame {len(frame):,} rows built in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    html = build_report(frame, "ref", "pred", detector_col="detector", text_col="text",
                        by="lang", options=ReportOptions(n_resamples=args.resamples))
    took = time.perf_counter() - started
    print(f"report of {args.examples:,} examples x {args.detectors} detectors, by lang, "
          f"{args.resamples or 'default'} resamples: {took:.1f} s, {len(html) / 1e6:.2f} MB of HTML")


if __name__ == "__main__":
    main()
