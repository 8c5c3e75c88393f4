"""Time ``mycelium.align_tokens`` on every real Mu-SHROOM record with tokens (validation
v2 and the labeled test files: 2,401 records, 176,126 tokens), this checkout beside an
earlier revision, in one run.

Run ``python benchmarks/bench_align.py /path/to/mushroom`` (the folder holding splits/);
``--before REV`` names the revision timed as the baseline (extracted with ``git
archive`` into a temporary directory). Each revision runs in its own subprocesses,
alternating, best kept; reading and parsing the files is not timed; ``--clock`` picks
CPU time (default) or wall clock. The script prints
both times, their ratio, and how many records' offsets differ between the two. A script,
not a test: it never asserts on a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_kernels import extract  # git archive of a revision's package

ROOT = Path(__file__).resolve().parents[1]

# Run in a subprocess with the revision's package first on sys.path; prints one JSON line.
CASE = r"""
import ast, hashlib, json, sys, time
sys.path.insert(0, PACKAGE_ROOT)
import mycelium
from pathlib import Path
folder = Path(FOLDER)
paths = sorted((folder / "splits/val/v2").glob("*.jsonl")) + sorted(
    (folder / "splits/test_labeled/v1").glob("*.jsonl"))
data = []
for path in paths:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            toks = rec["model_output_tokens"]
            data.append((rec["model_output_text"],
                         ast.literal_eval(toks) if isinstance(toks, str) else toks))
out = {"records": len(data), "tokens": sum(len(t) for _, t in data)}
for trim in (True, False):
    best, got = float("inf"), None
    for _ in range(REPEAT):
        t0 = CLOCK()
        got = [mycelium.align_tokens(text, toks, trim=trim) for text, toks in data]
        best = min(best, CLOCK() - t0)
    out[f"trim={trim}"] = best
    out[f"offsets trim={trim}"] = [hashlib.sha256(repr(o).encode()).hexdigest()[:16]
                                   for o in got]
print(json.dumps(out))
"""


def run(package_root: Path, folder: Path, repeat: int, clock: str) -> dict:
    src = (CASE.replace("CLOCK", "time.process_time" if clock == "cpu"
                        else "time.perf_counter")
           .replace("PACKAGE_ROOT", repr(str(package_root)))
           .replace("FOLDER", repr(str(folder))).replace("REPEAT", str(repeat)))
    env = dict(os.environ, PYTHONPATH=str(package_root))
    # From a neutral directory: ``-c`` puts the current directory first on sys.path.
    done = subprocess.run([sys.executable, "-c", src], env=env, capture_output=True,
                          text=True, cwd=tempfile.gettempdir(), check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--before", default="5d6893e",
                        help="git revision timed as the baseline (default: before the "
                             "resync, unknown-token and normalize= work)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per process")
    parser.add_argument("--rounds", type=int, default=2,
                        help="processes per revision, alternating; the best is kept")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="the process's CPU time (default: steadier on a shared "
                             "machine; the work is single-threaded) or wall clock")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        before_root = extract(args.before, Path(tmp))
        results: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            for label, root in (("before", before_root), ("after", ROOT)):
                results[label].append(run(root, args.folder.resolve(), args.repeat,
                                          args.clock))
    b, a = results["before"][0], results["after"][0]
    print(f"{b['records']} records, {b['tokens']} tokens; before = {args.before}, "
          f"after = this checkout; {args.clock} time, best of {args.rounds} x "
          f"{args.repeat}")
    print(f"{'policy':<12} {'before':>9} {'after':>9} {'ratio':>7} {'records differing':>18}")
    for trim in (True, False):
        key = f"trim={trim}"
        tb = min(r[key] for r in results["before"])
        ta = min(r[key] for r in results["after"])
        differ = sum(x != y for x, y in zip(b[f"offsets {key}"], a[f"offsets {key}"]))
        print(f"{key:<12} {tb:>8.3f}s {ta:>8.3f}s {ta / tb:>6.2f}x {differ:>18}")


if __name__ == "__main__":
    main()
