"""Hypothesis strategies shared by the score tests: texts, reference spans and token
scores (tokens in text order, gaps allowed, scores with ties)."""

from hypothesis import strategies as st


def reference_spans(draw, length: int, most: int) -> list:
    """Up to ``most`` reference spans inside a text of ``length`` (empty, overlapping or
    duplicate ones included)."""
    out = []
    for _ in range(draw(st.integers(0, most))):
        a = draw(st.integers(0, length))
        out.append([a, draw(st.integers(a, length))])
    return out


@st.composite
def in_order_tokens(draw, *, examples: int, length: int, refs: int, gap: int, size: int,
                    scores: tuple):
    """``(text, refs, token offsets, token scores)`` of up to ``examples`` texts of at most
    ``length`` characters, with tokens in text order: each at most ``gap`` characters
    after the previous one and at most ``size`` long, scored from ``scores``."""
    n = draw(st.integers(1, examples))
    text, ref_sets, offs, values = [], [], [], []
    for _ in range(n):
        chars = draw(st.integers(0, length))
        text.append("x" * chars)
        ref_sets.append(reference_spans(draw, chars, refs))
        o, pos = [], 0
        while pos < chars and draw(st.booleans()):
            a = pos + draw(st.integers(0, gap))
            b = min(chars, a + draw(st.integers(0, size)))
            if a > chars:
                break
            o.append([a, b])
            pos = b
        offs.append(o)
        values.append([draw(st.sampled_from(scores)) for _ in o])
    return text, ref_sets, offs, values
