"""``python benchmarks/bench_import.py [--baseline REF] [--runs N]``: the time of
``import mycelium`` in a fresh interpreter, this checkout beside a baseline commit, in the
same run (alternating, so machine load hits both alike), and where the time goes.

The baseline is checked out into a temporary git worktree and imported from there with
``PYTHONPATH`` (so both use the same installed numpy, pyarrow and pandas). Reports the
median wall time of each, their ratio, and the cumulative ``-X importtime`` of the
heaviest imports of this checkout.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = "import mycelium"


def once(path: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", CODE], check=True, cwd=path,
                   env={"PYTHONPATH": str(path), "PATH": ""})
    return time.perf_counter() - t0


def breakdown(path: Path) -> dict[str, float]:
    """Milliseconds of ``import mycelium`` spent in each dependency (the cumulative time
    of its first import, wherever it happened) and in mycelium's own modules."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", CODE], cwd=path,
                          env={"PYTHONPATH": str(path), "PATH": ""}, capture_output=True,
                          text=True, check=True)
    first: dict[str, tuple[int, int]] = {}  # name -> (depth, cumulative microseconds)
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            first.setdefault(m.group(3), (len(m.group(2)), int(m.group(1))))
    deps = [d for d in ("numpy", "pyarrow", "pyarrow.compute", "pandas") if d in first]
    shallow = min((first[d][0] for d in deps), default=0)
    out = {d: first[d][1] / 1000 for d in deps}
    total = first.get("mycelium", (0, 0))[1] / 1000
    # Dependencies at the shallowest depth were each first loaded by mycelium itself (a
    # deeper one loaded inside another and is already counted in it).
    out["mycelium's own modules"] = total - sum(out[d] for d in deps if first[d][0] == shallow)
    out["total"] = total
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="e431218",
                   help="the commit to compare with (default: the last flat layout)")
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q",
                        str(base), args.baseline], check=True)
        try:
            once(ROOT), once(base)  # warm the file cache
            now, then = [], []
            for _ in range(args.runs):
                now.append(once(ROOT))
                then.append(once(base))
            parts = {"this checkout": breakdown(ROOT), args.baseline: breakdown(base)}
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base)], check=True)
    a, b = statistics.median(now), statistics.median(then)
    print(f"import mycelium, median of {args.runs} fresh interpreters (wall time, "
          "interpreter start included)")
    print(f"  this checkout        {a * 1000:7.1f} ms")
    print(f"  baseline {args.baseline:<12} {b * 1000:7.1f} ms")
    print(f"  ratio                {a / b:7.3f}")
    print("where the time goes (-X importtime, cumulative ms, one run each):")
    names = list(parts["this checkout"])
    print(f"  {'':24}" + "".join(f"{k:>16}" for k in parts))
    for name in names:
        print(f"  {name:24}" + "".join(f"{p.get(name, 0.0):16.1f}" for p in parts.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
