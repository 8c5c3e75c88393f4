"""Score metrics at scale: token scores of many examples on Polars' streaming engine.

Writes a seeded Parquet file of ``--rows`` examples (default 10,000,000) of about
``--tokens`` tokens each (default 100: 80 to 120, plus two special tokens of offset
(0, 0)), chunk by chunk so that writing never holds the dataset: a text per example
(only its length matters), about 1.5 reference spans of 1 to 5 tokens, token offsets
(``list<list<int64>>``, the form a tokenizer's ``offset_mapping`` takes in a
``datasets`` column) and float32 token scores, higher on the tokens inside a reference
span, on a grid of ``--distinct`` values (default 1,001: probabilities stored to three
decimals); ``model`` x ``lang`` keys, 100 groups.

Then, each in a fresh process (peak memory is the child's ``VmHWM``):

- ``pl.scan_parquet(path).mycelium.evaluate("ref", text="text",
  token_offsets_col="offsets", token_scores_col="scores", by=["model", "lang"], ...)``
  collected with ``engine="streaming"``: macro and micro ``char_auroc``, ``char_ap``,
  ``response_auroc``, and macro at ``threshold=0.5`` (every span metric and
  ``response_level`` too); with ``--prefetch N``, each case again with Polars' Parquet
  read-ahead bounded to ``N`` row groups (``POLARS_ROW_GROUP_PREFETCH_SIZE``: by default
  Polars decodes row groups well ahead of a consumer slower than its reader);
- the baseline, in the same run: the eager Polars face on the same call over the first
  ``--baseline-rows`` rows read into memory (what the LazyFrame did before it streamed
  score metrics), beside the streaming plan on the same rows: the ratio of their peaks.

Check: on the first ``--check-rows`` rows the streaming result must equal the eager
face's (itself `mycelium.evaluate` on each group's rows) bit for bit, or the script exits
non-zero. Figures are printed, never asserted. ``python benchmarks/bench_scale_scores.py
--help`` lists the options.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scale import same_tidy  # noqa: E402

MODELS = np.array([f"model-{i}" for i in range(10)])
LANGS = np.array(["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"])
CASES = {"macro": {"average": "macro"}, "micro": {"average": "micro"},
         "macro@0.5": {"average": "macro", "threshold": 0.5}}


# ------------------------------------------------------------------------- data

def chunk(n: int, seed: int, tokens: int, distinct: int) -> pa.Table:
    """``n`` examples: keys, text, reference spans, token offsets and scores."""
    rng = np.random.default_rng(seed)
    count = rng.integers(int(tokens * 0.8), int(tokens * 1.2) + 1, n)
    total = int(count.sum())
    owner = np.repeat(np.arange(n), count)
    first = np.cumsum(count) - count
    length = rng.integers(1, 9, total)                # characters of each token
    step = length + 1                                 # and one space after it
    ends_all = np.cumsum(step) - 1                    # global ends, then made local
    base = (np.cumsum(step) - step)[first]            # each example's first character
    starts = ends_all - length - base[owner]
    ends = ends_all - base[owner]
    text_len = ends[first + count - 1]
    # reference spans: runs of 1-5 tokens, about 1.5 per example
    k = np.minimum(rng.poisson(1.5, n), 4)
    span_owner = np.repeat(np.arange(n), k)
    at = first[span_owner] + (rng.random(span_owner.size) * count[span_owner]).astype(int)
    run = np.minimum(rng.integers(1, 6, span_owner.size),
                     first[span_owner] + count[span_owner] - at)
    inside = np.zeros(total + 1, dtype=np.int64)      # tokens of a span: +1 .. -1 marks
    np.add.at(inside, at, 1)
    np.add.at(inside, at + run, -1)
    positive = np.cumsum(inside)[:total] > 0
    p = np.clip(rng.normal(np.where(positive, 0.65, 0.2), 0.2), 0.0, 1.0)
    scores = (np.round(p * (distinct - 1)) / (distinct - 1)).astype(np.float32)
    # two special tokens per example, (0, 0) first and last (their scores count for nothing)
    m = total + 2 * n
    new_first = first + 2 * np.arange(n)
    st, en = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    sc = rng.random(m).astype(np.float32)
    at_token = new_first[owner] + 1 + (np.arange(total) - first[owner])
    st[at_token], en[at_token], sc[at_token] = starts, ends, scores
    bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count + 2, out=bounds[1:])
    pairs = pa.ListArray.from_arrays(pa.array(np.arange(0, 2 * m + 1, 2, dtype=np.int32)),
                                     pa.array(np.stack([st, en], 1).ravel()))
    offsets = pa.LargeListArray.from_arrays(pa.array(bounds), pairs)
    score_col = pa.LargeListArray.from_arrays(pa.array(bounds), pa.array(sc))
    span_bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(k, out=span_bounds[1:])
    spans = pa.StructArray.from_arrays(
        [pa.array(starts[at]), pa.array(ends[at + run - 1])], names=["start", "end"])
    text_bounds = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(text_len, out=text_bounds[1:])
    text = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(text_bounds.tobytes()), pa.py_buffer(b"x" * int(text_bounds[-1])))
    return pa.table({
        "model": pa.array(MODELS[rng.integers(0, 10, n)]),
        "lang": pa.array(LANGS[rng.integers(0, 10, n)]),
        "text": text, "ref": pa.LargeListArray.from_arrays(pa.array(span_bounds), spans),
        "offsets": offsets, "scores": score_col})


def write_dataset(path: str, rows: int, *, chunk_rows: int, row_group_rows: int,
                  seed: int, tokens: int, distinct: int) -> None:
    """The seeded file, ``chunk_rows`` examples generated at a time."""
    writer = None
    try:
        for i, start in enumerate(range(0, rows, chunk_rows)):
            table = chunk(min(chunk_rows, rows - start), seed + i, tokens, distinct)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=row_group_rows)
    finally:
        if writer is not None:
            writer.close()


# ----------------------------------------------------------------------- a run

# Peak memory is the child's VmHWM (its own high-water mark), not ru_maxrss.
CHILD = """
import json, sys, time
import polars as pl
import mycelium
path, mode, case, out, rows = sys.argv[1:6]
options = json.loads(case)
start = time.perf_counter()
if mode == "stream":
    lf = pl.scan_parquet(path)
    if int(rows):
        lf = lf.head(int(rows))
    result = lf.mycelium.evaluate("ref", text="text", token_offsets_col="offsets",
                                  token_scores_col="scores", by=["model", "lang"],
                                  **options).collect(engine="streaming")
else:  # the eager face on the rows read into memory
    df = pl.read_parquet(path, n_rows=int(rows) or None)
    result = df.mycelium.evaluate("ref", text="text", token_offsets_col="offsets",
                                  token_scores_col="scores", by=["model", "lang"], **options)
seconds = time.perf_counter() - start
result.write_parquet(out)
with open("/proc/self/status") as f:
    kib = [int(line.split()[1]) for line in f if line.startswith("VmHWM:")][0]
print(json.dumps({"seconds": seconds, "rss_mib": kib / 1024}))
"""


def run(path: str, mode: str, options: dict, out: str, rows: int = 0,
        prefetch: int | None = None) -> dict:
    """Seconds and peak RSS (MiB) of one run in a fresh process (``rows``: the first
    rows only, 0 for all; ``prefetch``: Polars' row-group read-ahead, its
    ``POLARS_ROW_GROUP_PREFETCH_SIZE``, or None for its default)."""
    env = dict(os.environ)
    if prefetch is not None:
        env["POLARS_ROW_GROUP_PREFETCH_SIZE"] = str(prefetch)
    res = subprocess.run([sys.executable, "-c", CHILD, path, mode, json.dumps(options), out,
                          str(rows)], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise SystemExit(f"the {mode} run failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def same(got: pa.Table, want: pa.Table) -> str | None:
    """`bench_scale.same_tidy` (bit for bit, NaN == NaN), the eager score face's null
    values (it writes NaN as null) read as NaN."""
    def nan_for_null(t: pa.Table) -> pa.Table:
        at = t.schema.get_field_index("value")
        return t.set_column(at, "value", pc.fill_null(t.column("value"), math.nan))

    return same_tidy(nan_for_null(got), nan_for_null(want))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--tokens", type=int, default=100)
    ap.add_argument("--distinct", type=int, default=1001)
    ap.add_argument("--chunk-rows", type=int, default=100_000)
    ap.add_argument("--row-group-rows", type=int, default=10_000)
    ap.add_argument("--baseline-rows", type=int, default=100_000)
    ap.add_argument("--check-rows", type=int, default=50_000)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--prefetch", type=int, default=None, help="also run each case with "
                    "Polars' row-group read-ahead bounded to this many row groups "
                    "(POLARS_ROW_GROUP_PREFETCH_SIZE); its default reads far ahead of a "
                    "slower consumer")
    ap.add_argument("--dir", default=None, help="where to write the file (default: a "
                    "temporary directory, removed at the end)")
    args = ap.parse_args(argv)
    cases = args.cases.split(",")
    if args.dir is not None:
        os.makedirs(args.dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "scores.parquet")
        start = time.perf_counter()
        write_dataset(path, args.rows, chunk_rows=args.chunk_rows,
                      row_group_rows=args.row_group_rows, seed=args.seed,
                      tokens=args.tokens, distinct=args.distinct)
        meta = pq.ParquetFile(path).metadata
        print(f"{args.rows:,} examples, about {args.tokens} tokens each "
              f"({args.distinct:,} distinct scores), {meta.num_row_groups} row groups, "
              f"{os.path.getsize(path) / 2**30:.2f} GiB of Parquet, written in "
              f"{time.perf_counter() - start:.0f} s; by model x lang (100 groups)\n")
        print(f"  {'case':10s} {'rows':>11s} {'seconds':>8s} {'examples/s':>11s} "
              f"{'peak RSS':>10s}")
        ok = True
        for case in cases:
            fig = run(path, "stream", CASES[case], os.path.join(tmp, "out.parquet"))
            print(f"  {case:10s} {args.rows:11,d} {fig['seconds']:8.1f} "
                  f"{args.rows / fig['seconds']:11,.0f} {fig['rss_mib']:7,.0f} MiB")
        if args.prefetch is not None:
            print(f"\n  the same, Polars reading at most {args.prefetch} row group(s) ahead "
                  f"(POLARS_ROW_GROUP_PREFETCH_SIZE={args.prefetch})")
            for case in cases:
                fig = run(path, "stream", CASES[case], os.path.join(tmp, "out.parquet"),
                          prefetch=args.prefetch)
                print(f"  {case:10s} {args.rows:11,d} {fig['seconds']:8.1f} "
                      f"{args.rows / fig['seconds']:11,.0f} {fig['rss_mib']:7,.0f} MiB")
        if args.baseline_rows:
            n = min(args.baseline_rows, args.rows)
            print(f"\n  baseline: the eager face on the first {n:,} rows, beside the "
                  "streaming plan on the same rows")
            for case in cases:
                s = run(path, "stream", CASES[case], os.path.join(tmp, "s.parquet"), n)
                e = run(path, "eager", CASES[case], os.path.join(tmp, "e.parquet"), n)
                print(f"  {case:10s} streaming {s['seconds']:6.1f} s {s['rss_mib']:7,.0f} "
                      f"MiB | eager {e['seconds']:6.1f} s {e['rss_mib']:7,.0f} MiB | peak "
                      f"ratio {e['rss_mib'] / s['rss_mib']:.1f}x, time ratio "
                      f"{e['seconds'] / s['seconds']:.2f}x")
        if args.check_rows:
            n = min(args.check_rows, args.rows)
            for case in cases:
                s_out, e_out = (os.path.join(tmp, f"{m}.parquet") for m in ("s", "e"))
                run(path, "stream", CASES[case], s_out, n)
                run(path, "eager", CASES[case], e_out, n)
                diff = same(pq.read_table(s_out), pq.read_table(e_out))
                ok &= diff is None
                print(f"  check {case}: streaming {'==' if diff is None else '!='} the "
                      f"eager face (evaluate per group) on {n:,} rows"
                      + ("" if diff is None else f": {diff}"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
