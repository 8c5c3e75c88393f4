"""``python benchmarks/bench_float_parse.py [--baseline REF] [--n N] [--runs R]``: the cost of
reading Mu-SHROOM probabilities as the official scorer's pandas parser does.

``mycelium mushroom REF PRED`` (a fresh process) on N examples (default 100,000), this
checkout (``--float-parse pandas-fast``, the default, and ``--float-parse exact``) beside
a baseline commit from before the option (default ``5d6893e``, which reads exactly), in
the same run: the runs alternate, so machine load hits all alike. The baseline is checked
out into a temporary git worktree and run from there with ``PYTHONPATH`` (the same
installed numpy, pyarrow and pandas). Two data sets, both from ``_paths_data.py``
(seeded): its predictions with 4-decimal probabilities, and the same files with every
prediction probability written with 17 significant digits (as NCL-UoR's submissions
are), where the fast parser has the most to do. Reports the best and median wall and CPU
times (user + system) of each and the ratios to the baseline, and whether the outputs
agree (the exact reading must print the baseline's output; on the 17-digit files the
pandas reading may differ from it, which is the point of the option).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths_data as data  # noqa: E402
from bench_paths import _run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def seventeen_digits(preds: list[dict], seed: int = 1) -> list[dict]:
    """The predictions with probabilities of 16-17 significant digits."""
    rng = random.Random(seed)
    out = []
    for p in preds:
        soft = [dict(s, prob=rng.random()) for s in p["soft_labels"]]
        out.append(dict(p, soft_labels=soft, hard_labels=data._hard(soft)))
    return out


def _command(path: Path, ref: Path, pred: Path, extra: list[str]) -> list[str]:
    return ["env", f"PYTHONPATH={path}", sys.executable, "-m", "mycelium", "mushroom",
            *extra, str(ref), str(pred)]


def bench(ref: Path, pred: Path, base: Path, runs: int) -> dict[str, list]:
    setups = {"baseline (exact)": (base, []),
              "this, pandas-fast": (ROOT, []),
              "this, --float-parse exact": (ROOT, ["--float-parse", "exact"])}
    times: dict[str, list] = {k: [] for k in setups}
    for name, (path, extra) in setups.items():  # warm the file cache
        _run(_command(path, ref, pred, extra), cwd=tempfile.gettempdir())
    for _ in range(runs):
        for name, (path, extra) in setups.items():
            times[name].append(_run(_command(path, ref, pred, extra),
                                    cwd=tempfile.gettempdir()))
    return times


def report(title: str, times: dict[str, list]) -> bool:
    print(title)
    base = times["baseline (exact)"]
    b_wall, b_cpu = min(t[0] for t in base), min(t[3] for t in base)
    for name, runs in times.items():
        wall = [t[0] for t in runs]
        cpu = [t[3] for t in runs]
        print(f"  {name:28} wall best {min(wall):6.2f} s median {statistics.median(wall):6.2f}"
              f" s   cpu best {min(cpu):6.2f} s   ratio (best wall {min(wall) / b_wall:5.3f}, "
              f"best cpu {min(cpu) / b_cpu:5.3f})   {runs[0][1].split()[3]}")
    same_exact = times["this, --float-parse exact"][0][1] == base[0][1]
    print(f"  --float-parse exact prints the baseline's output: {same_exact}")
    return same_exact


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="5d6893e")
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q",
                        str(base), args.baseline], check=True)
        try:
            refs, preds = data.mushroom_records(args.n)
            ref = data.write_jsonl(tmp / "mushroom.xx-tst.v1.jsonl", refs)
            pred = data.write_jsonl(tmp / "pred.xx.jsonl", preds)
            long = tmp / "pred17.xx.jsonl"
            long.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                    for r in seventeen_digits(preds)), encoding="utf-8")
            del refs, preds
            mib = lambda f: f.stat().st_size / 2**20  # noqa: E731
            ok &= report(f"mycelium mushroom, {args.n:,} examples, 4-decimal predictions "
                         f"({mib(ref):.0f} + {mib(pred):.0f} MiB), {args.runs} runs each",
                         bench(ref, pred, base, args.runs))
            ok &= report(f"the same, 17-digit predictions ({mib(long):.0f} MiB)",
                         bench(ref, long, base, args.runs))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base)], check=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
