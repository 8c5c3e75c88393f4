"""Shared data of the frame tests: one small dataset with soft labels, typed references,
multilingual texts, null group keys and shuffled ids, as pandas and Polars frames, and
helpers that compute the expected numbers with direct core calls, group by group."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium
from _optional import pl  # polars, or a stand-in that skips the test using it

SOFT_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                ("prob", pa.float64())]))
TYPED_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                 ("label_type", pa.string())]))
TYPES = ["Evident Conflict", "Subtle Baseless Info", None]
TEXTS = ["Alpha beta gamma. Delta epsilon! Zeta eta theta?",
         "中文没有空格。这是第二句！",
         "Hindi: नमस्ते दुनिया। Second sentence here.",
         "one two three four five six seven eight nine ten"]


def _spans(rng, n, k_max=3):
    out = []
    for _ in range(int(rng.integers(0, k_max + 1))):
        s = int(rng.integers(0, max(n - 1, 1)))
        out.append([s, min(n, s + int(rng.integers(1, 12)))])
    return out if n else []


def _soft(rng, spans):
    return [{"start": s, "end": e, "prob": float(np.round(rng.random(), 3))}
            for s, e in spans]


def make_rows(n=40, seed=3):
    """Rows as dicts: ref, pred, text, soft_ref, soft_pred, typed_ref, model, lang, id."""
    rng = np.random.default_rng(seed)
    models, langs = ["a", "b", None], ["en", "zh", None]
    ids = rng.permutation(1000)[:n] + 5
    rows = []
    for i in range(n):
        text = TEXTS[int(rng.integers(0, len(TEXTS)))]
        if i == 5:
            text = ""  # soft_spearman of an empty text is NaN, and so is its group's mean
        ref, pred = _spans(rng, len(text)), _spans(rng, len(text))
        if i % 4 == 0:
            pred = [list(s) for s in ref]
        typed = [{"start": s, "end": e, "label_type": TYPES[int(rng.integers(0, 3))]}
                 for s, e in ref]
        rows.append({"ref": ref, "pred": pred, "text": text, "soft_ref": _soft(rng, ref),
                     "soft_pred": _soft(rng, pred), "typed_ref": typed,
                     "model": models[int(rng.integers(0, 3))],
                     "lang": langs[int(rng.integers(0, 3))], "id": int(ids[i])})
    return rows


def column(rows, name):
    return [r[name] for r in rows]


def dicts(spans):
    return [{"start": s, "end": e} for s, e in spans]


# ---------------------------------------------------------------------- frames

def pandas_object(rows):
    """Object columns: span pairs, soft labels as lists of dicts."""
    return pd.DataFrame({name: column(rows, name) for name in rows[0]})


def pandas_arrow(rows):
    """Arrow-backed span and soft-label columns."""
    df = pandas_object(rows)
    df["ref"] = pd.Series(mycelium.to_spans(column(rows, "ref")),
                          dtype=pd.ArrowDtype(mycelium.SPAN_TYPE))
    df["pred"] = pd.Series(mycelium.to_spans(column(rows, "pred")),
                           dtype=pd.ArrowDtype(mycelium.SPAN_TYPE))
    for name in ("soft_ref", "soft_pred"):
        df[name] = pd.Series(pa.array(column(rows, name), SOFT_TYPE),
                             dtype=pd.ArrowDtype(SOFT_TYPE))
    df["typed_ref"] = pd.Series(pa.array(column(rows, "typed_ref"), TYPED_TYPE),
                                dtype=pd.ArrowDtype(TYPED_TYPE))
    return df


def pandas_json(rows):
    """JSON strings, as a CSV file gives them."""
    df = pandas_object(rows)
    for name in ("ref", "pred", "soft_ref", "soft_pred"):
        df[name] = [json.dumps(v) for v in df[name]]
    return df


def polars_frame(rows):
    c = {name: column(rows, name) for name in rows[0]}
    c["ref"] = [dicts(x) for x in c["ref"]]
    c["pred"] = [dicts(x) for x in c["pred"]]
    span = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))
    soft = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64, "prob": pl.Float64}))
    return pl.DataFrame(c, schema_overrides={
        "ref": span, "pred": span, "text": pl.String, "soft_ref": soft, "soft_pred": soft,
        "typed_ref": pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64,
                                        "label_type": pl.String})),
        "model": pl.String, "lang": pl.String, "id": pl.Int64})


FACES = {"pandas_object": pandas_object, "pandas_arrow": pandas_arrow,
         "pandas_json": pandas_json, "polars": polars_frame}


#: Float result columns (NaN there is a value, not a null key).
FLOATS = {"value", "ci_low", "ci_high", "value_a", "value_b", "difference", "p_value",
          "p_holm"}


def records(frame) -> list[dict]:
    """A pandas or Polars result as a list of dicts, null keys (NaN, NA) as None, null
    floats as NaN."""
    if isinstance(frame, pl.DataFrame):
        out = frame.to_dicts()
    else:
        out = frame.astype(object).to_dict("records")
    return [{k: _plain(v, k in FLOATS) for k, v in r.items()} for r in out]


def _plain(v, is_float=False):
    if v is None or v is pd.NA:
        # pa.Table.from_pandas (and so write_parquet of a pandas frame) stores NaN as a
        # null, which Polars and pandas' pyarrow backend read back as null: undefined
        # either way.
        return math.nan if is_float else None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v) and not is_float:
        return None
    return v


def same_records(got: list[dict], want: list[dict]) -> bool:
    """Equal lists of records, floats bit for bit (NaN equal to NaN)."""
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a.keys() != b.keys():
            return False
        for k in a:
            if isinstance(a[k], float) and isinstance(b[k], float):
                if not same(a[k], b[k]):
                    return False
            elif a[k] != b[k]:
                return False
    return True


# -------------------------------------------------------------------- groups

def group_rows(rows, by) -> dict[tuple, list[int]]:
    """Row positions of each group, keys in the frames' order (sorted, nulls last)."""
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(tuple(r[k] for k in by), []).append(i)
    order = sorted(groups, key=lambda key: tuple((v is None, v or "") for v in key))
    return {key: groups[key] for key in order}


def key_of(record, by) -> tuple:
    return tuple(record[k] for k in by)


def same(a, b) -> bool:
    """Bit-for-bit equality of two floats, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def flat(report) -> dict[tuple[str, str], float]:
    skip = ("meta", "ci", "by_type", "per_example")
    return {(m, k): v for m, meas in report.items() if m not in skip
            for k, v in meas.items()}
