"""``mycelium evaluate`` of one JSON-lines file in batches: memory bounded by a batch.

A file of 2,000,000 rows and 12,000,000 spans read whole, then scored whole, holds the
table, its canonical span copies and their merges at once (2.1-2.3 GB). Here the file's
record batches (`mycelium.cli.read.open_jsonl_blocks`) are scored `_BATCH_ROWS` rows at a
time; each batch leaves only its per-row statistics, a few integers per row and metric,
and the group-key values. `mycelium.frames.engine.table_of_statistics` then reduces the
concatenated statistics exactly as ``df.mycelium.evaluate`` reduces those of all rows at
once: per-row statistics do not depend on the other rows, and the group sums are exact,
so the result is the in-memory one bit for bit (warnings included: they are raised once,
from the concatenated statistics).

The batches never decide an error. Whatever the batched path cannot vouch for — options
that need other rows or columns (`streamable`), a block whose values Arrow may have
altered, any exception — sends the command to the in-memory path
(`mycelium.cli.evaluate`), which reads the file again and gives its result or its
precise ``file, row, column`` error. Reading twice is the price of a bad file only.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.inputs import to_spans
from ..core.pipeline import EmptyAt, compute_statistics, warn_empty_spans
from ..core.settings import Settings, resolve_settings
from ..evaluate import prepare_for
from ..frames import engine as frames
from ..frames.scores import wanted
from ..frames.to_pandas import tidy_to_pandas, with_signature_column
from ..io.records import object_lines_in
from .args import options_of
from .read import chunk_kind, float_rule, json_column, open_jsonl_blocks

__all__ = ["streamable", "evaluate_streamed"]

#: Rows scored at a time: the span columns, canonical copies and merges of this many rows
#: are all the batched path holds beside the per-row statistics.
_BATCH_ROWS = 1 << 16
_JSONL = (".jsonl", ".ndjson", ".json")


def streamable(args: argparse.Namespace) -> bool:
    """Whether ``mycelium evaluate`` may score ``args`` batch by batch: one uncompressed
    JSON-lines file (REFS only) scored with span columns. Not: two files (pairing by id or
    position needs both files' rows), CSV (typed reading infers each column's type from all
    its cells), Parquet (read whole as Arrow columns already: compact, and its metadata
    restored), standard input (read once), intervals (``--ci`` resamples all rows),
    soft labels and scores (`mycelium.frames.scores`: ranked over all of a group's rows),
    the per-type rows (``--type-field``: each type's examples are filtered from all rows),
    numbers read otherwise than exactly (``mu_shroom``'s rule: the records are read one by
    one)."""
    return (args.preds is None and args.refs != "-" and float_rule(args) == "exact"
            and Path(args.refs).suffix.lower() in _JSONL
            and args.ci is None and args.soft_ref_col is None
            and getattr(args, "type_field", None) is None
            and not wanted(args.pred_col, args.soft_ref_col, args.soft_pred_col,
                           getattr(args, "token_offsets_col", None),
                           getattr(args, "token_scores_col", None),
                           getattr(args, "threshold", None), args.metrics,
                           profile=args.profile))


class _Refused(Exception):
    """The batched path cannot vouch for this file: the in-memory path decides."""


def evaluate_streamed(args: argparse.Namespace) -> pd.DataFrame | None:
    """``df.mycelium.evaluate``'s result for `streamable` ``args``, scored in batches, or
    None when the in-memory path must decide (an error, or a block the batched path
    refuses); see the module notes."""
    with warnings.catch_warnings(record=True) as caught:  # told once: on success
        warnings.simplefilter("always")
        try:
            result = _evaluate(args)
        except Exception:  # the in-memory path raises the error, named by file and row
            return None
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result


def _evaluate(args: argparse.Namespace) -> pd.DataFrame:
    settings = resolve_settings(**options_of(args))
    path = Path(args.refs)
    reader = open_jsonl_blocks(path)
    names = reader.schema.names
    wanted_cols = [args.ref_col, args.pred_col, *args.by] + (
        [] if args.text_col is None else [args.text_col])
    frames.normalize_by(args.by)  # raises for a name the result would overwrite
    if not all(name in names for name in wanted_cols):
        raise _Refused
    stats: list[dict] = []
    kept: list[np.ndarray] = []
    empties: list[tuple[tuple[int, int], EmptyAt | None]] = []
    keys: dict[str, list[pa.Array]] = {name: [] for name in args.by}
    pending: list[pa.RecordBatch] = []
    rows = 0
    for block in reader:
        block.validate(full=True)  # Arrow's JSON reader leaves bad UTF-8 to be found
        kinds = {name: chunk_kind(block.column(i)) for i, name in enumerate(names)}
        if (None in kinds.values() or kinds[args.ref_col] != "spans"
                or kinds[args.pred_col] != "spans"
                or any(kinds[n] == "spans" for n in wanted_cols[2:])):
            raise _Refused
        for name in args.by:
            keys[name].append(block.column(name))
        pending.append(block)
        rows += block.num_rows
        if sum(b.num_rows for b in pending) >= _BATCH_ROWS:
            _score(pending, args, settings, stats, kept, empties)
            pending = []
    if pending:
        _score(pending, args, settings, stats, kept, empties)
    if rows == 0 or rows != object_lines_in(path):
        raise _Refused  # blank or split lines: the line-by-line reader decides
    _warn_empty_once(empties)
    return _result(stats, np.concatenate(kept), keys, args, settings, rows)


def _warn_empty_once(empties: list[tuple[tuple[int, int], EmptyAt | None]]) -> None:
    """One `mycelium.EmptySpanWarning` for the whole file, as the in-memory path gives:
    the counts of every batch, and the first reference span if any batch has one, else
    the first prediction span (each batch names its reference spans first)."""
    refs = sum(counts[0] for counts, _ in empties)
    preds = sum(counts[1] for counts, _ in empties)
    if refs + preds == 0:
        return
    side = "references" if refs else "predictions"
    first = next(at for _, at in empties if at is not None and at.side == side)
    warn_empty_spans((refs, preds), first)


def _score(blocks: list[pa.RecordBatch], args, settings: Settings, stats: list[dict],
           kept: list[np.ndarray], empties: list) -> None:
    """One batch of rows → its per-row statistics (the in-memory path's conversions)."""
    table = pa.Table.from_batches(blocks)

    def spans(name: str) -> pd.Series:
        column = pd.Series(pd.arrays.ArrowExtensionArray(table.column(name)))
        return pd.Series(pd.arrays.ArrowExtensionArray(to_spans(column)))

    text = None
    if args.text_col is not None:
        text = _series(json_column(table.column(args.text_col).to_pylist()))
        if not (pd.api.types.is_string_dtype(text.dtype) and text.dtype != object) and any(
                not isinstance(v, str) and v is not None for v in text.tolist()):
            raise _Refused  # the in-memory path names the row and its value
    prepared = prepare_for(spans(args.ref_col), spans(args.pred_col), settings, text=text,
                           warn_empty=False)  # told once for the file (_warn_empty_once)
    before = sum(k.size for k in kept)  # rows of the earlier batches
    at = prepared.first_empty
    empties.append((prepared.empty_spans,
                    None if at is None else at._replace(example=at.example + before)))
    stats.append(compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                    settings.params))
    kept.append(prepared.kept)


def _series(values) -> pd.Series:
    return values if isinstance(values, pd.Series) else pd.Series(values)


def _result(stats: list[dict], kept: np.ndarray, keys: dict[str, list[pa.Array]], args,
            settings: Settings, rows: int) -> pd.DataFrame:
    """The tidy frame of the concatenated statistics, as the pandas accessor makes it."""
    first = stats[0]
    whole = {m: {k: np.concatenate([s[m][k] for s in stats]) for k in first[m]}
             for m in first}
    columns = {name: _series(json_column(pa.chunked_array(chunks).to_pylist()))
               for name, chunks in keys.items()}
    groups = (frames.group_codes(frames.key_table(columns), rows) if columns
              else frames.group_codes(None, rows))
    table = frames.table_of_statistics(whole, settings, kept, groups)
    dtypes = {n: c.dtype for n, c in columns.items()}
    return with_signature_column(tidy_to_pandas(table, dtypes))
