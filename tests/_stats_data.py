"""Shared random batches for the statistics tests (deterministic by seed)."""

from __future__ import annotations

import numpy as np


def random_batch(n: int, seed: int, *, length: int = 60, p_span: float = 0.8):
    """``n`` examples of references and predictions, one or two spans each (or none)."""
    rng = np.random.default_rng(seed)
    refs, preds = [], []
    for _ in range(n):
        refs.append(_spans(rng, length, p_span))
        preds.append(_spans(rng, length, p_span))
    return refs, preds


def _spans(rng, length: int, p_span: float) -> list[list[int]]:
    out = []
    for _ in range(int(rng.integers(1, 3))):
        if rng.random() < p_span:
            s = int(rng.integers(0, length - 1))
            e = s + int(rng.integers(1, length - s + 1))
            out.append([s, e])
    return out


def noisy_copy(refs, seed: int, *, p_keep: float):
    """Predictions that keep each reference span with probability ``p_keep``, else miss it."""
    rng = np.random.default_rng(seed)
    return [[list(s) for s in ex if rng.random() < p_keep] for ex in refs]


def flat(report) -> dict[tuple[str, str], float]:
    """``{(metric, measure): value}`` of the metric entries of a report."""
    return {(m, k): v for m, meas in report.items() if m not in ("meta", "ci", "by_type",
                                                               "per_example")
            for k, v in meas.items()}


def detector_batch(n: int, seed: int, *, p_exact: float = 0.5, length: int = 60):
    """References and predictions where about ``p_exact`` of the examples are predicted
    exactly and the others at random, so that every measure varies between examples."""
    refs, noise = random_batch(n, seed, length=length)
    rng = np.random.default_rng(seed + 10_000)
    preds = [[list(s) for s in r] if rng.random() < p_exact else p
             for r, p in zip(refs, noise)]
    return refs, preds
