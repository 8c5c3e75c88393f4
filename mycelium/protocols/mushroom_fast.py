"""The columnar path of `mycelium.protocols.mushroom.score_files`: Arrow reads, numpy scores.

`score_columnar` reads both files with ``pyarrow.json`` under an explicit schema and
scores every example at once: IoU from merged span lengths, Cor from
`mycelium.metrics._soft_runs.cor_runs`. It serves only files it can vouch for: it
returns None (and `score_files` takes the record-by-record path, whose errors name the
file, line, id and field) as soon as anything is unusual — Arrow cannot read a file, a
line holds other than one object, a field is missing on some lines, null, repeated or of
another type, an id is repeated or unmatched, or a span or probability is out of range.
For the files it serves, the result is the record path's to the last bit (a test
compares both on the official data).

With ``float_parse="pandas-fast"`` the probabilities are not Arrow's (correctly rounded)
values but those of the official reader's parser: every ``"prob":`` value is found in the
file's bytes and parsed by `mycelium.io.float_parse.pandas_fast_values`. The values
found must be as many as Arrow's and, one by one, within 1e-14 of them, or the record
path decides.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ..io._records import object_lines
from ..io.float_parse import FloatParseError, key_value_starts, pandas_fast_values
from ..metrics._soft_runs import cor_runs
from ..metrics.soft_spearman import cor

__all__ = ["score_columnar"]  # and helpers of mycelium.protocols.mushroom

_SOFT = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                            ("prob", pa.float64())]))
_HARD = pa.list_(pa.list_(pa.int64()))
_FIELDS = {"id": pa.string(), "model_output_text": pa.string(), "hard_labels": _HARD,
           "soft_labels": _SOFT}


class _Decline(Exception):
    """The columnar path does not serve these files; the record path will."""


def score_columnar(ref_path, pred_path, order, *, float_parse: str = "exact"):
    """``(ids, iou, cor)`` of the two files (ids sorted by ``order``, the official
    order), or None when the record path must decide."""
    try:
        return _score(Path(ref_path), Path(pred_path), order, float_parse)
    except (_Decline, OSError, pa.ArrowException, ValueError, TypeError, KeyError,
            OverflowError, MemoryError, FloatParseError):
        return None


def _read(path: Path, fields: tuple[str, ...], float_parse: str
          ) -> tuple[pa.Table, dict[str, bool], np.ndarray | None]:
    """The table of ``fields``, which of them the file has, and (pandas-fast) the
    probabilities of the soft labels as the official reader reads them."""
    data = path.read_bytes()
    schema = pa.schema([(f, _FIELDS[f]) for f in fields])
    table = pj.read_json(io.BytesIO(data), parse_options=pj.ParseOptions(
        explicit_schema=schema, unexpected_field_behavior="ignore"))
    # The record reader decodes whole lines: bad UTF-8 in a skipped field is its error.
    _check_utf8(data)
    rows = table.num_rows
    if rows == 0 or rows != object_lines(data):
        raise _Decline
    present = {}
    for f in fields:
        nulls = table.column(f).null_count
        if nulls == 0:  # a value on every line (a repeated key is an Arrow error)
            present[f] = True
        elif nulls == rows and b'"' + f.encode() + b'"' not in data:
            present[f] = False  # never written (not merely null)
        else:
            raise _Decline
    probs = None
    if float_parse == "pandas-fast" and present.get("soft_labels"):
        probs = _fast_probs(data, table.column("soft_labels"))
    return table, present, probs


def _fast_probs(data: bytes, column) -> np.ndarray:
    """The soft spans' probabilities as pandas' fast parser reads them, in Arrow's order.

    Quirk of the official Mu-SHROOM scorer: it reads with ``pandas.read_json``, whose
    default parser keeps 15 fraction digits and rounds on the way (see
    `mycelium.io.float_parse`); the values are found in the bytes, since Arrow's are
    correctly rounded and cannot be turned back into the text."""
    inner, _ = _list_offsets(column)
    field = inner.field("prob")
    if inner.null_count or field.null_count:
        raise _Decline
    exact = field.to_numpy(zero_copy_only=False).astype(np.float64)
    starts = key_value_starts(data, "prob")
    if starts.size != exact.size:
        raise _Decline  # a "prob" key elsewhere, or one Arrow reads that is spelt otherwise
    values, _ = pandas_fast_values(np.frombuffer(data, dtype=np.uint8), starts)
    # The values found must be the ones Arrow read, one by one: the fast reading is
    # within 1e-14 (relative, and absolute below 1) of the exact one unless the text has
    # more than 15 fraction digits that matter, which the record path then reads.
    if not np.allclose(values, exact, rtol=1e-14, atol=1e-14, equal_nan=True):
        raise _Decline
    return values


def _check_utf8(data: bytes) -> None:
    """Raise ``pa.ArrowInvalid`` unless ``data`` is UTF-8: Arrow validates the bytes as
    one string value in place (no copy of the file)."""
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64))
    whole = pa.LargeBinaryArray.from_buffers(pa.large_binary(), 1,
                                             [None, offsets, pa.py_buffer(data)])
    whole.cast(pa.large_string())


def _score(ref_path: Path, pred_path: Path, order, float_parse: str):
    refs, have, ref_probs = _read(ref_path, ("id", "model_output_text", "hard_labels",
                                             "soft_labels"), float_parse)
    if not all(have.values()):
        raise _Decline
    preds, pred_have, pred_probs = _read(pred_path, ("id", "hard_labels", "soft_labels"),
                                         float_parse)
    if not pred_have["id"] or not (pred_have["hard_labels"] or pred_have["soft_labels"]):
        raise _Decline
    ref_ids = refs.column("id").to_pylist()
    pred_ids = preds.column("id").to_pylist()
    ref_at = {k: i for i, k in enumerate(ref_ids)}
    pred_at = {k: i for i, k in enumerate(pred_ids)}
    if len(ref_at) != len(ref_ids) or len(pred_at) != len(pred_ids) or ref_at.keys() != \
            pred_at.keys():
        raise _Decline
    ids = order(ref_ids)
    # Scored in the reference file's order, the predictions' spans brought to it (a
    # gather of their flat arrays, none when the files share an order); the
    # per-example values are then put in the official order.
    n = pc.utf8_length(refs.column("model_output_text")).to_numpy().astype(np.int64)
    to_ref = np.array([pred_at[i] for i in ref_ids], dtype=np.int64)
    n_pred = np.empty_like(n)
    n_pred[to_ref] = n
    ref_hard = _pairs(refs.column("hard_labels"), n)
    ref_soft = _soft(refs.column("soft_labels"), n, ref_probs)
    if pred_have["hard_labels"]:
        pred_hard = _take_rows(_pairs(preds.column("hard_labels"), n_pred), to_ref)
    if pred_have["soft_labels"]:
        pred_soft = _take_rows(_soft(preds.column("soft_labels"), n_pred, pred_probs),
                               to_ref)
    if not pred_have["hard_labels"]:
        # Quirk of the official Mu-SHROOM scorer (recompute_hard_labels): hard labels are
        # the soft spans with prob > 0.5, a span starting at the previous one's end
        # extending it; as an index set that is the union of those spans.
        off, s, e, p = pred_soft
        kept = p > 0.5
        pred_hard = (_kept_offsets(off, kept), s[kept], e[kept])
    if not pred_have["soft_labels"]:
        off, s, e = pred_hard
        pred_soft = (off, s, e, np.ones(s.size))
    iou = _iou(ref_hard, pred_hard, n.size)
    scores = cor_runs(n, ref_soft, pred_soft, slow=cor)
    official = np.array([ref_at[i] for i in ids], dtype=np.int64)
    return ids, iou[official].tolist(), scores[official].tolist()


def _take_rows(flat: tuple, rows: np.ndarray) -> tuple:
    """Flat per-example spans ``(offsets, *columns)`` with the examples ``rows``."""
    offsets, *columns = flat
    if np.array_equal(rows, np.arange(rows.size)):
        return flat
    counts = np.diff(offsets)[rows]
    out = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    at = np.repeat(offsets[:-1][rows] - out[:-1], counts) + np.arange(out[-1])
    return (out, *(c[at] for c in columns))


def _list_offsets(column) -> tuple[pa.Array, np.ndarray]:
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    counts = pc.list_value_length(arr).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return arr.flatten(), offsets


def _pairs(column, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``[[start, end], ...]`` per example as (offsets, starts, ends), checked."""
    inner, offsets = _list_offsets(column)
    if inner.null_count or (len(inner) and pc.min_max(pc.list_value_length(inner)).as_py()
                            != {"min": 2, "max": 2}):
        raise _Decline
    values = inner.flatten()
    if values.null_count:
        raise _Decline
    flat = values.to_numpy().reshape(-1, 2)
    s, e = flat[:, 0].copy(), flat[:, 1].copy()
    _check(offsets, s, e, n)
    return offsets, s, e


def _soft(column, n, probs: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """``[{start, end, prob}, ...]`` per example as (offsets, starts, ends, probs);
    ``probs`` (when given) replaces the column's probabilities."""
    inner, offsets = _list_offsets(column)
    if inner.null_count:
        raise _Decline
    fields = [inner.field(f) for f in ("start", "end", "prob")]
    if any(f.null_count for f in fields):
        raise _Decline
    s, e, p = (f.to_numpy(zero_copy_only=False) for f in fields)
    if probs is not None:
        p = probs
    _check(offsets, s, e, n)
    if not ((p >= 0.0) & (p <= 1.0)).all():
        raise _Decline
    return offsets, s.astype(np.int64), e.astype(np.int64), p.astype(np.float64)


def _check(offsets, s, e, n) -> None:
    limit = np.repeat(n, np.diff(offsets))
    if not ((s >= 0) & (s <= e) & (e <= limit)).all():
        raise _Decline


def _kept_offsets(offsets, kept) -> np.ndarray:
    ex = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    out = np.zeros(offsets.size, dtype=np.int64)
    np.cumsum(np.bincount(ex[kept], minlength=offsets.size - 1), out=out[1:])
    return out


def _iou(ref, pred, m: int) -> np.ndarray:
    """Per-example IoU of the index sets of two span batches (1.0 when both are empty)."""
    ea, eb = (np.repeat(np.arange(m, dtype=np.int64), np.diff(o)) for o in (ref[0], pred[0]))
    a = _covered(ea, ref[1], ref[2], m)
    b = _covered(eb, pred[1], pred[2], m)
    union = _covered(np.concatenate([ea, eb]), np.concatenate([ref[1], pred[1]]),
                     np.concatenate([ref[2], pred[2]]), m)
    inter = a + b - union
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / union
    return np.where(union == 0, 1.0, out)


def _covered(ex, s, e, m: int) -> np.ndarray:
    """Characters covered by each example's spans (the size of their union), int64."""
    keep = s < e
    ex, s, e = ex[keep], s[keep], e[keep]
    out = np.zeros(m, dtype=np.int64)
    if s.size == 0:
        return out
    width = int(e.max()) + 1
    if ((ex[1:] > ex[:-1]) | ((ex[1:] == ex[:-1]) & (s[1:] >= s[:-1]))).all():
        pass  # already in (example, start) order, as span lists usually are
    else:
        order = np.lexsort((s, ex))
        ex, s, e = ex[order], s[order], e[order]
    ks, ke = ex * width + s, ex * width + e
    reach = np.maximum.accumulate(ke)
    head = np.ones(ks.size, dtype=bool)
    head[1:] = ks[1:] > reach[:-1]
    heads = np.flatnonzero(head)
    tails = np.append(heads[1:], ks.size) - 1
    np.add.at(out, ex[heads], reach[tails] - ks[heads])
    return out


# ------------------------------------------------- shared with the record path

def _official_order(ids: list[str]) -> list[str]:
    # Quirk of the official Mu-SHROOM scorer: pandas reads integer-looking ids as int64,
    # so they sort numerically; other ids sort as strings. Only the order of the mean's
    # summation depends on this.
    if ids and all(_is_int(i) for i in ids):
        return sorted(ids, key=int)
    return sorted(ids)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _hard_batch(pairs: list, lengths: list[int]) -> tuple[int, list | None]:
    """Every prediction's hard labels converted at once, and the position of the first
    record whose labels are invalid (``len(pairs)`` when none is). From that record on
    (or for every record, when the batch is not plain integer pairs) each is checked
    alone, so errors still come in record order, with the record's own message."""
    labels = [p["hard_labels"] for _, p in pairs]
    if not all(isinstance(x, list) for x in labels):
        return 0, None
    try:
        arr = pa.array(labels)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return 0, None
    if pa.types.is_list(arr.type) and pa.types.is_null(arr.type.value_type):
        return len(pairs), [[] for _ in labels]  # no spans at all
    if arr.type != _INT_PAIRS:
        return 0, None
    inner = arr.flatten()
    if inner.null_count or (len(inner) and pc.min_max(pc.list_value_length(inner)).as_py()
                            != {"min": 2, "max": 2}) or inner.flatten().null_count:
        return 0, None
    flat = inner.flatten().to_numpy().reshape(-1, 2)
    counts = np.array([len(x) for x in labels], dtype=np.int64)
    s, e = flat[:, 0], flat[:, 1]
    bad = (s < 0) | (s > e) | (e > np.repeat(np.array(lengths, dtype=np.int64), counts))
    first = len(pairs)
    if bad.any():
        first = int(np.searchsorted(np.cumsum(counts), int(np.flatnonzero(bad)[0]),
                                    side="right"))
    pairs_list = flat.tolist()
    ends = np.cumsum(counts).tolist()
    return first, [pairs_list[b - c:b] for b, c in zip(ends, counts.tolist())]


_INT_PAIRS = pa.list_(pa.list_(pa.int64()))
