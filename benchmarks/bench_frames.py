"""Dataframe faces beside the core: grouped evaluation of 1,000,000 rows, all metrics.

Builds the seeded batch of ``bench_evaluate.py`` (about 2 spans per side, ~500-character
texts), adds ``model`` and ``lang`` keys (10 x 10 = about 100 groups) and times, in the
same run and on the same rows:

- the core: ``mycelium.evaluate`` on all rows (no grouping);
- the pandas accessor: ``df.mycelium.evaluate(..., by=["model", "lang"])``;
- Polars eager: ``pl_df.mycelium.evaluate(..., by=[...])``;
- Polars lazy on the streaming engine, from memory and from a Parquet file
  (``pl.scan_parquet``), the latter in a child process whose peak RSS is reported.

Each face's overhead is reported as its time over the core's. Figures are printed, never
asserted. Run: ``python benchmarks/bench_frames.py [--rows N] [--repeat K] [--clock cpu]``
(wall clock by default; the Parquet child is timed by wall clock always).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_batch  # noqa: E402

import mycelium  # noqa: E402

BY = ["model", "lang"]


def build(rows: int, seed: int) -> pa.Table:
    refs, preds, _ = make_batch(rows, seed)
    rng = np.random.default_rng(seed + 1)
    models = np.array([f"model-{i}" for i in range(10)])
    langs = np.array(["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"])
    return pa.table({"model": pa.array(models[rng.integers(0, 10, rows)]),
                     "lang": pa.array(langs[rng.integers(0, 10, rows)]),
                     "ref": refs, "pred": preds})


#: What `best_of` times: wall clock, or with ``--clock cpu`` this process's CPU time (all
#: its threads), steadier on a shared machine.
CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCK["wall"]


def best_of(repeat: int, fn):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return best, out


STREAM_CHILD = """
import resource, sys, time
import polars as pl, mycelium
start = time.perf_counter()
out = (pl.scan_parquet(sys.argv[1]).mycelium.evaluate("ref", "pred", by=["model", "lang"])
       .collect(engine="streaming"))
elapsed = time.perf_counter() - start
print(elapsed, out.height, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def stream_from_parquet(path: str) -> tuple[float, int, float]:
    """Seconds, result rows and peak RSS (MiB) of a streaming run in a fresh process."""
    res = subprocess.run([sys.executable, "-c", STREAM_CHILD, path], capture_output=True,
                         text=True, check=True)
    seconds, height, rss_kib = res.stdout.split()
    return float(seconds), int(height), int(rss_kib) / 1024


def run(args) -> int:
    table = build(args.rows, args.seed)
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    print(f"mycelium {mycelium.__version__} | {args.rows:,} rows, "
          f"{table.column('model').to_numpy().size and 100} groups (model x lang), all metrics")
    core_s, _ = best_of(args.repeat, lambda: mycelium.evaluate(table["ref"], table["pred"]))
    rows = [("core evaluate (no groups)", core_s)]
    pandas_s, pd_out = best_of(args.repeat, lambda: frame.mycelium.evaluate("ref", "pred", by=BY))
    rows.append(("pandas accessor, by model+lang", pandas_s))
    try:
        import polars as pl
    except ImportError:
        pl = None
        print("polars is not installed: Polars rows skipped (pip install '.[polars]')")
    if pl is not None:
        pl_frame = pl.from_arrow(table)
        eager_s, pl_out = best_of(args.repeat,
                                  lambda: pl_frame.mycelium.evaluate("ref", "pred", by=BY))
        rows.append(("Polars eager, by model+lang", eager_s))
        lazy_s, _ = best_of(args.repeat, lambda: pl_frame.lazy().mycelium.evaluate(
            "ref", "pred", by=BY).collect(engine="streaming"))
        rows.append(("Polars lazy (streaming, in memory)", lazy_s))
        np.testing.assert_array_equal(pl_out["value"].to_numpy(), pd_out["value"].to_numpy())
    print(f"\n  {'face':40s} {'seconds':>8s} {'vs core':>8s}")
    for name, seconds in rows:
        print(f"  {name:40s} {seconds:8.3f} {seconds / core_s:7.2f}x")
    if pl is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "rows.parquet")
            pq.write_table(table, path, row_group_size=100_000)
            size = os.path.getsize(path) / 2**20
            seconds, height, rss = stream_from_parquet(path)
        print(f"\n  Polars streaming from Parquet ({size:.0f} MiB file, fresh process): "
              f"{seconds:.3f} s, {height} result rows, peak RSS {rss:.0f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  this process's peak RSS: {rss:.0f} MiB")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=sorted(CLOCK), default="wall")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCK[args.clock]
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
