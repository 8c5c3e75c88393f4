"""Token offsets and scores as arrays (SPEC section 9): pyarrow list arrays (pairs, lists,
start/end structs; chunked, sliced, large lists), Arrow-backed pandas and Polars columns
and per-example numpy arrays give bit for bit what the Python lists give, read without a
Python round trip, and bad values give the lists' messages."""

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import mycelium
from mycelium import SpanValidationError
from mycelium.core.scores import score_input
from mycelium.core.token_input import token_arrays
from _optional import pl

PAIRS = pa.list_(pa.list_(pa.int64(), 2))
SCORES = pa.list_(pa.float64())


def _batch(n=60, seed=3):
    rng = np.random.default_rng(seed)
    text, refs, offs, scs = [], [], [], []
    for _ in range(n):
        L = int(rng.integers(0, 40))
        text.append("x" * L)
        s = int(rng.integers(0, max(L, 1)))
        refs.append([[s, min(L, s + int(rng.integers(0, 9)))]] if L and rng.random() < .7
                    else [])
        ends = np.cumsum(rng.integers(0, 5, size=L // 3))  # zero-length tokens too
        ends = ends[ends <= L]
        starts = np.maximum(ends - rng.integers(0, 4, size=ends.size), 0)
        offs.append(list(zip(starts.tolist(), ends.tolist())))
        scs.append(np.round(rng.random(ends.size), 2).tolist())
    return text, refs, offs, scs


def _forms(offs, scs):
    """Every array form of the same token offsets and scores."""
    flat = [p for o in offs for p in o]
    struct = pa.list_(pa.struct([("start", pa.int32()), ("end", pa.int32())]))
    np_offs = [np.array(o, dtype=np.int64).reshape(-1, 2) for o in offs]
    half = len(offs) // 2
    padded = pa.array([[]] + offs, type=PAIRS).slice(1)  # a slice: offsets not at 0
    yield "arrow pairs", pa.array(offs, type=PAIRS), pa.array(scs, type=SCORES)
    yield "arrow lists int32", pa.array(offs, type=pa.list_(pa.list_(pa.int32()))), \
        pa.array(scs, type=SCORES)
    yield "arrow structs", pa.array([[{"start": a, "end": b} for a, b in o] for o in offs],
                                    type=struct), pa.array(scs, type=SCORES)
    yield "large lists", pa.array(offs, type=pa.large_list(pa.list_(pa.int64(), 2))), \
        pa.array(scs, type=pa.large_list(pa.float64()))
    yield "chunked", pa.chunked_array([pa.array(offs[:half], type=PAIRS),
                                       pa.array(offs[half:], type=PAIRS)]), \
        pa.chunked_array([pa.array(scs[:half], type=SCORES),
                          pa.array(scs[half:], type=SCORES)])
    yield "sliced", padded, pa.array(scs, type=SCORES)
    yield "pandas arrow", pd.Series(pd.arrays.ArrowExtensionArray(pa.array(offs, type=PAIRS))), \
        pd.Series(pd.arrays.ArrowExtensionArray(pa.array(scs, type=SCORES)))
    yield "numpy per example", np_offs, [np.array(s) for s in scs]
    yield "numpy uint32 offsets", [o.astype(np.uint32) for o in np_offs], \
        [np.array(s, dtype=np.float64) for s in scs]
    assert flat  # the batch has tokens


def _same(a, b):
    for k in ("example", "starts", "ends", "scores"):
        x, y = getattr(a, k), getattr(b, k)
        assert x.dtype == y.dtype and np.array_equal(x, y), k
    assert a.form == b.form and a.n == b.n


def test_array_forms_equal_lists_bit_for_bit():
    text, refs, offs, scs = _batch()
    lengths = np.array([len(t) for t in text], dtype=np.int64)
    want = score_input(lengths, single=False, token_offsets=offs, token_scores=scs)
    metrics = ["char_auroc", "char_ap", "response_auroc"]
    wants = {avg: mycelium.evaluate(refs, text=text, token_offsets=offs, token_scores=scs,
                                    metrics=metrics, average=avg) for avg in ("micro", "macro")}
    for name, o, s in _forms(offs, scs):
        # Read column-wise: the bulk reader vouches for every form (no per-token loop).
        assert token_arrays(o, s, lengths, False) is not None, name
        _same(score_input(lengths, single=False, token_offsets=o, token_scores=s), want)
        for avg, w in wants.items():
            got = mycelium.evaluate(refs, text=text, token_offsets=o, token_scores=s,
                                    metrics=metrics, average=avg)
            for m in metrics:
                assert got[m] == w[m], (name, avg, m)  # bit for bit


def test_stacked_numpy_and_single_example_arrays():
    text = ["abcdef", "ghijkl"]
    offs = np.array([[[0, 2], [2, 4], [4, 6]], [[0, 3], [3, 3], [3, 6]]])
    scs = np.array([[0.1, 0.9, 0.4], [0.7, 1.0, 0.2]])
    lengths = np.array([6, 6])
    _same(score_input(lengths, single=False, token_offsets=offs, token_scores=scs),
          score_input(lengths, single=False, token_offsets=offs.tolist(),
                      token_scores=scs.tolist()))
    one = mycelium.evaluate([[2, 4]], text="abcdef", token_offsets=offs[0],
                            token_scores=scs[0], metrics=["char_auroc", "char_ap"])
    assert one == mycelium.evaluate([[2, 4]], text="abcdef", token_offsets=offs[0].tolist(),
                                    token_scores=scs[0].tolist(),
                                    metrics=["char_auroc", "char_ap"])


BAD = [  # (token offsets, token scores) of one example of "abcd", as Python lists
    ([[(0, 1), (1, 9)]], [[0.1, 0.2]]),            # beyond the text
    ([[(2, 1)]], [[0.1]]),                          # reversed
    ([[(-1, 1)]], [[0.1]]),                         # negative
    ([[(0, 1)]], [[float("nan")]]),                 # NaN score
    ([[(0, 1)]], [[1.5]]),                          # score above 1
    ([[(0, 1)]], [[-0.5]]),                         # score below 0
    ([[(0, 1), (1, 2)]], [[0.1]]),                  # one score short
    ([[(0, 1)]], [[None]]),                         # a null score
    ([[(0, 2.5)]], [[0.1]]),                        # non-integral offset
    ([[(True, 2)]], [[0.1]]),                       # a bool offset
    ([[(0, 1)]], [[True]]),                         # a bool score
    ([[(0, 1, 2)]], [[0.1]]),                       # a pair of three
    ([None], [[0.1]]),                              # a null example
    ([[(0, None)]], [[0.1]]),                       # a null offset
]


def _outcome(fn):
    try:
        fn()
    except (SpanValidationError, ValueError, TypeError) as exc:
        return type(exc), str(exc)
    return None


def _as_lists(x):
    """What the value is as Python lists (Arrow's and numpy's own typing applied)."""
    if isinstance(x, (pa.Array, pa.ChunkedArray)):
        return x.to_pylist()
    return [r.tolist() if isinstance(r, np.ndarray) else r for r in x]


def _arrays(offs, scs):
    """The Arrow and numpy forms of a bad input that those libraries can hold."""
    for convert in (pa.array, lambda rows: [None if r is None else np.array(r) for r in rows]):
        try:
            o, s = convert(offs), convert(scs)
        except (pa.ArrowException, TypeError, ValueError):
            continue
        yield o, s
        yield o, scs
        yield offs, s


@pytest.mark.parametrize("offs, scs", BAD)
def test_bad_array_inputs_give_the_list_messages(offs, scs):
    lengths = np.array([4])

    def run(o, s):
        return lambda: score_input(lengths, single=False, token_offsets=o, token_scores=s)

    want = _outcome(run(offs, scs))
    assert want is not None and re.search(r"token_(offsets|scores) example 0", want[1])
    tried = 0
    for o, s in _arrays(offs, scs):
        # Each form fails (or passes) exactly as its values given as Python lists.
        assert _outcome(run(o, s)) == _outcome(run(_as_lists(o), _as_lists(s)))
        tried += 1
    assert tried >= 2


def test_numpy_rows_are_reported_as_python_values():
    lengths = np.array([4])
    with pytest.raises(SpanValidationError, match=r"token 0: Expected a finite score in "
                       r"\[0, 1\], got nan; fix by"):
        score_input(lengths, single=False, token_offsets=[np.array([[0, 1]])],
                    token_scores=[np.array([np.nan])])


def test_polars_columns_equal_lists():
    text, refs, offs, scs = _batch(20)
    df = pl.DataFrame({"ref": refs, "text": text, "offs": offs, "scores": scs})
    got = df.mycelium.evaluate("ref", text="text", token_offsets_col="offs",
                               token_scores_col="scores", metrics=["char_auroc", "char_ap"],
                               average="micro")
    want = mycelium.evaluate(refs, text=text, token_offsets=offs, token_scores=scs,
                             metrics=["char_auroc", "char_ap"], average="micro")
    for m, measure, value in zip(got["metric"], got["measure"], got["value"]):
        assert value == want[m][measure]
