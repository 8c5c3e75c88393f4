"""The flat conversion of plain Python span lists (`_via_flat`) gives exactly the
checked loop's batch, and declines everything it cannot vouch for (the Arrow path and
the checked loop then decide, with their messages)."""

import numpy as np
import pytest

from mycelium.core.inputs import _checked_loop, _via_flat, from_python
from mycelium.errors import SpanValidationError


@pytest.mark.parametrize("examples", [
    [[(0, 4), (6, 9)], [], [[2, 3]]],
    [[{"start": 0, "end": 4, "label": "x"}], [], [{"end": 3, "start": 2}]],
    [[], []],
    ([(1, 2)], [(2**62, 2**62 + 1)]),
])
def test_same_batch_as_the_arrow_path(examples):
    fast, slow = _via_flat(examples), _checked_loop(list(examples), "spans", False)
    assert fast is not None
    for a, b in zip((fast[0].offsets, fast[0].starts, fast[0].ends),
                    (slow[0].offsets, slow[0].starts, slow[0].ends)):
        assert a.dtype == np.int64 and np.array_equal(a, b)
    assert not fast[1].any()


@pytest.mark.parametrize("examples", [
    [[(0, 1.5)]], [[(0, 2.0)]], [[(True, 2)]], [[(np.True_, 2)]], [[(0, 1, 2)]],
    [[(0, None)]], [None], [[(0, 1)], [{"start": 0, "end": 1}]], [[{"start": 0}]],
    [[{"start": 0, "end": False}]], [[(0, 2**63)]], ["[[0, 1]]"], [[np.array([0, 1])]],
])
def test_declines_what_it_cannot_vouch_for(examples):
    assert _via_flat(examples) is None


def test_messages_unchanged_for_bad_values():
    with pytest.raises(SpanValidationError, match=r"example 1, span 0: start True is a bool"):
        from_python([[(0, 1)], [(True, 2)]], "references")
    with pytest.raises(SpanValidationError, match=r"example 0, span 1: end 1.5 is not an "
                                                  r"integral number"):
        from_python([[(0, 1), (0, 1.5)]], "references")
    batch, _ = from_python([[(0, 2.0)]], "references")  # integral floats are accepted
    assert batch.ends.tolist() == [2]
