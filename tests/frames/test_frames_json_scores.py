"""Score columns of JSON strings (as CSV files hold them) are decoded as span columns
are, on pandas (object and Arrow string columns) and Polars (String), for ``evaluate``
with scores or a threshold and for ``sweep``; a cell that is not JSON is an error naming
the column and the row."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from _optional import pl

import mycelium

ROWS = {"ref": [[[0, 2]], [[2, 6]]], "text": ["abcdefghijklm", "abcdefgh"],
        "offs": [[[0, 2], [2, 4]], [[0, 2], [2, 4], [4, 8]]],
        "sc": [[0.9, 0.1], [0.2, 0.7, 0.6]],
        "soft": [[{"start": 0, "end": 2, "prob": 0.9}], [{"start": 2, "end": 7, "prob": 0.8}]]}
FORMS = {"tokens": dict(token_offsets_col="offs", token_scores_col="sc"),
         "soft": dict(soft_pred_col="soft")}


def _frame(as_json: bool, dtype=None) -> pd.DataFrame:
    df = pd.DataFrame(ROWS)
    if as_json:
        for c in ("ref", "offs", "sc", "soft"):
            df[c] = pd.Series([json.dumps(v) for v in df[c]], dtype=dtype)
    return df


def _results(df, form):
    kw = dict(text="text", **FORMS[form])
    ev = df.mycelium.evaluate("ref", threshold=0.5, metrics=["iou", "char_ap"], **kw)
    sw = df.mycelium.sweep("ref", metrics="iou", **kw)
    return list(ev["value"]), list(sw["value"]), list(sw["threshold"])


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_pandas_json_score_columns_equal_list_columns(form, dtype):
    assert _results(_frame(True, dtype), form) == _results(_frame(False), form)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_polars_json_score_columns_equal_list_columns(form):
    as_lists = pl.DataFrame(ROWS)
    as_json = pl.DataFrame({c: [json.dumps(v) if c != "text" else v for v in vals]
                            for c, vals in ROWS.items()})
    kw = dict(text="text", **FORMS[form])
    want = as_lists.mycelium.evaluate("ref", threshold=0.5, metrics="iou", **kw)
    got = as_json.mycelium.evaluate("ref", threshold=0.5, metrics="iou", **kw)
    assert got["value"].to_list() == want["value"].to_list()


def test_a_cell_that_is_not_json_is_named():
    df = _frame(True)
    df.loc[1, "sc"] = "[0.2, 0.7,"
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"token_scores example 1: Expected a JSON list in "
                       r"token_scores_col column 'sc', got '\[0.2, 0.7,' .*fix by writing "
                       r"the cell as JSON, e\.g\. \[0\.1, 0\.9\]"):
        df.mycelium.evaluate("ref", text="text", threshold=0.5, **FORMS["tokens"])
