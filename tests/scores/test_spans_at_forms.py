"""`spans_at` on one example takes every span form `evaluate` takes, and token runs follow
SPEC section 9 wherever they are built: a run of consecutive tokens (list order,
zero-length tokens skipped) scoring past the threshold spans from its first token's start
to its last token's end, whatever order the offsets are in.

The rule is checked against a slow, obvious transcription (`runs`) for `spans_at`,
`evaluate(threshold=...)` and `sweep` (whose fast path reads tokens in text order as
character masks)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium import SpanValidationError
from mycelium.scores import sweep

OFFSETS = [(0, 3), (4, 6), (7, 9)]
SCORES = [0.9, 0.8, 0.1]


@pytest.mark.parametrize("offsets", [
    OFFSETS,
    [(0.0, 3.0), (4.0, 6.0), (7.0, 9.0)],
    [[0, 3], [4, 6], [7, 9]],
    [{"start": 0, "end": 3}, {"start": 4, "end": 6}, {"start": 7, "end": 9}],
    np.array(OFFSETS),
    np.array(OFFSETS, dtype=np.int32),
    np.array(OFFSETS, dtype=np.float64),
    [np.array(p) for p in OFFSETS],
], ids=["ints", "integral floats", "lists", "dicts", "numpy", "numpy int32",
        "numpy floats", "numpy pairs"])
@pytest.mark.parametrize("with_text", [False, True])
def test_one_example_in_every_form_evaluate_takes(offsets, with_text):
    text = {"text": "abc de fgh"} if with_text else {}
    for scores in (SCORES, np.array(SCORES)):
        assert mycelium.spans_at(0.5, token_offsets=offsets, token_scores=scores,
                                 **text) == [[0, 6]]
    # The same form through evaluate gives the same spans' scores.
    got = mycelium.evaluate([[0, 6]], text="abc de fgh", token_offsets=offsets,
                            token_scores=SCORES, threshold=0.5, metrics="iou")
    assert got["iou"] == {"score": 1.0}


def test_a_batch_in_the_same_forms_is_still_a_batch():
    batch = [[(0.0, 3.0), (4.0, 6.0)], [(1, 2)]]
    assert mycelium.spans_at(0.5, token_offsets=batch, token_scores=[[0.9, 0.8], [0.7]]) \
        == [[[0, 6]], [[1, 2]]]
    stacked = np.array([[[0, 3], [4, 6]], [[0, 1], [5, 9]]])
    assert mycelium.spans_at(0.5, token_offsets=stacked,
                             token_scores=np.array([[0.9, 0.1], [0.1, 0.9]])) \
        == [[[0, 3]], [[5, 9]]]


@pytest.mark.parametrize("offsets, match", [
    ([(0.5, 3.0)], r"Expected integer offsets, got \(0.5, 3.0\)"),
    ([(True, 3)], r"Expected integer offsets, got \(True, 3\)"),
    ([{"start": 0}], r"Expected integer offsets, got \(0, None\)"),
])
def test_bad_offsets_of_one_example_are_named(offsets, match):
    with pytest.raises(SpanValidationError, match=match):
        mycelium.spans_at(0.5, token_offsets=offsets, token_scores=[0.9])


def test_a_run_spans_from_its_first_tokens_start_to_its_last_tokens_end():
    """The issue's case: (2, 4) then (0, 4) is [2, 4], not the hull [0, 4]."""
    assert mycelium.spans_at(0.5, token_offsets=[(2, 4), (0, 4)],
                             token_scores=[0.9, 0.8]) == [[2, 4]]
    # A zero-length token inside a run is skipped; an earlier token ending later is not
    # the end of the run.
    assert mycelium.spans_at(0.5, token_offsets=[(0, 8), (3, 3), (2, 5)],
                             token_scores=[0.9, 0.9, 0.9]) == [[0, 5]]
    report = mycelium.evaluate([[2, 4]], text="abcdef", token_offsets=[(2, 4), (0, 4)],
                               token_scores=[0.9, 0.8], threshold=0.5, metrics="iou")
    assert report["iou"] == {"score": 1.0}
    curve = sweep([[2, 4]], text="abcdef", token_offsets=[(2, 4), (0, 4)],
                  token_scores=[0.9, 0.8], thresholds=[0.5], metrics=["iou"])
    assert curve["value"].tolist() == [1.0]


def test_a_run_that_ends_before_it_starts_is_refused_everywhere():
    kw = dict(text="abcdefgh", token_offsets=[(5, 8), (0, 3)], token_scores=[0.9, 0.8])
    match = (r"token_offsets example 0: Expected each run of tokens to span from its "
             r"first token's start to its last token's end, got the run of consecutive "
             r"tokens scoring past the threshold from \(5, 8\) to \(0, 3\), which ends "
             r"before it starts; fix by passing the tokens in text order")
    with pytest.raises(SpanValidationError, match=match):
        mycelium.spans_at(0.5, **kw)
    with pytest.raises(SpanValidationError, match=match):
        mycelium.evaluate([[0, 3]], threshold=0.5, **kw)
    with pytest.raises(SpanValidationError, match=match):
        sweep([[0, 3]], thresholds=[0.5], **kw)
    # Where the two tokens are not in one run there is nothing to refuse.
    assert mycelium.spans_at(0.85, **kw) == [[5, 8]]


# ----------------------------------------------------------- against a slow reference

def runs(offsets, scores, t, inclusive=False):
    """Runs of consecutive tokens past ``t``, literally: list order, zero-length tokens
    skipped, each from its first token's start to its last token's end."""
    out, current = [], None
    for (s, e), p in zip(offsets, scores):
        if e == s:
            continue
        if (p >= t) if inclusive else (p > t):
            current = [s, e] if current is None else [current[0], e]
        elif current is not None:
            out.append(current)
            current = None
    if current is not None:
        out.append(current)
    return out


N = 24
token = st.tuples(st.integers(0, N), st.integers(0, 6)).map(
    lambda t: (t[0], min(N, t[0] + t[1])))
score = st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0])


@st.composite
def example(draw):
    in_order = draw(st.booleans())
    tokens = draw(st.lists(token, max_size=10))
    if in_order:
        tokens = sorted(tokens, key=lambda x: (x[0], x[1]))
        ends = np.maximum.accumulate([e for _, e in tokens]).tolist() if tokens else []
        tokens = [(s, max(e, s)) for (s, _), e in zip(tokens, ends)]
    refs = draw(st.lists(token.filter(lambda x: x[1] > x[0]), max_size=3))
    return [list(r) for r in refs], tokens, draw(st.lists(score, min_size=len(tokens),
                                                          max_size=len(tokens)))


def _reversed(spans) -> bool:
    return any(e < s for s, e in spans)


@settings(max_examples=300, deadline=None)
@given(st.lists(example(), min_size=1, max_size=4), score, st.booleans())
def test_spans_at_evaluate_and_sweep_follow_the_rule(batch, t, inclusive):
    text = ["x" * N] * len(batch)
    refs = [r for r, _, _ in batch]
    offsets = [o for _, o, _ in batch]
    scores = [s for _, _, s in batch]
    want = [runs(o, s, t, inclusive) for o, s in zip(offsets, scores)]
    rule = ">=" if inclusive else ">"
    if any(_reversed(w) for w in want):
        with pytest.raises(SpanValidationError, match="ends before it starts"):
            mycelium.spans_at(t, token_offsets=offsets, token_scores=scores, text=text,
                              threshold_rule=rule)
        return
    got = mycelium.spans_at(t, token_offsets=offsets, token_scores=scores, text=text,
                            threshold_rule=rule)
    assert got == [sorted(w) for w in want]
    if inclusive:
        return  # evaluate and sweep take ">=" from a profile, not an argument
    direct = mycelium.evaluate(refs, [[tuple(s) for s in w] for w in want], text=text,
                               metrics=["iou", "character"])
    scored = mycelium.evaluate(refs, text=text, token_offsets=offsets, token_scores=scores,
                               threshold=t, metrics=["iou", "character"])
    for m in ("iou", "character"):
        assert scored[m] == direct[m]
    curve = sweep(refs, text=text, token_offsets=offsets, token_scores=scores,
                  thresholds=[t], metrics=["iou", "character"])
    values = {(m, k): v for m, k, v in zip(curve["metric"], curve["measure"], curve["value"])}
    assert values == {(m, k): v for m in ("iou", "character") for k, v in direct[m].items()}
