"""One benchmark script on two revisions of the package, side by side in one run.

``python benchmarks/bench_checkouts.py REV [--after REV2] [--rounds K] -- SCRIPT [ARGS...]``

``git archive REV mycelium`` is unpacked into a temporary directory (and REV2's, when
given; else this checkout's package is the "after" side); SCRIPT (a file of this
checkout, so both revisions run the same benchmark) then runs ``--rounds`` times on
each revision, the two interleaved (before, after, after, before, ...: load that
drifts during the run falls on both), each in a fresh process whose ``PYTHONPATH``
points at that revision's package. Every run's output is printed; then, for each line
that starts with the same words in both and holds the same count of numbers, the best
(least) value of each number over the rounds and the ratio after/before. Lines with
digests print both digests, so equal numbers to the bit show as equal digests. A
script, not a test: it never asserts on a time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"^-?\d[\d,]*\.?\d*(e-?\d+)?x?$")
DIGEST = re.compile(r"^[0-9a-f]{12}$")


def unpack(rev: str, into: Path) -> Path:
    """The package of ``rev`` under ``into`` (``into/mycelium``)."""
    archive = into / "rev.tar"
    with open(archive, "wb") as out:
        subprocess.run(["git", "archive", rev, "mycelium"], cwd=ROOT, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def run(script: list[str], path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(path)}
    done = subprocess.run([sys.executable, *script], cwd=ROOT, env=env, text=True,
                          capture_output=True, check=False)
    if done.returncode:
        raise SystemExit(f"{script[0]} failed with PYTHONPATH={path}:\n{done.stderr}")
    return done.stdout


def rows(text: str) -> dict[str, tuple[list[float], list[str]]]:
    """``{label: (numbers, digests)}`` of every line that holds a number; the label is
    the words before the first number."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        first = next((i for i, w in enumerate(words) if NUMBER.match(w)), None)
        if not first:
            continue
        numbers = [float(w.rstrip("x").replace(",", "")) for w in words[first:]
                   if NUMBER.match(w)]
        out[" ".join(words[:first])] = (numbers, [w for w in words if DIGEST.match(w)])
    return out


def compare(before: list[str], after: list[str]) -> None:
    runs_b, runs_a = [rows(t) for t in before], [rows(t) for t in after]
    print(f"\n{'line':<28} {'before (best)':>30} {'after (best)':>30}  after/before")
    for label, (numbers, digests) in runs_b[0].items():
        if not all(label in r and len(r[label][0]) == len(numbers)
                   for r in runs_b + runs_a):
            continue
        best_b = [min(r[label][0][i] for r in runs_b) for i in range(len(numbers))]
        best_a = [min(r[label][0][i] for r in runs_a) for i in range(len(numbers))]
        ratios = [f"{a / b:.2f}" if b else "-" for a, b in zip(best_a, best_b)]
        same = ""
        if digests:
            same = "  digests " + ("equal" if digests == runs_a[0][label][1] else
                                   f"{digests} vs {runs_a[0][label][1]}")
        print(f"{label[:28]:<28} {' '.join(f'{x:g}' for x in best_b):>30} "
              f"{' '.join(f'{x:g}' for x in best_a):>30}  {' '.join(ratios)}{same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", help="the revision to compare this checkout with")
    ap.add_argument("--after", help="a revision for the after side (default: this checkout)")
    ap.add_argument("--rounds", type=int, default=2)
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        ap.error("expected -- SCRIPT [ARGS...] after the options")
    at = argv.index("--")
    args, script = ap.parse_args(argv[:at]), argv[at + 1:]
    before, after = [], []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp2:
        old = unpack(args.rev, Path(tmp))
        new = ROOT if args.after is None else unpack(args.after, Path(tmp2))
        for k in range(args.rounds):
            order = [("before", old), ("after", new)]
            for name, path in order if k % 2 == 0 else order[::-1]:
                text = run(script, path)
                (before if name == "before" else after).append(text)
                said = args.rev if name == "before" else args.after or "this checkout"
                print(f"--- {name} ({said}),"
                      f" round {k + 1}\n{text}", flush=True)
    compare(before, after)


if __name__ == "__main__":
    main()
