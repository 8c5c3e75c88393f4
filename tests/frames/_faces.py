"""Shared data and helpers of the front-end tests: one dataset, every face, one row format.

Every face's tidy result is normalised to a list of tuples
``(*keys, metric, measure, value, examples, average, profile)`` in the face's own row
order, with null keys (None, NaN, pd.NA) as None, so results of different faces can be
compared with ``==`` on everything but the values, and bit for bit on the values.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium
from mycelium.metrics import fixed_average
from _optional import pl  # polars, or a stand-in that skips the test using it

KEYS = ("model", "lang")
TEXT_LEN = 48


def _spans(rng, k_max=4, hi=40):
    out = []
    for _ in range(int(rng.integers(0, k_max + 1))):
        s = int(rng.integers(0, hi))
        out.append([s, s + int(rng.integers(0, 9))])
    return out


def make_rows(n=36, seed=7):
    """Rows ``(ref, pred, text, model, lang)`` with edge cases and null keys."""
    rng = np.random.default_rng(seed)
    edge = [
        ([], [], None, None),                         # both empty: IoU 1.0, P/R 0/0
        ([[0, 10]], [], "a", 1),                      # no prediction
        ([], [[3, 5]], "a", None),                    # no reference
        ([[0, 10]], [[0, 5], [5, 10]], "b", 2),       # split
        ([[0, 4], [5, 10]], [[0, 10]], None, 2),      # merge
        ([[2, 2], [0, 3], [0, 3]], [[1, 3], [1, 3]], "b", 1),  # zero-length, duplicates
        ([[0, 10]], [[2, 8]], "c", None),             # the seed example
        ([[0, 5]], [], "d", 3),                       # a group without predictions
    ]
    rows = [(r, p, "x" * TEXT_LEN, m, g) for r, p, m, g in edge]
    models = ["a", "b", "c", None]
    langs = [1, 2, None]
    for _ in range(n - len(rows)):
        rows.append((_spans(rng), _spans(rng), "x" * TEXT_LEN,
                     models[int(rng.integers(0, 4))], langs[int(rng.integers(0, 3))]))
    return rows


def columns(rows):
    refs, preds, texts, models, langs = (list(c) for c in zip(*rows))
    return {"ref": refs, "pred": preds, "text": texts, "model": models, "lang": langs}


def as_dicts(spans):
    return [{"start": s, "end": e} for s, e in spans]


# ---------------------------------------------------------------------- frames

def pandas_object(rows):
    return pd.DataFrame(columns(rows))


def pandas_arrow(rows):
    c = columns(rows)
    dtype = pd.ArrowDtype(mycelium.SPAN_TYPE)
    return pd.DataFrame({**c, "ref": pd.Series(mycelium.to_spans(c["ref"]), dtype=dtype),
                         "pred": pd.Series(mycelium.to_spans(c["pred"]), dtype=dtype)})


def pandas_json(rows):
    c = columns(rows)
    return pd.DataFrame({**c, "ref": [json.dumps(x) for x in c["ref"]],
                         "pred": [json.dumps([{"start": s, "end": e} for s, e in x])
                                  for x in c["pred"]]})


def polars_span_dtype():
    return pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))


def polars_frame(rows):
    c = columns(rows)
    SPAN_DTYPE = polars_span_dtype()
    return pl.DataFrame(
        {**c, "ref": [as_dicts(x) for x in c["ref"]], "pred": [as_dicts(x) for x in c["pred"]]},
        schema={"ref": SPAN_DTYPE, "pred": SPAN_DTYPE, "text": pl.String,
                "model": pl.String, "lang": pl.Int64})


# ---------------------------------------------------------------- normalising

def null_key(v):
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return int(v)
    if isinstance(v, np.integer):
        return int(v)
    return v


def tidy_rows(frame, by):
    """A pandas or Polars tidy frame as a list of tuples (keys normalised)."""
    if isinstance(frame, pl.DataFrame):
        records = frame.rows()
    else:
        records = list(frame.itertuples(index=False, name=None))
    names = list(frame.columns)
    assert names == [*by, "metric", "measure", "value", "examples", "average", "profile",
                     "signature"]
    k = len(by)
    return [tuple(null_key(v) for v in r[:k]) + tuple(r[k:]) for r in records]


def sort_key(key):
    return tuple((v is None, v) for v in key)


def truth_rows(rows, by, form=list, **options):
    """`mycelium.evaluate` on each group's rows separately, in sorted key order.

    ``form`` turns a group's span lists into the input handed to evaluate (lists by
    default; `arrow_spans` for Arrow arrays).
    """
    c = columns(rows)
    groups: dict[tuple, list[int]] = {}
    for i in range(len(rows)):
        groups.setdefault(tuple(c[name][i] for name in by), []).append(i)
    out = []
    for key in sorted(groups, key=sort_key):
        idx = groups[key]
        report = mycelium.evaluate(form([c["ref"][i] for i in idx]),
                                   form([c["pred"][i] for i in idx]),
                                   text=[c["text"][i] for i in idx], **options)
        meta = report["meta"]
        for metric, measures in report.items():
            if metric in ("meta", "per_example"):
                continue
            for measure, value in measures.items():
                # pooled metrics (response_level) are micro whatever the average
                average = fixed_average(metric) or meta["average"]
                out.append(key + (metric, measure, value, meta["examples"], average,
                                  meta["profile"], meta["signature"]))
    return out


def same_float(a, b) -> bool:
    """Bit-for-bit equality of two floats, with NaN == NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def assert_same_rows(got, want, face=""):
    assert len(got) == len(want), f"{face}: {len(got)} rows, expected {len(want)}"
    for g, w in zip(got, want):
        k = len(g) - 7  # after the keys: metric ... profile, signature
        assert g[:k] == w[:k] and g[k:k + 2] == w[k:k + 2], f"{face}: {g} != {w}"
        assert same_float(g[k + 2], w[k + 2]), f"{face}: value {g} != {w}"
        assert g[k + 3:] == w[k + 3:], f"{face}: {g} != {w}"


def arrow_spans(spans):
    return pa.array([as_dicts(x) for x in spans], mycelium.SPAN_TYPE)
