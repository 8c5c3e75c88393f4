"""Shared random batches for the statistics tests (deterministic by seed)."""

from __future__ import annotations

from contextlib import contextmanager

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


def span_sides(max_examples: int):
    """A hypothesis strategy: (references, predictions) of 1..``max_examples`` examples
    with 0-4 spans each (duplicates, overlaps and empty spans included), short or
    2**56 times longer."""
    from hypothesis import strategies as st

    @st.composite
    def sides(draw):
        n = draw(st.integers(1, max_examples))
        scale = draw(st.sampled_from([1, 2**56]))

        def spans():
            out = []
            for _ in range(draw(st.integers(0, 4))):
                a = draw(st.integers(0, 30))
                out.append([a * scale, (a + draw(st.integers(0, 12))) * scale])
            return out
        return [spans() for _ in range(n)], [spans() for _ in range(n)]
    return sides()


@contextmanager
def module_constant(module, name: str, value):
    """``module.name`` set to ``value`` inside the block (block sizes, thresholds)."""
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)
