"""Many small groups on every frame face: grouped against ungrouped, in one run.

Run ``python benchmarks/bench_groups.py --help``; see benchmarks/README.md ("Many small
groups on every face"). Each face — the pandas accessor, the Polars namespace on a
DataFrame and on a LazyFrame, the command line's ``--by`` (in-process, on a Parquet
file) and, with ``--faces ...,spark``, PySpark in local mode — scores the same rows
(`bench_evaluate.make_batch`, ``iou`` + ``character``, macro) once without groups and
once by a key column of ``--rows / --group-size`` groups; the script prints both times
(best of ``--repeat``, CPU time of this process by default) and their ratio. Which
``mycelium`` is timed is whatever ``import mycelium`` finds: point ``PYTHONPATH`` at
another checkout to time it the same way. The last column is a digest of the grouped
result (keys, metric, measure, value, examples), equal across checkouts when their
numbers are. A script, not a test: it never asserts on a timing.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import make_batch  # noqa: E402

import mycelium  # noqa: E402

METRICS = ["iou", "character"]
FACES = ("pandas", "polars", "lazy", "cli", "spark")


def _digest(table: pa.Table) -> str:
    cols = [c for c in table.column_names if c in ("group", "metric", "measure", "value",
                                                    "examples")]
    h = hashlib.sha256()
    for name in cols:
        col = table.column(name).combine_chunks()
        if pa.types.is_floating(col.type) or pa.types.is_integer(col.type):
            h.update(np.ascontiguousarray(col.to_numpy(zero_copy_only=False)).tobytes())
        else:
            h.update("\x00".join(map(str, col.to_pylist())).encode())
    return h.hexdigest()[:12]


def _faces(table: pa.Table, names, tmp: Path):
    """``{face: run(by) -> Arrow table}`` for the faces asked for."""
    out = {}
    if "pandas" in names:
        import pandas as pd

        frame = pd.DataFrame({"ref": table.column("ref").to_pylist(),
                              "pred": table.column("pred").to_pylist(),
                              "group": table.column("group").to_numpy()})
        out["pandas"] = lambda by: pa.Table.from_pandas(frame.mycelium.evaluate(
            "ref", "pred", by=by, metrics=METRICS, progress=False), preserve_index=False)
    if "polars" in names or "lazy" in names:
        import polars as pl

        pframe = pl.from_arrow(table)
        if "polars" in names:
            out["polars"] = lambda by: pframe.mycelium.evaluate(
                "ref", "pred", by=by, metrics=METRICS, progress=False).to_arrow()
        if "lazy" in names:
            lazy = pframe.lazy()
            out["lazy"] = lambda by: lazy.mycelium.evaluate(
                "ref", "pred", by=by, metrics=METRICS).collect().to_arrow()
    if "cli" in names:
        from mycelium.cli.app import main

        path = tmp / "rows.parquet"
        pq.write_table(table, path)
        result = tmp / "result.parquet"

        def cli(by):
            argv = ["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred",
                    "--metrics", ",".join(METRICS), "--format", "parquet", "-o", str(result)]
            if main(argv + (["--by", by] if by else [])) != 0:
                raise SystemExit("the command failed")
            return pq.read_table(result)
        out["cli"] = cli
    if "spark" in names:
        from pyspark.sql import SparkSession

        import mycelium.frames.spark as mspark

        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers: this Python
        spark = (SparkSession.builder.master("local[2]").appName("bench_groups")
                 .config("spark.ui.enabled", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        path = tmp / "spark.parquet"
        pq.write_table(table, path)
        sdf = spark.read.parquet(str(path)).cache()
        sdf.count()
        out["spark"] = lambda by: pa.Table.from_pandas(mspark.evaluate(
            sdf, "ref", "pred", by=by, metrics=METRICS), preserve_index=False)
    return out


def _best(fn, repeat: int, clock) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--group-size", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per case, best kept")
    parser.add_argument("--faces", default="pandas,polars,lazy,cli",
                        help=f"comma-separated, from {', '.join(FACES)}")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="this process's CPU time (steadier on a shared machine; "
                             "Spark's executors are not counted: use wall for it) or "
                             "wall time")
    parser.add_argument("--profile", metavar="FACE",
                        help="print a cProfile of one grouped call of FACE instead")
    args = parser.parse_args(argv)
    names = [f for f in args.faces.split(",") if f]
    unknown = sorted(set(names) - set(FACES))
    if unknown:
        parser.error(f"unknown faces {unknown}; choose from {', '.join(FACES)}")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    refs, preds, _ = make_batch(args.rows, 0)
    table = pa.table({"ref": refs, "pred": preds,
                      "group": np.arange(args.rows, dtype=np.int64) // args.group_size})
    print(f"mycelium from {os.path.dirname(mycelium.__file__)}; {args.rows:,} rows in "
          f"{-(-args.rows // args.group_size):,} groups of {args.group_size}; "
          f"{'+'.join(METRICS)}; best of {args.repeat}, {args.clock} seconds")
    with tempfile.TemporaryDirectory() as tmp:
        faces = _faces(table, [args.profile] if args.profile else names, Path(tmp))
        if args.profile:
            run = faces[args.profile]
            run("group")
            profiler = cProfile.Profile()
            profiler.runcall(run, "group")
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
            return 0
        print(f"| face | ungrouped s | grouped s | grouped / ungrouped | digest |")
        print("|---|---|---|---|---|")
        for face, run in faces.items():
            run(None)  # warm-up: imports, first-call caches
            flat = _best(lambda: run(None), args.repeat, clock)
            digest = _digest(run("group"))
            grouped = _best(lambda: run("group"), args.repeat, clock)
            print(f"| {face} | {flat:.2f} | {grouped:.2f} | {grouped / flat:.2f}x | "
                  f"{digest} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
