"""deteval_1d on many mutually overlapping spans: this checkout against an earlier revision,
with cleval_1d on the same spans beside it.

Run ``python benchmarks/bench_deteval.py --help``; see benchmarks/README.md ("deteval_1d
on mutually overlapping spans"). Each case runs in a fresh subprocess, with this
checkout's ``mycelium`` and with the ``--before`` revision's (``git archive``, as
`bench_kernels.py` does), and reports wall and CPU seconds and peak resident memory.
It exits non-zero if the two revisions' statistics differ. A script, not a test: it never
asserts on a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_kernels import ROOT, extract  # noqa: E402

# One case: build the spans, time one statistics call, print a JSON line.
SNIPPET = r"""
import hashlib, json, resource, sys, time
sys.path.insert(0, __ROOT__)
import numpy as np
import mycelium
n, case, metric = __N__, __CASE__, __METRIC__
rng = np.random.default_rng(0)
if case == "chain":      # each reference claims a share the next one also wants
    refs = [[i, i + n] for i in range(n)]
    preds = [[i, i + n] for i in range(n)]
elif case == "random":   # bench_kernels.py's dense case
    L = 4 * n
    refs = [[int(s), int(s + l)] for s, l in zip(rng.integers(0, n, n), rng.integers(L // 2, L, n))]
    preds = [[int(s), int(s + l)] for s, l in zip(rng.integers(0, n, n), rng.integers(L // 2, L, n))]
else:                    # "inside": short predictions inside every reference, no claim
    refs = [[i, i + 10 * n] for i in range(n)]
    preds = [[5 * n + i, 5 * n + i + 1] for i in range(n)]
wall, cpu = time.perf_counter(), time.process_time()
st = mycelium.statistics([refs], [preds], metrics=metric.split(","))
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
values = {f"{m}.{k}": np.asarray(v).tolist() for m, s in st.items() for k, v in s.items()}
print(json.dumps({"wall": wall, "cpu": cpu,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "digest": hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16],
                  "values": values}))
"""


def run(package_root: Path, n: int, case: str, metric: str, timeout: float) -> dict:
    src = (SNIPPET.replace("__ROOT__", repr(str(package_root))).replace("__N__", str(n))
           .replace("__CASE__", repr(case)).replace("__METRIC__", repr(metric)))
    env = dict(os.environ, PYTHONPATH=str(package_root))
    try:
        done = subprocess.run([sys.executable, "-c", src], env=env, capture_output=True,
                              text=True, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"wall": float("inf"), "cpu": float("inf"), "rss_mib": float("nan"),
                "digest": f"timeout after {timeout:.0f} s"}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"wall": float("nan"), "cpu": float("nan"), "rss_mib": float("nan"),
                "digest": "error: " + tail}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="rooms",
                        help="git revision timed as the baseline (default: rooms, before "
                             "the passes read each pair a bounded number of times)")
    parser.add_argument("--sizes", default="1000,2000,4000,10000",
                        help="spans per side (default 1000,2000,4000,10000)")
    parser.add_argument("--cases", default="chain,random,inside")
    parser.add_argument("--before-max", type=int, default=4000,
                        help="largest size the baseline runs (default 4000)")
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds per case before it counts as not finished")
    parser.add_argument("--both", action="store_true",
                        help="also time deteval_1d and cleval_1d in one call (one process), "
                             "the row of the goal (at most 4 s and 500 MB)")
    args = parser.parse_args(argv)
    bad = []
    header = (f"{'case':<22} {'deteval before':>15} {'after':>13} {'ratio':>6} "
              f"{'RSS b/a MiB':>12} {'cleval_1d':>13} {'RSS':>5}")
    print("seconds as wall (cpu)\n" + header)
    with tempfile.TemporaryDirectory() as tmp:
        before = extract(args.before, Path(tmp))
        for case in args.cases.split(","):
            for n in (int(x) for x in args.sizes.split(",")):
                b = run(before, n, case, "deteval_1d", args.timeout) \
                    if n <= args.before_max else None
                a = run(ROOT, n, case, "deteval_1d", args.timeout)
                c = run(ROOT, n, case, "cleval_1d", args.timeout)
                if b is not None and "values" in b and b.get("values") != a.get("values"):
                    bad.append(f"{case} {n}")
                _print(f"{case}, {n:,} x {n:,}", b, a, c)
                if args.both:
                    both = [run(tree, n, case, "deteval_1d,cleval_1d", args.timeout)
                            for tree in ((before, ROOT) if b is not None else (ROOT,))]
                    if len(both) == 2 and both[0].get("values") != both[1].get("values"):
                        bad.append(f"{case} {n} (both)")
                    _print_both(both)
    if bad:
        print("DIFFERENT STATISTICS:", ", ".join(bad))
        return 1
    print("The two revisions' deteval_1d statistics are identical in every case run by both.")
    return 0


def _secs(r) -> str:
    if r is None:
        return "-"
    if r["digest"].startswith(("error", "timeout")):
        return r["digest"][:13]
    return f"{r['wall']:.2f} ({r['cpu']:.2f})"


def _print(name, b, a, c) -> None:
    ratio = "-" if b is None or not (a["wall"] and b["wall"] < float("inf")) \
        else f"{b['wall'] / a['wall']:.1f}"
    rss = f"{'-' if b is None else format(b['rss_mib'], '.0f')}/{a['rss_mib']:.0f}"
    print(f"{name:<22} {_secs(b):>15} {_secs(a):>13} {ratio:>6} {rss:>12} "
          f"{_secs(c):>13} {c['rss_mib']:>5.0f}", flush=True)


def _print_both(both) -> None:
    cells = [f"{_secs(r)}, {r['rss_mib']:.0f} MiB" for r in both]
    label = "before / after" if len(both) == 2 else "this checkout"
    print(f"  deteval_1d + cleval_1d in one call ({label}): " + " / ".join(cells), flush=True)


if __name__ == "__main__":
    sys.exit(main())
