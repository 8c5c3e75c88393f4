"""Kernels, intervals and groups: today's code against an earlier revision, in one run.

Run ``python benchmarks/bench_kernels.py --help``; see benchmarks/README.md ("Kernels,
intervals and groups"). Each case runs in a fresh subprocess, once with this checkout's
``mycelium`` and once with the ``--before`` revision's (extracted with ``git archive``
into a temporary directory), so both are timed on the same machine in the same minute;
the script prints both and their ratio, and each case's peak resident memory. It checks
that both revisions return the same numbers and exits non-zero if they do not. A script,
not a test: it never asserts on a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each case is a snippet run in a subprocess: it builds its data, times ``run()`` (best
# of --repeat) and prints a JSON line {seconds, rss_mib, digest}.
PRELUDE = r"""
import json, resource, sys, time
sys.path[:0] = [PACKAGE_ROOT, BENCH_DIR]
import numpy as np
import mycelium
def timed(fn):
    t = time.perf_counter(); fn(); return time.perf_counter() - t
def finish(run, repeat, digest, **extra):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = CLOCK(); out = run(); best = min(best, CLOCK() - t)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": best, "rss_mib": rss, "digest": digest(out),
                      "package": mycelium.__file__, **extra}))
def report_digest(r):
    return json.dumps({k: v for k, v in r.items() if k != "meta"}, sort_keys=True, default=str)
"""

DENSE = r"""
n = ARG
rng = np.random.default_rng(0)
L = 4 * n
rs, rl = rng.integers(0, n, n), rng.integers(L // 2, L, n)
ps, pl = rng.integers(0, n, n), rng.integers(L // 2, L, n)
refs = [[[int(s), int(s + l)] for s, l in zip(rs, rl)]]
preds = [[[int(s), int(s + l)] for s, l in zip(ps, pl)]]
run = lambda: mycelium.statistics(refs, preds, metrics=["deteval_1d", "cleval_1d"])
finish(run, 1, lambda st: json.dumps({m: {k: np.asarray(v).tolist() for k, v in s.items()}
                                      for m, s in st.items()}, sort_keys=True))
"""

SIX = r"""
from bench_evaluate import make_batch, METRICS
import pyarrow as pa
refs, preds, _ = make_batch(ARG, 0)
if SCALE != 1:  # the same spans, every offset times SCALE: lengths up to 60 * SCALE
    def scale(arr):
        v = arr.values
        s = pa.array(v.field("start").to_numpy() * SCALE)
        e = pa.array(v.field("end").to_numpy() * SCALE)
        return pa.ListArray.from_arrays(arr.offsets, pa.StructArray.from_arrays(
            [s, e], names=["start", "end"]), type=arr.type)
    refs, preds = scale(refs), scale(preds)
mycelium.evaluate(refs[:1000], preds[:1000], metrics=METRICS)
run = lambda: mycelium.evaluate(refs, preds, metrics=METRICS)
finish(run, REPEAT, report_digest)
"""

INTERVALS = r"""
from bench_evaluate import make_batch
refs, preds, _ = make_batch(ARG, 0)
run = lambda: mycelium.evaluate(refs, preds, ci=0.95, n_resamples=1000, seed=0, progress=False)
finish(run, REPEAT, report_digest)
"""

GROUPS = r"""
import pandas as pd
from bench_evaluate import make_batch
n = ARG
refs, preds, _ = make_batch(n, 0)
df = pd.DataFrame({"ref": refs.to_pylist(), "pred": preds.to_pylist(),
                   "group": np.arange(n) // 5})
ev = lambda **kw: df.mycelium.evaluate("ref", "pred", metrics=["iou", "character"],
                                      progress=False, **kw)
ev()
flat = min(timed(ev) for _ in range(REPEAT))
# The values, not the layout: later revisions add columns (the signature).
cols = ["group", "metric", "measure", "value", "examples", "average"]
finish(lambda: ev(by="group"), REPEAT, lambda out: out[cols].to_json(), flat=flat)
"""


def extract(rev: str, into: Path) -> Path:
    """The ``mycelium`` package of ``rev`` (``git archive``) under ``into``."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "mycelium"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_case(code: str, package_root: Path, *, arg, repeat: int, scale: int = 1,
             load: int = 0, timeout: float = 1800, clock: str = "wall") -> dict:
    src = (PRELUDE.replace("CLOCK", "time.process_time" if clock == "cpu"
                           else "time.perf_counter")
           .replace("BENCH_DIR", repr(str(ROOT / "benchmarks")))
           .replace("PACKAGE_ROOT", repr(str(package_root)))
           + code.replace("ARG", repr(arg)).replace("REPEAT", str(repeat))
           .replace("SCALE", str(scale)))
    env = dict(os.environ, PYTHONPATH=str(package_root))
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(load)]
    try:
        # From a neutral directory: ``-c`` puts the current directory first on sys.path.
        done = subprocess.run([sys.executable, "-c", src], env=env, capture_output=True,
                              text=True, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"seconds": float("inf"), "rss_mib": float("nan"), "digest": "timeout"}
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["?"]
        return {"seconds": float("nan"), "rss_mib": float("nan"), "digest": "error: " + tail[0]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="d3cf114",
                        help="git revision timed as the baseline (default: before this work)")
    parser.add_argument("--examples", type=int, default=1_000_000,
                        help="examples of the six-metric and wide-span cases")
    parser.add_argument("--interval-examples", type=int, default=100_000)
    parser.add_argument("--group-examples", type=int, default=1_000_000,
                        help="rows of the groups case (5 rows per group)")
    parser.add_argument("--dense", default="1000,2000,10000",
                        help="spans per side of the dense cases; the baseline runs only "
                             "those up to --dense-before-max")
    parser.add_argument("--dense-before-max", type=int, default=2000)
    parser.add_argument("--load", type=int, default=2,
                        help="busy processes started beside the 'loaded' interval case")
    parser.add_argument("--repeat", type=int, default=2, help="timed calls per process")
    parser.add_argument("--rounds", type=int, default=2,
                        help="processes per revision, alternating; the best is kept")
    parser.add_argument("--only", default="dense,six,wide,intervals,loaded,groups")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the calls by wall clock, or by the process's CPU time "
                             "(steadier on a shared machine; single-threaded cases only)")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    rows, bad = [], []

    with tempfile.TemporaryDirectory() as tmp:
        before = extract(args.before, Path(tmp))
        after = ROOT

        def pair(name, code, arg, run_before=True, rounds=None, **kw):
            # Before and after alternate, best of each kept: a busy machine slows both.
            b = a = None
            for _ in range(args.rounds if rounds is None else rounds):
                if run_before:
                    b = _best(b, run_case(code, before, arg=arg, repeat=args.repeat,
                                          clock=args.clock, **kw))
                a = _best(a, run_case(code, after, arg=arg, repeat=args.repeat,
                                      clock=args.clock, **kw))
            if b is not None and b["digest"] != a["digest"] and "timeout" not in b["digest"]:
                bad.append(name)
            rows.append((name, b, a))
            _print_row(rows[-1])
            return b, a

        print(f"{'case':<46} {'before':>10} {'after':>10} {'ratio':>7} {'RSS before':>11} "
              f"{'RSS after':>10}")
        if "dense" in only:
            for n in (int(x) for x in args.dense.split(",")):
                pair(f"dense: {n:,} x {n:,} overlapping spans", DENSE, n,
                     run_before=n <= args.dense_before_max, rounds=1)
        short = None
        if "six" in only or "wide" in only:
            short = pair(f"six metrics, {args.examples:,} examples", SIX, args.examples)
        if "wide" in only:
            scale = 10**12 // 60
            wide = pair(f"  the same, spans up to 10^12 characters", SIX, args.examples,
                        scale=scale)
            for label, k in (("before", 0), ("after", 1)):
                if short[k] and wide[k]:
                    print(f"    wide / short ({label}): {wide[k]['seconds'] / short[k]['seconds']:.2f}x")
        if "intervals" in only:
            pair(f"macro ci, {args.interval_examples:,} x 1,000 resamples", INTERVALS,
                 args.interval_examples)
        if "loaded" in only:
            pair(f"  the same beside {args.load} busy processes", INTERVALS,
                 args.interval_examples, load=args.load)
        if "groups" in only:
            b, a = pair(f"pandas by=, {args.group_examples // 5:,} groups x 5", GROUPS,
                        args.group_examples)
            for label, r in (("before", b), ("after", a)):
                if r and "flat" in r:
                    print(f"    grouped / ungrouped ({label}): {r['seconds'] / r['flat']:.2f}x")
    if bad:
        print("DIFFERENT RESULTS:", ", ".join(bad))
        return 1
    return 0


def _best(old, new):
    return new if old is None or new["seconds"] < old["seconds"] else old


def _print_row(row):
    name, b, a = row
    fmt = lambda r, k: "-" if r is None else (f"{r[k]:.2f}" if k == "seconds" else f"{r[k]:.0f}")  # noqa: E731
    ratio = "-" if b is None or not a["seconds"] else f"{b['seconds'] / a['seconds']:.2f}"
    print(f"{name:<46} {fmt(b, 'seconds'):>10} {fmt(a, 'seconds'):>10} {ratio:>7} "
          f"{fmt(b, 'rss_mib'):>11} {fmt(a, 'rss_mib'):>10}", flush=True)
    for r in (b, a):
        if r is not None and r["digest"].startswith(("error", "timeout")):
            print("    " + r["digest"][:200])


if __name__ == "__main__":
    sys.exit(main())
