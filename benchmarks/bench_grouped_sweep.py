"""A grouped threshold sweep: `mycelium.sweep` and `mycelium.tune_threshold` with ``by=``,
beside the same sweep run on each group's rows alone (the loop a user would write).

Data: a seeded synthetic batch, token form: ``--groups`` groups (default 200) of
``--per-group`` examples (default 4), ``--tokens`` tokens per example (default 5, so 4,000
tokens), texts of 30-60 characters tiled by the tokens, 0-2 reference spans, token scores
drawn uniformly from [0, 1) (all distinct: the exact curve has a threshold per token).

Each case runs in a fresh child process, so its peak resident memory is its own: the
child builds the data, records its resident set size, runs the call once and reports the
wall-clock seconds, the rows of the result and the peak resident set size (``VmHWM``,
which a new program starts afresh, unlike ``ru_maxrss``) minus the size before the call.
Cases:

- ``sweep`` — ``sweep(refs, by=groups, metrics=["iou", "character"])``, the exact curve;
- ``tune`` — ``tune_threshold(refs, by=groups)`` (IoU);
- ``loop`` — the baseline: ``sweep`` on each group's rows, concatenated.

The grouped sweep must equal the loop row for row (thresholds, metrics and values bit for
bit): each group's curve is that of its own scores. The script prints the figures, then
exits with an error if they disagree (as an earlier version, which gave every group a row
at every distinct score of the whole batch, does).

    python benchmarks/bench_grouped_sweep.py
    PYTHONPATH=/path/to/other/checkout python benchmarks/bench_grouped_sweep.py  # another revision
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def make(groups: int, per_group: int, tokens: int, seed: int):
    rng = np.random.default_rng(seed)
    text, refs, offsets, scores, keys = [], [], [], [], []
    for g in range(groups):
        for _ in range(per_group):
            L = int(rng.integers(30, 61))
            text.append("x" * L)
            cuts = np.sort(rng.choice(np.arange(1, L), size=tokens - 1, replace=False))
            bounds = [0, *cuts.tolist(), L]
            offsets.append([[a, b] for a, b in zip(bounds[:-1], bounds[1:])])
            scores.append(rng.random(tokens).tolist())
            spans = []
            for _ in range(int(rng.integers(0, 3))):
                s = int(rng.integers(0, L))
                spans.append([s, int(rng.integers(s, L + 1))])
            refs.append(spans)
            keys.append(f"g{g:04d}")
    return text, refs, offsets, scores, keys


def _status_kib(field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (peak) of this process, in KiB (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(case: str, a) -> None:
    import pandas as pd

    import mycelium

    text, refs, offsets, scores, keys = make(a.groups, a.per_group, a.tokens, a.seed)
    kw = dict(text=text, token_offsets=offsets, token_scores=scores)
    before = _status_kib("VmRSS")
    t0 = time.perf_counter()
    if case == "sweep":
        out = mycelium.sweep(refs, by={"g": keys}, metrics=["iou", "character"], **kw)
    elif case == "tune":
        out = mycelium.tune_threshold(refs, by={"g": keys}, **kw)
    else:
        parts = []
        for g in sorted(set(keys)):
            rows = [i for i, k in enumerate(keys) if k == g]
            part = mycelium.sweep([refs[i] for i in rows], text=[text[i] for i in rows],
                                  token_offsets=[offsets[i] for i in rows],
                                  token_scores=[scores[i] for i in rows],
                                  metrics=["iou", "character"])
            part.insert(0, "g", g)
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
    seconds = time.perf_counter() - t0
    peak = _status_kib("VmHWM")
    digest = None
    if case in ("sweep", "loop"):  # every value's bits
        cols = ["g", "threshold", "metric", "measure", "value", "examples"]
        digest = hashlib.sha256(repr(out[cols].values.tolist()).encode()).hexdigest()
    print(json.dumps({"case": case, "seconds": seconds, "rows": len(out),
                      "peak_mib": max(peak - before, 0) / 1024, "digest": digest}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=200)
    ap.add_argument("--per-group", type=int, default=4)
    ap.add_argument("--tokens", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", default="sweep,tune,loop")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.case:
        child(a.case, a)
        return
    n = a.groups * a.per_group
    print(f"{a.groups} groups, {n} examples, {n * a.tokens} tokens (distinct scores)")
    results = {}
    for case in a.cases.split(","):
        cmd = [sys.executable, __file__, "--case", case, "--groups", str(a.groups),
               "--per-group", str(a.per_group), "--tokens", str(a.tokens),
               "--seed", str(a.seed)]
        done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
        if done.returncode:
            raise SystemExit(f"case {case} failed:\n{done.stderr}")
        r = json.loads(done.stdout.strip().splitlines()[-1])
        results[case] = r
        print(f"{case:>5}: {r['rows']:>9,} rows  {r['seconds']:8.2f} s  "
              f"peak +{r['peak_mib']:7.1f} MiB")
    if "sweep" in results and "loop" in results:
        s, loop = results["sweep"], results["loop"]
        print(f"grouped sweep / loop over groups: {s['seconds'] / loop['seconds']:.2f}x time, "
              f"{s['rows'] / loop['rows']:.2f}x rows")
        if s["digest"] != loop["digest"]:
            raise SystemExit("the grouped sweep differs from the sweep of each group's rows")
        print("grouped sweep == sweep of each group's rows, bit for bit")


if __name__ == "__main__":
    main()
