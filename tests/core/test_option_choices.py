"""Option values outside their choices are refused with the valid ones and, for a near
miss, a "did you mean" (shared by evaluate, the frames and the command line)."""

from __future__ import annotations

import pandas as pd
import pytest

import mycelium

SPANS = ([[[0, 1]]], [[[0, 1]]])


@pytest.mark.parametrize("option, value, message", [
    ("average", "mirco", "average='mirco' is not supported; expected one of 'macro', "
                         "'micro'. Did you mean 'micro'?"),
    ("missing", "emtpy", "missing='emtpy' is not supported; expected one of 'error', "
                         "'empty', 'drop'. Did you mean 'empty'?"),
    ("granularity", "wrod", "granularity='wrod' is not supported; expected one of 'char', "
                            "'word', 'sentence'. Did you mean 'word'?"),
    ("average", "weighted", "average='weighted' is not supported; expected one of 'macro', "
                            "'micro'."),
    ("average", ["macro"], "average=['macro'] is not supported; expected one of 'macro', "
                           "'micro'."),
])
def test_did_you_mean(option, value, message):
    with pytest.raises(ValueError) as info:
        mycelium.evaluate(*SPANS, **{option: value})
    assert str(info.value) == message
    frame = pd.DataFrame({"r": SPANS[0], "p": SPANS[1]})
    with pytest.raises(ValueError) as info:
        frame.mycelium.evaluate("r", "p", **{option: value})
    assert str(info.value) == message
