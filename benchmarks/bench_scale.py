"""Scale out: Polars' streaming engine over a large Parquet file (and Spark, below).

Polars part: writes a seeded ``--polars-rows``-row Parquet file (default 10,000,000;
spans as in ``bench_evaluate.py``'s ``make_batch``, ``model`` x ``lang`` keys, about
100 groups) chunk by chunk (one row group per ``--chunk-rows`` rows, so writing it
never holds the whole dataset), then scores it with
``pl.scan_parquet(path).mycelium.evaluate(..., by=["model", "lang"])`` collected with
``engine="streaming"``, in a fresh process per average (macro, micro), and reports
wall time and the process's peak resident memory (target: under 2 GB).

Check: each result must equal, bit for bit, an independent chunked reduction of the
same file — `mycelium.statistics` per row group, `mycelium.core.reduce.row_columns` summed
exactly per group (Python integers across chunks), finished by
`mycelium.frames.engine.tidy_from_sums` — or the script exits non-zero. ``--check-rows``
limits that check to a smaller file scored the same two ways (0: skip).

Spark part: `spark_benchmark` scores a ``--spark-rows``-row Parquet file (default
1,000,000) with `mycelium.frames.spark.evaluate` on Spark local (all cores), beside the pandas
accessor on the same rows in the same run, both averages, and macro with intervals
(``--spark-resamples``, default 200; 0 skips it); each Spark frame must equal the
pandas accessor's, bit for bit (skipped without pyspark).

Figures are printed, never asserted. Run ``python benchmarks/bench_scale.py --help``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_batch  # noqa: E402

import mycelium  # noqa: E402
from mycelium.core import reduce  # noqa: E402
from mycelium.core.groups import group_sums  # noqa: E402
from mycelium.frames import engine as frames  # noqa: E402
from mycelium.core.settings import resolve_settings  # noqa: E402

BY = ["model", "lang"]
AVERAGES = ("macro", "micro")
MODELS = np.array([f"model-{i}" for i in range(10)])
LANGS = np.array(["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"])


# ------------------------------------------------------------------------- data

def write_dataset(path: str, rows: int, chunk_rows: int, seed: int,
                  row_group_rows: int | None = None) -> None:
    """A seeded Parquet file of ``rows`` rows, generated ``chunk_rows`` at a time, in row
    groups of ``row_group_rows`` (default: one per chunk)."""
    writer = None
    try:
        for i, start in enumerate(range(0, rows, chunk_rows)):
            table = _chunk(min(chunk_rows, rows - start), seed + i)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=row_group_rows or chunk_rows)
    finally:
        if writer is not None:
            writer.close()


def _chunk(n: int, seed: int) -> pa.Table:
    refs, preds, _ = make_batch(n, seed)
    rng = np.random.default_rng([seed, 1])
    return pa.table({"model": pa.array(MODELS[rng.integers(0, 10, n)]),
                     "lang": pa.array(LANGS[rng.integers(0, 10, n)]),
                     "ref": refs, "pred": preds})


# ----------------------------------------------------------------------- polars

# Peak memory is the child's VmHWM (the high-water mark of its own address space), not
# ru_maxrss, which on Linux keeps the parent's resident size at the time of the fork.
POLARS_CHILD = """
import json, resource, sys, time
import polars as pl
import mycelium
path, average, out = sys.argv[1:4]
start = time.perf_counter()
result = (pl.scan_parquet(path)
          .mycelium.evaluate("ref", "pred", by=["model", "lang"], average=average)
          .collect(engine="streaming"))
seconds = time.perf_counter() - start
result.write_parquet(out)
try:
    with open("/proc/self/status") as f:
        kib = [int(line.split()[1]) for line in f if line.startswith("VmHWM:")][0]
except (OSError, IndexError):  # not Linux: ru_maxrss (KiB on Linux, bytes on macOS)
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kib = kib / 1024 if sys.platform == "darwin" else kib
print(json.dumps({"seconds": seconds,
                  "groups": result.select("model", "lang").unique().height,
                  "rss_mib": kib / 1024}))
"""


def polars_streaming(path: str, average: str, out: str) -> dict:
    """Seconds, groups and peak RSS (MiB) of one streaming run in a fresh process."""
    res = subprocess.run([sys.executable, "-c", POLARS_CHILD, path, average, out],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"the Polars streaming run failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def exact_by_chunks(path: str) -> dict[str, pa.Table]:
    """The tidy result of each average from exact per-chunk group sums (no Polars)."""
    settings = {a: resolve_settings(average=a) for a in AVERAGES}
    totals: dict[str, dict[tuple, dict[str, object]]] = {a: {} for a in AVERAGES}
    pf = pq.ParquetFile(path)
    for rg in range(pf.num_row_groups):
        table = pf.read_row_group(rg, columns=[*BY, "ref", "pred"])
        stats = mycelium.statistics(table["ref"], table["pred"])
        groups = frames.group_codes(table.select(BY), table.num_rows)
        keys = [tuple(r.values()) for r in groups.keys.to_pylist()]
        ones = np.ones(table.num_rows, dtype=np.int64)
        for average in AVERAGES:
            columns = reduce.row_columns(stats, settings[average])
            sums = group_sums({**columns, "": ones}, groups.codes, groups.n_groups)
            for g, key in enumerate(keys):
                acc = totals[average].setdefault(key, {})
                for name, col in sums.items():
                    acc[name] = acc.get(name, 0) + _exact(name, col[g])
        del table, stats
    return {a: _finish(totals[a], settings[a]) for a in AVERAGES}


def _exact(name: str, value):
    if name.endswith(f"{reduce.SEP}residual"):
        # Limb residuals are zero for every value >= 2**-31 (all values here: texts
        # are at most 700 characters), so adding them across chunks stays exact.
        if value != 0:
            raise SystemExit(f"unexpected non-zero residual in {name}; the chunked check "
                             "cannot add float residuals exactly")
        return 0.0
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise SystemExit(f"unexpected fractional sum in {name}")
    return int(value)  # group_sums gives an all-zero column as float zeros


def _finish(totals: dict, settings) -> pa.Table:
    keys = list(totals)
    key_table = pa.table({name: [k[i] for k in keys] for i, name in enumerate(BY)})
    groups = frames.group_codes(key_table, len(keys))
    names = list(next(iter(totals.values())))
    sums = {}
    for name in names:
        col = np.empty(groups.n_groups, dtype=object)
        for i, key in enumerate(keys):
            col[groups.codes[i]] = totals[key][name]
        sums[name] = col.astype(np.float64) if name.endswith("residual") else col
    examples = sums.pop("")
    return frames.tidy_from_sums(sums, examples, groups, settings)


def same_tidy(got: pa.Table, want: pa.Table) -> str | None:
    """None when equal bit for bit (NaN == NaN), else a description of the first difference."""
    got_rows, want_rows = got.to_pylist(), want.to_pylist()
    if len(got_rows) != len(want_rows):
        return f"{len(got_rows)} rows, expected {len(want_rows)}"
    for g, w in zip(got_rows, want_rows):
        gv, wv = g.pop("value"), w.pop("value")
        same = (math.isnan(gv) and math.isnan(wv)) or (
            gv == wv and math.copysign(1, gv) == math.copysign(1, wv))
        if g != w or not same:
            return f"{g} value {gv!r} != {w} value {wv!r}"
    return None


def run_polars(args, tmp: str) -> bool:
    """Write, stream, check; print the figures. False if a check failed."""
    path = os.path.join(tmp, "scale.parquet")
    start = time.perf_counter()
    write_dataset(path, args.polars_rows, args.chunk_rows, args.seed, args.row_group_rows)
    written = time.perf_counter() - start
    size = os.path.getsize(path) / 2**20
    print(f"Polars: {args.polars_rows:,} rows in {pq.ParquetFile(path).num_row_groups} row "
          f"groups, {size:,.0f} MiB Parquet (written in {written:.1f} s), by model x lang, "
          "all six metrics")
    print(f"\n  {'average':8s} {'seconds':>8s} {'rows/s':>12s} {'peak RSS':>10s} {'groups':>7s}")
    results = {}
    for average in AVERAGES:
        out = os.path.join(tmp, f"polars-{average}.parquet")
        fig = polars_streaming(path, average, out)
        results[average] = pq.read_table(out)
        print(f"  {average:8s} {fig['seconds']:8.2f} {args.polars_rows / fig['seconds']:12,.0f} "
              f"{fig['rss_mib']:7,.0f} MiB {fig['groups']:7d}")
    if args.check_rows == 0:
        print("\n  equality check skipped (--check-rows 0)")
        return True
    if args.check_rows < args.polars_rows:
        path = os.path.join(tmp, "check.parquet")
        write_dataset(path, args.check_rows, args.chunk_rows, args.seed,
                      args.row_group_rows)
        for average in AVERAGES:
            out = os.path.join(tmp, f"check-{average}.parquet")
            polars_streaming(path, average, out)
            results[average] = pq.read_table(out)
    start = time.perf_counter()
    want = exact_by_chunks(path)
    rows = min(args.check_rows, args.polars_rows)
    ok = True
    for average in AVERAGES:
        diff = same_tidy(results[average], want[average])
        ok &= diff is None
        print(f"\n  {average}: streaming result {'==' if diff is None else '!='} exact chunked "
              f"reduction of the same {rows:,} rows"
              + ("" if diff is None else f": {diff}"))
    print(f"  (chunked check: {time.perf_counter() - start:.1f} s)")
    return ok


# ------------------------------------------------------------------------ spark

SPARK_BATCH_ROWS = 10_000  # Spark's default Arrow batch (arrow.maxRecordsPerBatch)
SPARK_ROW_GROUP = 100_000  # rows per Parquet row group: Spark splits a file between them


def spark_benchmark(rows: int, seed: int, tmp: str, *, resamples: int = 200,
                    cores: str = "*", batch_rows: int = SPARK_BATCH_ROWS) -> bool:
    """Spark local on ``rows`` rows read from Parquet, beside the pandas accessor on the
    same rows, in the same process; all six metrics, by model x lang: macro, micro and
    (unless ``resamples`` is 0) macro with 95 % intervals keyed by an ``id`` column.

    The file has row groups of ``SPARK_ROW_GROUP`` rows, so that Spark can split it
    between its cores. Times: session start; per case the pandas accessor (one core, on
    the rows read into memory), Spark's first run (Python workers start and import
    mycelium) and a second run (the figure to compare). Each Spark frame must equal the
    pandas accessor's, bit for bit (intervals included), or False is returned. Skipped
    (True) when pyspark is not installed.
    """
    try:
        import pandas as pd
        from pyspark.sql import SparkSession
    except ImportError:
        print("\nSpark: skipped (pyspark is not installed; pip install -e '.[spark]')")
        return True
    from mycelium.frames import spark as myspark

    path = os.path.join(tmp, "spark.parquet")
    write_dataset(path, rows, min(SPARK_ROW_GROUP, rows), seed)
    table = pq.read_table(path)
    table = table.append_column("id", pa.array(np.arange(rows, dtype=np.int64)))
    pq.write_table(table, path, row_group_size=SPARK_ROW_GROUP)
    df = table.to_pandas(
        types_mapper=lambda t: pd.ArrowDtype(t) if pa.types.is_list(t) else None)
    del table
    # Spark starts Python workers with PYSPARK_PYTHON: this interpreter (with mycelium).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    start = time.perf_counter()
    spark = (SparkSession.builder.master(f"local[{cores}]").appName("bench_scale")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "2g")
             .config("spark.sql.shuffle.partitions", str(os.cpu_count() or 1))
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch_rows))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sdf = spark.read.parquet(path)
    partitions = sdf.rdd.getNumPartitions()
    started = time.perf_counter() - start
    print(f"\nSpark {spark.version} local[{cores}]: {rows:,} rows from Parquet "
          f"({partitions} partitions, Arrow batches of {batch_rows:,} rows), by model x "
          f"lang, all six metrics; session start {started:.1f} s")
    cases = [(average, dict(average=average)) for average in AVERAGES]
    if resamples:
        cases.append((f"macro, 95 % CI, {resamples} resamples",
                      dict(average="macro", ci=0.95, n_resamples=resamples, id_col="id")))
    print(f"\n  {'case':34s} {'pandas s':>9s} {'Spark 1st s':>12s} {'Spark s':>8s} "
          f"{'Spark rows/s':>13s}  equal")
    ok = True
    try:
        for label, options in cases:
            t0 = time.perf_counter()
            want = df.mycelium.evaluate("ref", "pred", by=BY, **options)
            t1 = time.perf_counter()
            myspark.evaluate(sdf, "ref", "pred", by=BY, **options)
            t2 = time.perf_counter()
            got = myspark.evaluate(sdf, "ref", "pred", by=BY, **options)
            t3 = time.perf_counter()
            same = _same_frame(got, want)
            ok &= same
            print(f"  {label:34s} {t1 - t0:9.2f} {t2 - t1:12.2f} {t3 - t2:8.2f} "
                  f"{rows / (t3 - t2):13,.0f}  {'==' if same else '!='}")
    finally:
        spark.stop()
    return ok


def _same_frame(got, want) -> bool:
    import pandas as pd

    try:
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    except AssertionError as exc:
        print(f"  Spark's frame differs from the pandas accessor's: {exc}")
        return False
    return got.attrs == want.attrs


def run_spark(args, tmp: str) -> bool:
    """`spark_benchmark` on ``--spark-rows`` rows (0: skip). False if a check failed."""
    if not args.spark_rows:
        return True
    return spark_benchmark(args.spark_rows, args.seed, tmp, resamples=args.spark_resamples)


# ------------------------------------------------------------------------- main

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polars-rows", type=int, default=10_000_000,
                        help="rows of the Parquet file scored by Polars (0: skip)")
    parser.add_argument("--chunk-rows", type=int, default=1_000_000,
                        help="rows generated at a time (default 1,000,000)")
    parser.add_argument("--row-group-rows", type=int, default=None,
                        help="rows per Parquet row group (default: --chunk-rows)")
    parser.add_argument("--check-rows", type=int, default=None,
                        help="rows of the equality check (default: all; 0: skip)")
    parser.add_argument("--spark-rows", type=int, default=1_000_000,
                        help="rows scored by Spark local (0: skip)")
    parser.add_argument("--spark-resamples", type=int, default=200,
                        help="resamples of the Spark interval case (0: skip it)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.check_rows is None:
        args.check_rows = args.polars_rows
    print(f"mycelium {mycelium.__version__}, {os.cpu_count()} CPUs")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        if args.polars_rows:
            ok &= run_polars(args, tmp)
        ok &= run_spark(args, tmp)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nthis process's peak RSS (data generation and checks): {rss:,.0f} MiB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
