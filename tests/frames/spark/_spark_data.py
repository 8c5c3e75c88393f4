"""Rows of the Spark tests: edge cases, null keys and ids, as one Arrow table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium

TEXT_LEN = 48
EDGE = [  # (ref, pred, model, lang)
    ([], [], None, None),                         # both empty: IoU 1.0, P/R 0/0
    ([[0, 10]], [], "a", 1),                      # no prediction
    ([], [[3, 5]], "a", None),                    # no reference
    ([[0, 10]], [[0, 5], [5, 10]], "b", 2),       # split
    ([[0, 4], [5, 10]], [[0, 10]], None, 2),      # merge
    ([[2, 2], [0, 3], [0, 3]], [[1, 3], [1, 3]], "b", 1),  # zero-length, duplicates
    ([[0, 10]], [[2, 8]], "c", None),             # the seed example
    ([[0, 5]], [], "d", 3),                       # a group without predictions
]


def _spans(rng, k_max=4, hi=40):
    out = []
    for _ in range(int(rng.integers(0, k_max + 1))):
        s = int(rng.integers(0, hi))
        out.append({"start": s, "end": s + int(rng.integers(0, 9))})
    return out


def _structs(spans):
    return [{"start": s, "end": e} for s, e in spans]


def make_table(n: int = 60, seed: int = 7, *, null_spans: bool = False) -> pa.Table:
    """``n`` rows: ``id, model, lang, text, ref, pred`` (keys with nulls).

    With ``null_spans`` a few span lists are null (for ``missing=``).
    """
    rng = np.random.default_rng(seed)
    rows = [(_structs(r), _structs(p), m, g) for r, p, m, g in EDGE]
    models, langs = ["a", "b", "c", None], [1, 2, None]
    while len(rows) < n:
        rows.append((_spans(rng), _spans(rng), models[int(rng.integers(0, 4))],
                     langs[int(rng.integers(0, 3))]))
    refs, preds, model, lang = (list(c) for c in zip(*rows[:n]))
    if null_spans:
        refs[9], preds[12], refs[20], preds[20] = None, None, None, None
    return pa.table({
        "id": pa.array([f"ex-{i}" for i in range(n)], pa.string()),
        "model": pa.array(model, pa.string()),
        "lang": pa.array(lang, pa.int64()),
        "text": pa.array(["x" * TEXT_LEN] * n, pa.string()),
        "ref": pa.array(refs, mycelium.SPAN_TYPE),
        "pred": pa.array(preds, mycelium.SPAN_TYPE),
    })


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """The table as pandas, span columns as ``ArrowDtype(SPAN_TYPE)``, integer keys with
    nulls as ``Int64`` (as Spark's ``bigint`` keys come back), not as floats."""
    return table.to_pandas(types_mapper=lambda t: pd.ArrowDtype(t) if pa.types.is_list(t)
                           else pd.Int64Dtype() if t == pa.int64() else None)
