"""The ``lists`` and ``cli`` parts of bench_paths.py (run that script, not this one)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import _paths_data as data

FLOOR = r'''
import sys, time
t0 = time.perf_counter()
import mycelium
import pyarrow.json as pj
table = pj.read_json(sys.argv[1])
r = mycelium.evaluate(table.column("ref"), table.column("pred"), metrics=["iou", "character"],
                      average="micro")
print(repr(r["iou"]["score"]), repr(r["character"]["f1"]))
'''


def _best(f, repeat):
    """Best CPU time of ``repeat`` runs (process time: steadier than wall time on a
    loaded machine; these paths run on one thread)."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = f()
        times.append(time.process_time() - t0)
    return min(times), out


def index_set_loop(refs, preds):
    """Per-example Python index sets: IoU and character F1, both micro (summed)."""
    inters = unions = tp = fp = fn = 0
    for r, p in zip(refs, preds):
        a = {i for s, e in r for i in range(s, e)}
        b = {i for s, e in p for i in range(s, e)}
        inter = len(a & b)
        inters, unions = inters + inter, unions + len(a | b)
        tp, fp, fn = tp + inter, fp + len(b) - inter, fn + len(a) - inter
    return inters / unions, 2 * tp / (2 * tp + fp + fn)


def bench_lists(n: int, repeat: int) -> bool:
    import pyarrow as pa

    import mycelium
    from mycelium.core.inputs import from_python

    ok = True
    refs, preds = data.span_lists(n, 0), data.span_lists(n, 1)
    t_loop, (iou, f1) = _best(lambda: index_set_loop(refs, preds), repeat)
    print(f"lists, {n:,} examples ({sum(map(len, refs)) + sum(map(len, preds)):,} spans), "
          "CPU seconds, best of the repeats")
    print(f"  per-example index-set loop       {t_loop:7.3f} s")
    for label, r, p in (("(start, end) tuples", refs, preds),
                        ("{start, end} dicts", data.span_lists(n, 0, dicts=True),
                         data.span_lists(n, 1, dicts=True))):
        t_conv, _ = _best(lambda: (from_python(r, "references"),
                                   from_python(p, "predictions")), repeat)
        # The floor of any reader of Python objects: Arrow's C converter over both sides.
        t_pa, _ = _best(lambda: (pa.array(r), pa.array(p)), repeat)
        t_eval, res = _best(lambda: mycelium.evaluate(r, p, metrics=["iou", "character"],
                                                      average="micro"), repeat)
        same = (abs(res["iou"]["score"] - iou) < 1e-12
                and abs(res["character"]["f1"] - f1) < 1e-12)
        ok &= same
        print(f"  {label:20s} pa.array of both {t_pa:7.3f} s")
        print(f"  {label:20s} conversion alone {t_conv:7.3f} s")
        print(f"  {label:20s} evaluate         {t_eval:7.3f} s   "
              f"{t_loop / t_eval:5.1f}x the loop, {t_eval / t_pa:4.2f}x pa.array   "
              f"agree: {same}")
    return ok


def _run(argv):
    wrapper = ("import resource, subprocess, sys\n"
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
               "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "r = u.ru_maxrss\n"
               "sys.stderr.write(f'@@CPU {u.ru_utime + u.ru_stime}\\n')\n"
               "sys.stderr.write(f'@@RSS {r}\\n'); sys.exit(p.returncode)\n")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"{argv[:4]} failed:\n{done.stderr}")
    cpu = float(done.stderr.rsplit("@@CPU ", 1)[1].split()[0])
    return elapsed, done.stdout, int(done.stderr.rsplit("@@RSS ", 1)[1]) // 1024, cpu


def bench_cli(n: int, big: int, tmp: Path, repeat: int) -> bool:
    ok = True
    floor_py = tmp / "floor.py"
    floor_py.write_text(FLOOR, encoding="utf-8")
    for rows in [n] + ([big] if big else []):
        path = data.evaluate_rows(tmp / f"rows_{rows}.jsonl", rows)
        t_floor, out_floor, rss_floor, c_floor = min(
            (_run([sys.executable, str(floor_py), str(path)]) for _ in range(repeat)),
            key=lambda r: r[0])
        t_cli, out_cli, rss_cli, c_cli = min(
            (_run([sys.executable, "-m", "mycelium", "evaluate", str(path), "--ref-col",
                   "ref", "--pred-col", "pred", "--metrics", "iou,character", "--average", "micro",
                   "--format", "json"]) for _ in range(repeat)), key=lambda r: r[0])
        got = {(r["metric"], r["measure"]): r["value"] for r in json.loads(out_cli)["records"]}
        want = [float(x) for x in out_floor.split()]
        same = got[("iou", "score")] == want[0] and got[("character", "f1")] == want[1]
        ok &= same
        print(f"cli, {rows:,} JSON-lines rows ({path.stat().st_size / 2**20:.0f} MiB)"
              "                wall      cpu     peak")
        print(f"  floor (import + pyarrow.json + evaluate) {t_floor:6.2f} s {c_floor:6.2f} s "
              f"{rss_floor:6d} MiB")
        print(f"  mycelium evaluate                        {t_cli:6.2f} s {c_cli:6.2f} s "
              f"{rss_cli:6d} MiB   {t_cli / t_floor:4.2f}x the floor (cpu "
              f"{c_cli / c_floor:.2f}x)   agree: {same}")
        path.unlink()
    return ok
