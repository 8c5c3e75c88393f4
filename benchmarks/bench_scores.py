"""Speed of the score metrics and threshold sweeps (SPEC section 9), beside scikit-learn.

Data: a seeded synthetic batch, token form: text lengths uniform in 300-700 characters,
tokens of 1-7 characters separated by single spaces half of the time (~120 tokens per
example), 0-3 reference spans, token scores rounded to 3 decimals (many ties), higher
inside the references. Timed (wall clock, best of --repeat): char_auroc + char_ap micro
and macro on the whole batch; one evaluation of iou + character at a threshold; a
--thresholds sweep of iou + character; scikit-learn's roc_auc_score and
average_precision_score on the expanded per-character arrays of a --baseline-examples
subset (per example for macro, pooled for micro; building the arrays is not timed),
with mycelium on the same subset, and the part of mycelium's time spent reading the
token offsets and scores. ``--input`` picks how mycelium is given them: Python lists,
pyarrow arrays (``list<fixed_size_list<int64, 2>>`` offsets, ``list<double>`` scores;
built outside the timing, as a Parquet or Arrow source gives them) or both, each beside
the same scikit-learn run. Also one text of 10,000,000 characters. Results are compared with
scikit-learn and the script fails if they disagree.

    python benchmarks/bench_scores.py                       # 100,000 examples, baseline 10,000
    python benchmarks/bench_scores.py --examples 20000 --baseline-examples 2000 --repeat 1
    python benchmarks/bench_scores.py --input arrow      # token columns as pyarrow arrays
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pyarrow as pa

import mycelium


def make(n: int, seed: int):
    rng = np.random.default_rng(seed)
    text, refs, offsets, scores = [], [], [], []
    for _ in range(n):
        L = int(rng.integers(300, 701))
        text.append("x" * L)
        r = []
        for _ in range(int(rng.integers(0, 4))):
            s = int(rng.integers(0, L - 1))
            r.append([s, min(L, s + int(rng.integers(1, 60)))])
        refs.append(r)
        lens = rng.integers(1, 8, size=L // 2)
        gaps = rng.integers(0, 2, size=lens.size)
        ends = np.cumsum(lens + gaps)
        starts = ends - lens
        keep = ends <= L
        starts, ends = starts[keep], ends[keep]
        inside = np.zeros(L + 1, bool)
        for a, b in r:
            inside[a:b] = True
        sc = np.round(np.clip(rng.random(starts.size) * 0.7 + 0.3 * inside[starts], 0, 1), 3)
        offsets.append(list(zip(starts.tolist(), ends.tolist())))
        scores.append(sc.tolist())
    return text, refs, offsets, scores


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def tokens(offsets, scores, form: str) -> dict:
    """The token offsets and scores in the input form timed (Arrow built untimed)."""
    if form == "lists":
        return dict(token_offsets=offsets, token_scores=scores)
    return dict(token_offsets=pa.array(offsets, type=pa.list_(pa.list_(pa.int64(), 2))),
                token_scores=pa.array(scores, type=pa.list_(pa.float64())))


def expanded(text, refs, offsets, scores):
    out = []
    for t, r, o, s in zip(text, refs, offsets, scores):
        label, score = np.zeros(len(t), bool), np.zeros(len(t))
        for a, b in r:
            label[a:b] = True
        for (a, b), p in zip(o, s):
            score[a:b] = np.maximum(score[a:b], p)
        out.append((label, score))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=100_000)
    ap.add_argument("--baseline-examples", type=int, default=10_000)
    ap.add_argument("--thresholds", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--input", choices=("lists", "arrow", "both"), default="both",
                    help="token offsets and scores as Python lists, pyarrow arrays, or both")
    a = ap.parse_args()
    text, refs, offsets, scores = make(a.examples, a.seed)
    forms = ("lists", "arrow") if a.input == "both" else (a.input,)
    n_tok = sum(map(len, offsets))
    print(f"{a.examples} examples, {sum(map(len, text))} characters, {n_tok} tokens "
          f"({n_tok / a.examples:.0f} per example)")
    kw = dict(text=text, token_offsets=offsets, token_scores=scores)
    names = ["char_auroc", "char_ap"]
    for form in forms:
        kw_f = dict(kw, **tokens(offsets, scores, form))
        for average in ("micro", "macro"):
            t, r = best(lambda: mycelium.evaluate(refs, metrics=names, average=average,
                                                  **kw_f), a.repeat)
            print(f"evaluate char_auroc+char_ap {average} ({form}): {t:.3f} s "
                  f"({t / a.examples * 1e6:.1f} us/example)")
    t_one, _ = best(lambda: mycelium.evaluate(refs, threshold=0.5, metrics=["iou", "character"],
                                              **kw), a.repeat)
    print(f"evaluate iou+character at one threshold: {t_one:.3f} s")
    t_sw, f = best(lambda: mycelium.sweep(refs, thresholds=a.thresholds,
                                          metrics=["iou", "character"], **kw), a.repeat)
    print(f"sweep of {f['threshold'].nunique()} thresholds, iou+character: {t_sw:.3f} s "
          f"= {t_sw / t_one:.1f}x one evaluation")

    try:
        from sklearn.metrics import average_precision_score, roc_auc_score
    except ImportError:
        print("scikit-learn not installed: baseline skipped")
        return
    m = a.baseline_examples
    sub = dict(text=text[:m], token_offsets=offsets[:m], token_scores=scores[:m])
    arrays = expanded(text[:m], refs[:m], offsets[:m], scores[:m])

    def sk_macro():
        auc = [roc_auc_score(la, s) for la, s in arrays if 0 < la.sum() < la.size]
        ap_ = [average_precision_score(la, s) for la, s in arrays if la.any()]
        return float(np.mean(auc)), float(np.mean(ap_))

    label = np.concatenate([x[0] for x in arrays])
    score = np.concatenate([x[1] for x in arrays])

    def sk_micro():
        return float(roc_auc_score(label, score)), float(average_precision_score(label, score))

    for average, sk in (("macro", sk_macro), ("micro", sk_micro)):
        t_sk, want = best(sk, 1)
        for form in forms:
            sub_f = dict(sub, **tokens(offsets[:m], scores[:m], form))
            t_my, r = best(lambda: mycelium.evaluate(refs[:m], metrics=names,
                                                     average=average, **sub_f), a.repeat)
            got = (r["char_auroc"]["score"], r["char_ap"]["score"])
            if not all(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
                       for x, y in zip(got, want)):
                raise SystemExit(f"disagreement with scikit-learn ({average}, {form}): "
                                 f"{got} vs {want}")
            print(f"{m} examples {average} ({form}): scikit-learn {t_sk:.3f} s, mycelium "
                  f"{t_my:.3f} s -> {t_sk / t_my:.1f}x")
    # How much of mycelium's time is reading the token offsets and scores (validated).
    from mycelium.core.scores import score_input

    lengths = np.array([len(t) for t in text[:m]], dtype=np.int64)
    for form in forms:
        tok = tokens(offsets[:m], scores[:m], form)
        t_read, _ = best(lambda: score_input(lengths, single=False, **tok), a.repeat)
        print(f"{m} examples: reading the token {form} {t_read:.3f} s of mycelium's time")

    n = 10_000_000
    t_big, r = best(lambda: mycelium.evaluate(
        [[100, 200], [5_000_000, 5_000_100]], text="x" * n, threshold=0.5,
        soft_predictions=[{"start": 150, "end": 9_000_000, "prob": 0.7},
                          {"start": 0, "end": 10, "prob": 0.2}],
        metrics=["char_auroc", "char_ap", "iou"]), a.repeat)
    print(f"one text of 10,000,000 characters (char_auroc, char_ap, iou at 0.5): "
          f"{t_big * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
