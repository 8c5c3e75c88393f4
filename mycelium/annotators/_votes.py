"""Votes of many annotators as flat arrays: reading the ``annotations`` column, the
explicit cleaning of raw spans, merging an annotator's spans, and per-character vote
counts (an event sweep, no per-character arrays except the soft-label vectors Cor needs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.spans import SPAN_TYPE
from ..errors import SpanValidationError
from ..metrics.soft_spearman import cor

_BIG = np.int64(1) << 32
_PAST_END = ("error", "clip")
#: Arrow type of `mycelium.annotators.soft_reference`: ``{start, end, prob}`` runs.
SOFT_REFERENCE_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                          ("prob", pa.float64())]))


@dataclass(frozen=True)
class _Votes:
    """One row per (item, annotator): who, and the spans as flat arrays."""

    table: pd.DataFrame          # item, annotator, n_annotators, kept item columns
    lengths: np.ndarray          # text length per row
    texts: np.ndarray            # text per row (object)
    row: np.ndarray              # spans: owning row, start, end (cleaned, sorted)
    start: np.ndarray
    end: np.ndarray
    n_items: int
    clipped: int
    #: zero-length spans dropped (SPEC section 2: they carry no characters)
    empty: int = 0

    @property
    def told(self) -> dict[str, int]:
        """``attrs["mycelium_annotators"]`` of a result: the spans clipped at the end of
        their text and the zero-length spans dropped."""
        return {"clipped": self.clipped, "empty_spans": self.empty}

    def lists(self, rows: np.ndarray) -> list[list[tuple[int, int]]]:
        return _lists(self.row, self.start, self.end, len(self.table), rows)


_ROLES = ("annotator", "reference")


def _by(by) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _check_share(share) -> None:
    if isinstance(share, bool) or not isinstance(share, (int, float)) \
            or not 0.0 <= float(share) < 1.0:
        raise ValueError(f"Expected a vote share in [0, 1), got {share!r}, at share=; fix "
                         "by passing e.g. 0.5 (more than half of the annotators).")


def _votes(frame: pd.DataFrame, annotations: str, text: str, keep, past_end: str) -> _Votes:
    if past_end not in _PAST_END:
        raise ValueError(f"Expected past_end='error' or 'clip', got {past_end!r}, at "
                         "past_end=; fix by choosing one.")
    for col in (annotations, text, *keep):
        if col not in frame.columns:
            raise KeyError(f"Column {col!r} is not in the frame; columns: "
                           f"{list(frame.columns)}.")
    texts = frame[text].tolist()
    entries, item = _entries(frame[annotations])
    lengths = np.array([len(t) if isinstance(t, str) else -1 for t in texts], np.int64)
    if (lengths < 0).any():
        k = int(np.flatnonzero(lengths < 0)[0])
        raise TypeError(f"Expected a str in column {text!r}, got "
                        f"{type(texts[k]).__name__}, at row {k}; fix by giving every item "
                        "its text.")
    counts = np.bincount(item, minlength=len(frame))
    table = pd.DataFrame({c: frame[c].to_numpy()[item] for c in keep})
    table["item"] = item
    table["annotator"] = entries.field("annotator").to_pylist()
    table["n_annotators"] = counts[item]
    if table.duplicated(["item", "annotator"]).any():
        r = int(np.flatnonzero(table.duplicated(["item", "annotator"]).to_numpy())[0])
        raise ValueError(f"Expected one span list per annotator and item, got annotator "
                         f"{table['annotator'][r]!r} twice, at item {int(item[r])}; fix by "
                         "merging their span lists.")
    try:  # list<null> when no span was listed; int32 or extra fields from other sources
        spans = entries.field("spans").cast(SPAN_TYPE)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise TypeError(f"Expected each annotator's spans as [{{'start', 'end'}}], got "
                        f"Arrow type {entries.field('spans').type} ({exc}), at the "
                        "annotations column; fix by giving integer start and end.") from None
    row = pa.compute.list_parent_indices(spans).to_numpy().astype(np.int64)
    flat = spans.flatten()
    s = flat.field("start").to_numpy(zero_copy_only=False).astype(np.int64)
    e = flat.field("end").to_numpy(zero_copy_only=False).astype(np.int64)
    lens = lengths[item]
    empty = int((s == e).sum())  # as given, before any clipping
    row, s, e, clipped = _clean(row, s, e, lens, item, past_end)
    return _Votes(table, lens, np.asarray(texts, dtype=object)[item], row, s, e,
                  len(frame), clipped, empty)


def _entries(column: pd.Series) -> tuple[pa.Array, np.ndarray]:
    """The per-annotator entries of every item (flattened) and the item of each."""
    arr = pa.array(column.array) if isinstance(column.dtype, pd.ArrowDtype) \
        else pa.array(list(column))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count:
        k = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
        raise SpanValidationError(f"annotations example {k} is null; expected a list of "
                                  "annotators; fix by leaving items without annotations "
                                  "out.", side="annotations", example=k)
    ok = pa.types.is_list(arr.type) and pa.types.is_struct(arr.type.value_type) and \
        {"annotator", "spans"} <= {f.name for f in arr.type.value_type}
    if not ok:
        raise TypeError(f"Expected per item a list of {{'annotator', 'spans'}} (Mu-SHROOM's "
                        f"annotations), got Arrow type {arr.type}, at the annotations "
                        "column; fix by reading the files with mycelium.read_mushroom.")
    item = pa.compute.list_parent_indices(arr).to_numpy().astype(np.int64)
    return arr.flatten(), item


def _clean(row, s, e, lens, item, past_end):
    """Clip (if asked) and check spans, drop zero-length ones and duplicates, sort."""
    bad = (s < 0) | (e < s)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise SpanValidationError(f"annotations example {int(item[row[j]])}: [{s[j]}, "
                                  f"{e[j]}) is not a span; expected 0 <= start <= end.",
                                  side="annotations", example=int(item[row[j]]))
    over = e > lens[row]
    if over.any() and past_end == "error":
        j = int(np.flatnonzero(over)[0])
        raise SpanValidationError(
            f"annotations example {int(item[row[j]])}: end {e[j]} is past the end of the "
            f"text (length {lens[row[j]]}); expected end <= len(text); fix by passing "
            "past_end='clip' to clip such spans (they are counted).",
            side="annotations", example=int(item[row[j]]))
    e = np.minimum(e, lens[row])
    s = np.minimum(s, e)
    order = np.lexsort((e, s, row))
    row, s, e = row[order], s[order], e[order]
    dup = np.concatenate(([False], (row[1:] == row[:-1]) & (s[1:] == s[:-1])
                          & (e[1:] == e[:-1])))
    keep = (e > s) & ~dup
    return row[keep], s[keep], e[keep], int(over.sum())


def _merge(row, s, e):
    """Each row's overlapping and touching spans merged (input sorted by row, start)."""
    if row.size == 0:
        return row, s, e
    reach = np.maximum.accumulate(row * _BIG + e) - row * _BIG
    prev = np.concatenate(([-1], reach[:-1]))
    first = np.concatenate(([True], row[1:] != row[:-1])) | (s > prev)
    idx = np.flatnonzero(first)
    last = np.concatenate((idx[1:], [row.size])) - 1
    return row[idx], s[idx], reach[last]


def _ordered_pairs(item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)``: every ordered pair of different rows of the same item, by a then b."""
    rows = np.arange(item.size)
    left = pd.DataFrame({"item": item, "a": rows})
    both = left.merge(left.rename(columns={"a": "b"}), on="item")
    both = both[both["a"] != both["b"]].sort_values(["a", "b"], kind="stable")
    return both["a"].to_numpy(), both["b"].to_numpy()


def _coverage(v: _Votes, group_of_voter, n_groups, threshold, strict, voter_rows=None):
    """Vote counts per character: ``(majority (g, s, e), segments (g, s, e, count))``.

    Voter ``i`` votes in group ``group_of_voter[i]`` with the merged spans of row
    ``voter_rows[i]`` (default: row ``i``); a character is in the majority when its count
    exceeds (``strict``) or reaches the group's threshold.
    """
    mrow, ms, me = _merge(v.row, v.start, v.end)
    voters = np.arange(len(v.table)) if voter_rows is None else np.asarray(voter_rows)
    off = np.searchsorted(mrow, np.arange(len(v.table) + 1))
    counts = off[voters + 1] - off[voters]
    idx = np.repeat(off[voters] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    g = np.repeat(np.asarray(group_of_voter), counts)
    pos = np.concatenate((ms[idx], me[idx]))
    grp = np.concatenate((g, g))
    delta = np.concatenate((np.ones(idx.size, np.int64), -np.ones(idx.size, np.int64)))
    order = np.lexsort((pos, grp))
    pos, grp, delta = pos[order], grp[order], delta[order]
    new = np.concatenate(([True], (grp[1:] != grp[:-1]) | (pos[1:] != pos[:-1])))
    ids = np.cumsum(new) - 1
    pos, grp = pos[new], grp[new]
    count = np.cumsum(np.bincount(ids, weights=delta).astype(np.int64))
    seg = np.concatenate((grp[1:] == grp[:-1], [False])) & (count > 0)
    nxt = np.concatenate((pos[1:], [0]))
    sg, ss, se, sc = grp[seg], pos[seg], nxt[seg], count[seg]
    thr = np.asarray(threshold, dtype=np.float64)[sg]
    major = sc > thr if strict else sc >= thr
    return _merge(sg[major], ss[major], se[major]), (sg, ss, se, sc)


def _lists(row, s, e, n, rows) -> list[list[tuple[int, int]]]:
    per: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for r, a, b in zip(row.tolist(), s.tolist(), e.tolist()):
        per[r].append((a, b))
    return [per[r] for r in np.asarray(rows).tolist()]


def _arrow(row, s, e, n) -> pa.Array:
    offsets = np.searchsorted(row, np.arange(n + 1)).astype(np.int32)
    values = pa.StructArray.from_arrays([pa.array(s, pa.int64()), pa.array(e, pa.int64())],
                                        names=["start", "end"])
    return pa.ListArray.from_arrays(pa.array(offsets), values).cast(SPAN_TYPE)


def _soft_arrow(row, s, e, prob, n) -> pa.Array:
    offsets = np.searchsorted(row, np.arange(n + 1)).astype(np.int32)
    values = pa.StructArray.from_arrays(
        [pa.array(s, pa.int64()), pa.array(e, pa.int64()), pa.array(prob, pa.float64())],
        names=["start", "end", "prob"])
    return pa.ListArray.from_arrays(pa.array(offsets), values).cast(SOFT_REFERENCE_TYPE)


def _fill(row, s, e, values, lengths) -> list[np.ndarray]:
    vecs = [np.zeros(int(n), dtype=np.float64) for n in lengths]
    for r, a, b, x in zip(row.tolist(), s.tolist(), e.tolist(), np.asarray(values).tolist()):
        vecs[r][a:b] = x
    return vecs


def _binary(v: _Votes) -> list[np.ndarray]:
    return _fill(v.row, v.start, v.end, np.ones(v.row.size), v.lengths)


def _pair_cors(v: _Votes, ref: np.ndarray, det: np.ndarray) -> np.ndarray:
    """Cor of each pair's two annotators as probability-1 soft labels."""
    vecs = _binary(v)
    return np.array([cor(vecs[r], vecs[d]) if vecs[r].size else np.nan
                     for r, d in zip(ref.tolist(), det.tolist())], dtype=np.float64)
