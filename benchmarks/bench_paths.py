"""``python benchmarks/bench_paths.py [mushroom|lists|cli|all] [--n N]``: the entry paths.

Each part times mycelium beside a baseline in the same run and prints the ratio (this is
a script, not a test: it never asserts on times; it does exit non-zero when mycelium and
the baseline disagree):

- ``mushroom``: ``mycelium mushroom REF PRED`` (a fresh process) against a straightforward
  implementation of the official scorer's procedure written here (pandas ``read_json``,
  per-example index sets for IoU, per-example ``scipy.stats.spearmanr`` for Cor, in a
  fresh process too); the printed output must be byte-identical. Default 100,000 examples.
  With ``--scorer PATH`` (default: ``$MYCELIUM_MUSHROOM_SCORER``), a copy of the official
  ``participant_kit/scorer.py`` itself is the baseline, run as ``python scorer.py REF PRED
  OUT``, and both commands write OUT. With ``--before DIR`` (an earlier revision's
  ``mycelium`` package, from ``git archive``) that revision's command runs in the same
  alternating rounds, and its median is printed beside today's.
- ``lists``: ``mycelium.evaluate(refs, preds, metrics=["iou", "character"])`` from Python
  lists of (start, end) tuples and of dicts against a per-example Python index-set loop,
  and the conversion alone (`mycelium.core.inputs.from_python`). Default 200,000.
- ``cli``: ``mycelium evaluate REFS`` on JSON lines against the floor measured in the
  same run (a fresh Python that imports mycelium, reads the file with ``pyarrow.json`` and
  scores that table in-process), with the peak memory (RSS) of the command; ``--big``
  adds a second file of ``--big`` rows (2,000,000 in the README) for the memory bound.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths_data as data  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

OFFICIAL = r'''
import sys
import numpy as np
import pandas as pd
from scipy.stats import spearmanr

def load(path, is_ref):
    df = pd.read_json(path, lines=True)
    if not is_ref:
        if "hard_labels" not in df.columns:
            def hard(soft):
                out, prev = [], None
                for s in sorted((s for s in soft if s["prob"] > 0.5),
                                key=lambda s: (s["start"], s["end"])):
                    if out and s["start"] == prev:
                        out[-1][1] = s["end"]
                    else:
                        out.append([s["start"], s["end"]])
                    prev = s["end"]
                return out
            df["hard_labels"] = df["soft_labels"].apply(hard)
        if "soft_labels" not in df.columns:
            df["soft_labels"] = df["hard_labels"].apply(
                lambda h: [{"start": s, "end": e, "prob": 1.0} for s, e in h])
    return df.sort_values("id").to_dict(orient="records")

def vector(soft, n):
    v = [0.0] * n
    for span in soft:
        for i in range(span["start"], span["end"]):
            v[i] = span["prob"]
    return v

refs, preds = load(sys.argv[1], True), load(sys.argv[2], False)
assert len(refs) == len(preds)
ious, cors = [], []
for r, p in zip(refs, preds):
    assert r["id"] == p["id"]
    a = {i for s, e in r["hard_labels"] for i in range(s, e)}
    b = {i for s, e in p["hard_labels"] for i in range(s, e)}
    ious.append(1.0 if not a and not b else len(a & b) / len(a | b))
    n = len(r["model_output_text"])
    x, y = vector(r["soft_labels"], n), vector(p["soft_labels"], n)
    cx, cy = len({round(v, 8) for v in x}) == 1, len({round(v, 8) for v in y}) == 1
    if cx or cy:
        cors.append(float(cx == cy))
    else:
        cors.append(spearmanr(x, y).correlation)
sys.stdout.write(f"IoU: {np.mean(ious):.8f}\nCor: {np.mean(cors):.8f}\n")
'''


#: The floor of any drop-in that reads with Arrow: a fresh interpreter that imports
#: numpy and pyarrow.json and reads both files under the fields the scorer needs.
FLOOR = r'''
import sys
import numpy
import pyarrow as pa, pyarrow.json as pj
soft = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()), ("prob", pa.float64())]))
fields = {"id": pa.string(), "model_output_text": pa.string(),
          "hard_labels": pa.list_(pa.list_(pa.int64())), "soft_labels": soft}
for path, names in ((sys.argv[1], list(fields)), (sys.argv[2], ["id", "hard_labels", "soft_labels"])):
    pj.read_json(path, parse_options=pj.ParseOptions(
        explicit_schema=pa.schema([(f, fields[f]) for f in names]),
        unexpected_field_behavior="ignore"))
'''


def _run(argv, **kw) -> tuple[float, str, int, float]:
    """Wall time, stdout, peak RSS (MiB) and CPU seconds (user + system, all threads)
    of a fresh process. On a loaded machine the CPU times are the steadier ratio."""
    wrapper = ("import resource, subprocess, sys\n"
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "sys.stderr.write(p.stderr)\n"
               "sys.stdout.write(p.stdout)\n"
               "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "r = u.ru_maxrss\n"
               "sys.stderr.write(f'@@CPU {u.ru_utime + u.ru_stime}\\n')\n"
               "sys.stderr.write(f'@@RSS {r}\\n')\n"
               "sys.exit(p.returncode)\n")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True,
                          text=True, **kw)
    elapsed = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{argv[:3]} failed:\n{done.stderr}")
    rss = int(done.stderr.rsplit("@@RSS ", 1)[1]) // 1024
    cpu = float(done.stderr.rsplit("@@CPU ", 1)[1].split()[0])
    return elapsed, done.stdout, rss, cpu


def bench_mushroom(n: int, tmp: Path, repeat: int, scorer: str = "", before: str = "") -> bool:
    refs, preds = data.mushroom_records(n)
    ref = data.write_jsonl(tmp / "mushroom.xx-tst.v1.jsonl", refs)
    pred = data.write_jsonl(tmp / "pred.xx.jsonl", preds)
    del refs, preds
    out = tmp / "scores.txt"
    if scorer:
        baseline = [sys.executable, scorer, str(ref), str(pred), str(out)]
    else:
        official = tmp / "official.py"
        official.write_text(OFFICIAL, encoding="utf-8")
        baseline = [sys.executable, str(official), str(ref), str(pred)]
    command = [sys.executable, "-m", "mycelium", "mushroom", str(ref), str(pred)]
    if scorer:
        command.append(str(out))

    def run(argv, **kw):
        result = _run(argv, **kw)
        if scorer:
            result = (result[0], out.read_text(encoding="utf-8"), *result[2:])
            out.unlink()
        return result

    floor = tmp / "floor.py"
    floor.write_text(FLOOR, encoding="utf-8")
    # An earlier revision's package (``--before DIR``), first on the path of the same
    # command, from a directory that holds no other ``mycelium``.
    earlier = dict(os.environ, PYTHONPATH=before) if before else None
    # Alternating, so that the machine's load hits all alike; the median of each.
    offs, mys, floors, befores = [], [], [], []
    for _ in range(repeat):
        offs.append(run(baseline))
        mys.append(run(command))
        floors.append(_run([sys.executable, str(floor), str(ref), str(pred)]))
        if before:
            befores.append(run(command, env=earlier, cwd=tmp))
    t_off, out_off, rss_off, c_off = _median(offs)
    t_my, out_my, rss_my, c_my = _median(mys)
    t_fl, _, rss_fl, c_fl = _median(floors)
    print("baseline: " + (f"the official scorer, {scorer}" if scorer
                          else "the official procedure restated in this script"))
    print(f"mushroom, {n:,} examples ({ref.stat().st_size / 2**20:.0f} + "
          f"{pred.stat().st_size / 2**20:.0f} MiB)               wall      cpu     peak")
    print(f"  official (median of {repeat})         {t_off:8.2f} s {c_off:7.2f} s {rss_off:6d} MiB")
    print(f"  mycelium mushroom (median)      {t_my:8.2f} s {c_my:7.2f} s {rss_my:6d} MiB   "
          f"{t_off / t_my:6.1f}x faster (cpu {c_off / c_my:.1f}x)")
    print(f"  floor: start + pyarrow.json read {t_fl:8.2f} s {c_fl:7.2f} s {rss_fl:6d} MiB   "
          f"{t_off / t_fl:6.1f}x the official (mycelium at {t_my / t_fl:.2f}x the floor)")
    if before:
        t_b, _, rss_b, c_b = _median(befores)
        print(f"  before ({before}) {t_b:8.2f} s {c_b:7.2f} s {rss_b:6d} MiB   "
              f"{t_off / t_b:6.1f}x faster (cpu {c_off / c_b:.1f}x); after/before "
              f"{t_my / t_b:.2f} wall, {c_my / c_b:.2f} cpu (medians of {repeat})")
    same = all(r[1] == out_off for r in offs + mys + befores)
    print(f"  output identical: {same}  ({out_my.strip()!r})")
    return same


def _compile_packages(before: str) -> None:
    """Byte-compile the mycelium packages the fresh processes import (today's, and
    ``--before``'s), as ``pip install`` does: a process started with
    ``PYTHONDONTWRITEBYTECODE`` set (or from a read-only tree) would otherwise compile
    every module it imports, in every timed run (about 40 ms for the ``mushroom``
    command), while the baselines' libraries come compiled from their wheels."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("mycelium")
    folders = [Path(spec.origin).parent] if spec and spec.origin else []
    if before:
        folders.append(Path(before) / "mycelium")
    for folder in folders:
        compileall.compile_dir(str(folder), quiet=1)
        print(f"bytecode: {folder} compiled before the runs")


def _median(runs: list) -> tuple:
    """The run of median wall time (its output, memory and CPU with it)."""
    return sorted(runs, key=lambda r: r[0])[len(runs) // 2]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("part", nargs="?", default="all", choices=["all", "mushroom", "lists", "cli"])
    p.add_argument("--n", type=int, default=None, help="examples (default per part)")
    p.add_argument("--big", type=int, default=0, help="rows of the big CLI file (0: none)")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--before", default="",
                   help="mushroom: a directory holding an earlier revision's mycelium package "
                        "(git archive REV mycelium | tar -x -C DIR), timed in the same "
                        "alternating runs")
    p.add_argument("--scorer", default=os.environ.get("MYCELIUM_MUSHROOM_SCORER", ""),
                   help="a copy of the official participant_kit/scorer.py to time as the "
                        "baseline (default: $MYCELIUM_MUSHROOM_SCORER; unset: the procedure "
                        "restated in this script)")
    args = p.parse_args(argv)
    _compile_packages(args.before)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.part in ("all", "mushroom"):
            ok &= bench_mushroom(args.n or 100_000, tmp, args.repeat, args.scorer, args.before)
        if args.part in ("all", "lists"):
            import bench_paths_lists
            ok &= bench_paths_lists.bench_lists(args.n or 200_000, args.repeat)
        if args.part in ("all", "cli"):
            import bench_paths_lists
            ok &= bench_paths_lists.bench_cli(args.n or 200_000, args.big, tmp, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
