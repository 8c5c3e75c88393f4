"""``python benchmarks/bench_startup.py [--before DIR] [--runs N] [--callgrind]``: start-up.

Each row is timed in fresh interpreters beside its floor, in the same run, alternating so
that the machine's load hits both alike, and reported as the median over ``--runs``:

- ``import mycelium`` against ``import numpy, pyarrow`` (goal: at most 1.3x);
- ``mycelium --version`` and ``mycelium --help`` (the console script's own entry point,
  ``mycelium.cli.app:main``) against a bare interpreter, ``python -c pass`` (goal: at most
  4x).

``--before DIR`` times the same rows for another copy of the package (a directory holding
``mycelium/``, e.g. ``git archive <commit> mycelium | tar -x -C DIR``) in the same rounds.
``--callgrind`` adds the instruction count of each row under valgrind's callgrind (one
run each; noise-free, but ~50x slower), a check on the wall-time ratios of a shared
machine. Never asserts on times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import sys; from mycelium.cli.app import main; sys.exit(main())"
#: (row, code of the row, code of its floor, goal)
ROWS = [
    ("import mycelium", ["-c", "import mycelium"], ["-c", "import numpy, pyarrow"], 1.3),
    ("mycelium --version", ["-c", ENTRY, "--version"], ["-c", "pass"], 4.0),
    ("mycelium --help", ["-c", ENTRY, "--help"], ["-c", "pass"], 4.0),
]


def once(args: list[str], tree: Path, cwd: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, cwd=cwd, env=env,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def instructions(args: list[str], tree: Path, cwd: str) -> int:
    """Instructions executed (callgrind's ``Ir``) by one fresh interpreter."""
    out = Path(cwd) / "callgrind.out"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    sys.executable, *args], check=True, cwd=cwd, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for line in out.read_text().splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise SystemExit("callgrind wrote no summary")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, help="another copy of the package to time too")
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--callgrind", action="store_true",
                   help="also count instructions under callgrind (needs valgrind)")
    args = p.parse_args(argv)
    trees = {"this checkout": ROOT}
    if args.before:
        trees["before"] = args.before.resolve()
    with tempfile.TemporaryDirectory() as cwd:  # neutral: -c puts cwd on sys.path
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs + 1):  # the first round warms the file cache
            for row, code, floor, _goal in ROWS:
                for name, tree in trees.items():
                    times.setdefault((name, row), []).append(once(code, tree, cwd))
                    times.setdefault((name, row + " floor"), []).append(
                        once(floor, tree, cwd))
        print(f"start-up, median of {args.runs} fresh interpreters (wall ms, interpreter "
              "start included); floor measured in the same rounds")
        print(f"  {'':22}{'':16}{'ms':>9}{'floor ms':>10}{'ratio':>8}{'goal':>7}")
        for row, _code, floor, goal in ROWS:
            for name in trees:
                a = statistics.median(times[(name, row)][1:])
                b = statistics.median(times[(name, row + " floor")][1:])
                print(f"  {row:22}{name:16}{a * 1000:9.1f}{b * 1000:10.1f}{a / b:8.2f}"
                      f"{goal:6.1f}x   (floor: python {' '.join(floor)})")
        if args.callgrind:
            if not shutil.which("valgrind"):
                raise SystemExit("--callgrind needs valgrind on PATH")
            print("instructions (callgrind Ir, one run each)")
            for row, code, floor, goal in ROWS:
                base = instructions(floor, ROOT, cwd)
                for name, tree in trees.items():
                    n = instructions(code, tree, cwd)
                    print(f"  {row:22}{name:16}{n / 1e6:9.1f} M{base / 1e6:9.1f} M"
                          f"{n / base:8.2f}{goal:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
