"""Time ``mycelium.evaluate`` on a large seeded synthetic batch, against a pure-Python baseline.

Run ``python benchmarks/bench_evaluate.py --help``; see benchmarks/README.md. This is a
script, not a test: it prints timings and never asserts on them. It does check that the
baseline and mycelium agree numerically, and exits non-zero if they do not.
"""

import argparse
import math
import platform
import resource
import sys
import time
import tracemalloc

import numpy as np
import pyarrow as pa

import mycelium

METRICS = ("exact_span", "iou", "character", "deteval_1d", "cleval_1d", "span_coverage")
SPAN_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64())]))
TOLERANCE = 1e-12


# --------------------------------------------------------------------------- synthetic data


def _random_spans(rng, text_lengths, example_of):
    """One random span per entry of ``example_of``, 1..60 characters, inside its text."""
    limit = text_lengths[example_of]
    length = np.minimum(rng.integers(1, 61, example_of.size), limit)
    start = rng.integers(0, limit - length + 1)
    return start, start + length


def _make_references(rng, text_lengths):
    """About 2 spans per example, with some adjacent, overlapping and duplicate spans."""
    n = text_lengths.size
    example_of = np.repeat(np.arange(n), np.minimum(rng.poisson(2.0, n), 8))
    start, end = _random_spans(rng, text_lengths, example_of)
    length = end - start
    has_prev = np.zeros(example_of.size, dtype=bool)
    has_prev[1:] = example_of[1:] == example_of[:-1]
    u = rng.random(example_of.size)
    kind = np.where(has_prev, np.digitize(u, [0.10, 0.18, 0.23]), 3)  # 0 adj, 1 ovl, 2 dup, 3 none
    kind[1:][kind[:-1] != 3] = 3  # a modified span's successor keeps its random position
    prev = np.maximum(np.arange(example_of.size) - 1, 0)
    limit = text_lengths[example_of]
    for k, new_start in ((0, end[prev]), (1, start[prev] + length[prev] // 2)):
        ok = (kind == k) & (new_start + length <= limit)
        start[ok], end[ok] = new_start[ok], new_start[ok] + length[ok]
    dup = kind == 2
    start[dup], end[dup] = start[prev][dup], end[prev][dup]
    return example_of, start, end


def _make_predictions(rng, text_lengths, example_of, start, end):
    """Perturb each reference (copy, jitter, split, drop, merge with next, shrink) + noise."""
    r = example_of.size
    length = end - start
    action = rng.choice(6, size=r, p=[0.30, 0.25, 0.10, 0.10, 0.10, 0.15])
    action[(action == 2) & (length < 2)] = 0  # a 1-character span cannot be split
    has_next = np.zeros(r, dtype=bool)
    has_next[:-1] = example_of[1:] == example_of[:-1]
    action[(action == 4) & ~has_next] = 0
    n_out = np.where(action == 2, 2, np.where(action == 3, 0, 1))
    parent = np.repeat(np.arange(r), n_out)
    second = np.zeros(parent.size, dtype=bool)
    second[1:] = parent[1:] == parent[:-1]
    a, s, e, limit = action[parent], start[parent], end[parent], text_lengths[example_of[parent]]
    ps, pe = s.copy(), e.copy()
    # 1: jitter both boundaries by up to 3 characters, staying non-empty and inside the text.
    jit = a == 1
    ps[jit] = np.clip(s[jit] + rng.integers(-3, 4, jit.sum()), 0, limit[jit] - 1)
    pe[jit] = np.clip(e[jit] + rng.integers(-3, 4, jit.sum()), ps[jit] + 1, limit[jit])
    # 2: split at a random interior point into two adjacent pieces.
    cut = (start + rng.integers(1, np.maximum(length, 2)))[parent]  # one cut per reference
    pe[(a == 2) & ~second] = cut[(a == 2) & ~second]
    ps[(a == 2) & second] = cut[(a == 2) & second]
    # 4: one prediction spanning this reference and the next one of the same example.
    nxt = np.minimum(parent + 1, r - 1)
    mrg = a == 4
    ps[mrg] = np.minimum(s, start[nxt])[mrg]
    pe[mrg] = np.maximum(e, end[nxt])[mrg]
    # 5: a sub-span that drops up to a third of the characters at each end.
    sub = a == 5
    third = (e - s)[sub] // 3 + 1
    ps[sub] = s[sub] + rng.integers(0, third)
    pe[sub] = e[sub] - rng.integers(0, third)
    noise_of = np.repeat(np.arange(text_lengths.size), rng.poisson(0.3, text_lengths.size))
    ns, ne = _random_spans(rng, text_lengths, noise_of)
    owner = np.concatenate([example_of[parent], noise_of])
    order = np.argsort(owner, kind="stable")
    return owner[order], np.concatenate([ps, ns])[order], np.concatenate([pe, ne])[order]


def _to_arrow(n, example_of, start, end):
    """A ``SPAN_TYPE`` list array built from numpy offsets and values (no Python objects)."""
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(example_of, minlength=n), out=offsets[1:])
    values = pa.StructArray.from_arrays(
        [pa.array(start.astype(np.int64)), pa.array(end.astype(np.int64))], names=["start", "end"]
    )
    return pa.ListArray.from_arrays(pa.array(offsets), values, type=SPAN_TYPE)


def make_batch(n, seed):
    """Seeded synthetic batch: (references, predictions, text_lengths) with n examples."""
    rng = np.random.default_rng(seed)
    text_lengths = rng.integers(300, 701, n)  # mean 500 characters; only lengths matter
    ref_of, ref_start, ref_end = _make_references(rng, text_lengths)
    pred_of, pred_start, pred_end = _make_predictions(rng, text_lengths, ref_of, ref_start, ref_end)
    refs = _to_arrow(n, ref_of, ref_start, ref_end)
    preds = _to_arrow(n, pred_of, pred_start, pred_end)
    return refs, preds, text_lengths


def to_python_lists(spans):
    """Arrow span lists -> list (per example) of (start, end) tuples, for the baseline."""
    offsets = spans.offsets.to_numpy()
    values = spans.flatten()
    starts = values.field("start").to_numpy().tolist()
    ends = values.field("end").to_numpy().tolist()
    pairs = list(zip(starts, ends))
    base = offsets[0]
    return [pairs[lo - base:hi - base] for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


# --------------------------------------------------------------------------- pure-Python baseline


def baseline_iou_character(references, predictions):
    """Per-example index sets, the way the official Mu-SHROOM scorer computes IoU.

    Returns macro IoU (1.0 for an example with both sides empty) and micro character
    precision / recall / F1 (TP, FP, FN summed over the batch; 0/0 -> 0.0).
    """
    ious = []
    tp = fp = fn = 0
    for refs, preds in zip(references, predictions):
        ref_chars = {i for s, e in refs for i in range(s, e)}
        pred_chars = {i for s, e in preds for i in range(s, e)}
        common = len(ref_chars & pred_chars)
        union = len(ref_chars | pred_chars)
        ious.append(common / union if union else 1.0)
        tp += common
        fp += len(pred_chars) - common
        fn += len(ref_chars) - common
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"iou": math.fsum(ious) / len(ious),
            "character": {"precision": precision, "recall": recall, "f1": f1}}


# --------------------------------------------------------------------------- measuring


def best_of(repeat, fn):
    """Best wall-clock time of ``repeat`` calls, and the last result."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def traced_peak_mib(fn):
    """Peak Python + numpy heap (tracemalloc) during one call; Arrow buffers are not traced."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def check_agreement(base, iou_report, character_report):
    """Raise if the baseline and mycelium disagree by more than TOLERANCE."""
    pairs = [("macro iou", base["iou"], iou_report["iou"]["score"])]
    pairs += [(f"micro character {k}", base["character"][k], character_report["character"][k])
              for k in ("precision", "recall", "f1")]
    rows = []
    for name, expected, got in pairs:
        ok = abs(expected - got) <= TOLERANCE
        rows.append(f"  {name:<26} baseline {expected:.15f}  mycelium {got:.15f}  "
                    f"{'ok' if ok else 'MISMATCH'}")
        if not ok:
            print("\n".join(rows))
            raise SystemExit(f"baseline and mycelium disagree on {name}: {expected!r} vs {got!r}")
    return rows


def _row(name, n, seconds, reference_us=None):
    us = seconds / n * 1e6
    ratio = f"{reference_us / us:8.1f}x" if reference_us else ""
    return f"  {name:<40} {n:>9,} {seconds:>9.3f} {us:>10.3f} {ratio:>9}"


def run(args):
    t0 = time.perf_counter()
    refs, preds, text_lengths = make_batch(args.examples, args.seed)
    build_s = time.perf_counter() - t0
    if refs.type != mycelium.SPAN_TYPE:
        raise SystemExit(f"benchmark span type {refs.type} != mycelium.SPAN_TYPE")
    nb = min(args.baseline_examples, args.examples)
    small_refs, small_preds = refs.slice(0, nb), preds.slice(0, nb)

    def evaluate(r, p, metrics, average):
        return mycelium.evaluate(r, p, metrics=list(metrics), average=average)

    print(f"mycelium {getattr(mycelium, '__version__', '?')} | Python {platform.python_version()}"
          f" | numpy {np.__version__} | pyarrow {pa.__version__} | {platform.machine()}")
    print(f"seed {args.seed}: {args.examples:,} examples, {len(refs.flatten()):,} reference and "
          f"{len(preds.flatten()):,} predicted spans, mean text length "
          f"{text_lengths.mean():.0f} (built in {build_s:.2f} s; Arrow input "
          f"{(refs.nbytes + preds.nbytes) / 2**20:.0f} MiB); best of {args.repeat}")

    timings = []
    for average in ("macro", "micro"):
        s, _ = best_of(args.repeat, lambda: evaluate(refs, preds, METRICS, average))
        timings.append((f"evaluate all 6 metrics, {average}", args.examples, s))
    for metric in METRICS:
        s, _ = best_of(args.repeat, lambda: evaluate(refs, preds, [metric], "macro"))
        timings.append((f"evaluate {metric}, macro", args.examples, s))
    s, _ = best_of(args.repeat, lambda: evaluate(refs, preds, ["iou", "character"], "macro"))
    timings.append(("evaluate iou+character, macro", args.examples, s))

    s_small, iou_report = best_of(
        args.repeat, lambda: evaluate(small_refs, small_preds, ["iou", "character"], "macro"))
    ref_lists, pred_lists = to_python_lists(small_refs), to_python_lists(small_preds)
    s_lists, _ = best_of(
        args.repeat, lambda: evaluate(ref_lists, pred_lists, ["iou", "character"], "macro"))
    s_base, base = best_of(args.repeat, lambda: baseline_iou_character(ref_lists, pred_lists))
    base_us = s_base / nb * 1e6

    print(f"\n  {'case':<40} {'examples':>9} {'best s':>9} {'µs/example':>10} {'speed-up':>9}")
    for name, n, seconds in timings:
        ratio_to = base_us if name.startswith("evaluate iou+character") else None
        print(_row(name, n, seconds, ratio_to))
    print(_row("evaluate iou+character, macro (Arrow)", nb, s_small, base_us))
    print(_row("evaluate iou+character (Python lists)", nb, s_lists, base_us))
    print(_row("pure-Python set(range) iou+character", nb, s_base, base_us))
    print("  speed-up = baseline µs/example ÷ row µs/example (same metrics, iou+character rows only)")

    character_report = evaluate(small_refs, small_preds, ["character"], "micro")
    print(f"\nagreement with the baseline on {nb:,} examples (tolerance {TOLERANCE:g}):")
    print("\n".join(check_agreement(base, iou_report, character_report)))

    print("\nmemory:")
    full = traced_peak_mib(lambda: evaluate(refs, preds, METRICS, "macro"))
    print(f"  tracemalloc peak, evaluate all 6 metrics on {args.examples:,}: {full:8.1f} MiB")
    small = traced_peak_mib(lambda: evaluate(small_refs, small_preds, ["iou", "character"], "macro"))
    print(f"  tracemalloc peak, evaluate iou+character on {nb:,}:  {small:8.1f} MiB")
    py = traced_peak_mib(lambda: baseline_iou_character(ref_lists, pred_lists))
    print(f"  tracemalloc peak, pure-Python baseline on {nb:,}:    {py:8.1f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    rss_mib = rss / 2**20 if sys.platform == "darwin" else rss / 2**10
    print(f"  process peak RSS (ru_maxrss, whole run):                {rss_mib:8.1f} MiB")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1_000_000,
                        help="examples in the large batch (default: 1,000,000)")
    parser.add_argument("--baseline-examples", type=int, default=100_000,
                        help="examples scored by the pure-Python baseline (default: 100,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic batch")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case; best is kept")
    args = parser.parse_args(argv)
    if args.examples < 1 or args.baseline_examples < 1 or args.repeat < 1:
        parser.error("--examples, --baseline-examples and --repeat must be positive")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
