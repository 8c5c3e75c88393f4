"""The per-type rows on a Polars LazyFrame: the streamed plan (sums per group and type on
the streaming engine) beside the gathering baseline (the frame read whole and scored by
the eager face, which is what the LazyFrame did before), on the same Parquet file; for
scale, the span path's streamed plan of the same metrics without types.

Each case runs in its own process so that its peak resident memory is its own. The two
results must be equal (values bit for bit), or the script exits with an error.

    python benchmarks/bench_typed_lazy.py                  # 400,000 examples
    python benchmarks/bench_typed_lazy.py --examples 50000  # quick
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TYPES = ["Evident", "Subtle", "Baseless", "Contradictory"]
OPTIONS = {"type_field": "label_type", "by": "model", "average": "micro",
           "metrics": ["typed_span", "character", "exact_span", "span_coverage"],
           "params": {"typed_span": {"scheme": "partial"}}}


def make_file(path: Path, n: int, seed: int) -> None:
    """Seeded typed spans: about 2 references per example of 1-60 characters, the
    predictions copies, retyped copies, shifted copies or drops, 8 models."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _typed_data import typed_spans

    rng = np.random.default_rng(seed)
    refs, preds = typed_spans(rng, n, TYPES)
    table = pa.table({"model": [f"m{int(i)}" for i in rng.integers(0, 8, n)],
                      "ref": refs, "pred": preds})
    pq.write_table(table, path, row_group_size=10_000)


def run_case(case: str, path: str, out: str) -> None:
    """One case in this process: the result (as JSON records), its time and peak RSS."""
    import polars as pl

    import mycelium  # noqa: F401  (registers the namespaces)

    start = time.perf_counter()
    if case == "streamed":
        frame = pl.scan_parquet(path).mycelium.evaluate("ref", "pred", **OPTIONS).collect(
            engine="streaming")
    elif case == "untyped":  # the span path's streaming plan on the same file, for scale
        untyped = {k: v for k, v in OPTIONS.items() if k not in ("type_field", "params")}
        untyped["metrics"] = [m for m in OPTIONS["metrics"] if m != "typed_span"]
        frame = pl.scan_parquet(path).mycelium.evaluate("ref", "pred", **untyped).collect(
            engine="streaming")
    else:
        frame = pl.read_parquet(path).mycelium.evaluate("ref", "pred", **OPTIONS)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    Path(out).write_text(json.dumps({"seconds": seconds, "peak_mib": peak,
                                     "rows": frame.drop("signature").rows()}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=400_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        run_case(args.case, args.path, args.out)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "typed.parquet"
        make_file(path, args.examples, args.seed)
        size = path.stat().st_size / 2**20
        results = {}
        for case in ("gathered", "streamed", "untyped"):
            out = Path(tmp) / f"{case}.json"
            subprocess.run([sys.executable, __file__, "--case", case, "--path", str(path),
                            "--out", str(out)], check=True)
            results[case] = json.loads(out.read_text())
    untyped = results.pop("untyped")
    if results["gathered"]["rows"] != results["streamed"]["rows"]:
        print("the streamed per-type rows differ from the gathered ones", file=sys.stderr)
        return 1
    print(f"{args.examples:,} examples, Parquet {size:.1f} MiB, "
          f"{len(results['streamed']['rows'])} result rows (equal)")
    base = results["gathered"]
    for case, r in results.items():
        print(f"{case:>9}: {r['seconds']:7.2f} s  peak RSS {r['peak_mib']:7.0f} MiB  "
              f"time x{r['seconds'] / base['seconds']:.2f}  "
              f"memory x{r['peak_mib'] / base['peak_mib']:.2f}")
    print(f"  (the same metrics untyped, streamed: {untyped['seconds']:.2f} s, peak RSS "
          f"{untyped['peak_mib']:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
