"""Many small groups: every face's grouped values equal `mycelium.evaluate` on each group's
rows, bit for bit (the grouped means are exact long divisions in int64 columns, not one
Python division per group)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from _optional import pl

METRICS = ["iou", "character", "exact_span"]


def _rows(seed: int, n: int):
    rng = np.random.default_rng(seed)

    def spans():
        out = []
        for _ in range(int(rng.integers(0, 4))):
            s = int(rng.integers(0, 10**int(rng.integers(1, 7))))
            out.append([s, s + int(rng.integers(0, 10**int(rng.integers(1, 5))))])
        return out

    refs = [spans() for _ in range(n)]
    preds = [spans() for _ in range(n)]
    return refs, preds, rng.integers(0, max(n // 3, 1), n)


def _want(refs, preds, keys, average):
    out = {}
    for key in sorted(set(keys.tolist())):
        idx = np.flatnonzero(keys == key)
        report = mycelium.evaluate([refs[i] for i in idx], [preds[i] for i in idx],
                                   metrics=METRICS, average=average)
        for metric in METRICS:
            for measure, value in report[metric].items():
                out[(key, metric, measure)] = (value, len(idx))
    return out


def _check(got: list[tuple], want: dict, face: str):
    assert len(got) == len(want), face
    for key, metric, measure, value, examples in got:
        w, n = want[(key, metric, measure)]
        assert examples == n, (face, key)
        assert (math.isnan(value) and math.isnan(w)) or (
            value == w and math.copysign(1.0, value) == math.copysign(1.0, w)), \
            (face, key, metric, measure, value, w)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.sampled_from(["macro", "micro"]))
def test_many_small_groups_equal_evaluate_per_group_on_every_face(seed, n, average):
    refs, preds, keys = _rows(seed, n)
    want = _want(refs, preds, keys, average)
    cols = ["g", "metric", "measure", "value", "examples"]
    frame = pd.DataFrame({"ref": refs, "pred": preds, "g": keys})
    got = frame.mycelium.evaluate("ref", "pred", by="g", metrics=METRICS, average=average)
    _check(list(got[cols].itertuples(index=False, name=None)), want, "pandas")
    pframe = pl.DataFrame({"ref": refs, "pred": preds, "g": keys},
                          schema_overrides={"ref": pl.List(pl.List(pl.Int64)),
                                            "pred": pl.List(pl.List(pl.Int64))})
    eager = pframe.mycelium.evaluate("ref", "pred", by="g", metrics=METRICS, average=average)
    _check(eager.select(cols).rows(), want, "polars")
    lazy = pframe.lazy().mycelium.evaluate("ref", "pred", by="g", metrics=METRICS,
                                           average=average).collect()
    _check(lazy.select(cols).rows(), want, "polars lazy")
