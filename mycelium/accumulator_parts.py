"""The pieces of `mycelium.Accumulator` that are not its API: what every batch's score
plan must share, concatenating the batches' score pieces, and the Arrow forms of the
statistics written by ``to_bytes``."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa

from . import scoring
from .core.scores import ScoreRuns, concat_runs


def _plan_key(plan) -> tuple | None:
    """What every batch must share of its `mycelium.scoring.ScorePlan` (plain values)."""
    if plan is None:
        return None
    t = plan.threshold
    return (plan.form_name, None if t is None else float(t), getattr(t, "metric", None),
            plan.has_spans, tuple(plan.extra),
            None if plan.span_names is None else tuple(plan.span_names), plan.placeholder)


def _plan_of(key: tuple | None):
    """The `ScorePlan` of a `_plan_key` (without the score data, which compute needs not)."""
    if key is None:
        return None
    form_name, t, tuned, has_spans, extra, span_names, placeholder = key
    form = None if form_name is None else (
        {"soft_predictions": None} if form_name == "soft" else {"token_offsets": None})
    threshold = t if tuned is None or t is None else scoring.Tuned(t, tuned)
    return scoring.ScorePlan(form, threshold, has_spans, list(extra),
                             None if span_names is None else list(span_names), placeholder)


def _said(key: tuple | None) -> str:
    if key is None:
        return "predicted spans"
    form, t = key[0], key[1]
    return (f"{form or 'no'} scores" + ("" if t is None else f" at threshold {t!r}")
            + ("" if key[3] or t is not None else ", no predictions"))


def _concat_runs(parts: list[ScoreRuns | None]) -> ScoreRuns | None:
    """The pieces of every batch's examples, renumbered after one another."""
    if any(r is None for r in parts):
        return None
    return concat_runs([r for r in parts if r is not None])


def _ipc(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _concat(arrays: list[np.ndarray]) -> np.ndarray:
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _arrow(values: np.ndarray) -> pa.Array:
    """int64 and float64 columns as they are; exact Python ints beyond int64 as strings."""
    if values.dtype == object:
        return pa.array([str(v) for v in values.tolist()], pa.string()).cast(pa.large_string())
    return pa.array(values)


def _numpy(column: pa.ChunkedArray) -> np.ndarray:
    if pa.types.is_large_string(column.type):
        return np.array([int(v) for v in column.to_pylist()], dtype=object)
    return column.to_numpy()


def _json_default(value: Any) -> Any:
    if hasattr(value, "name") and hasattr(value, "version"):  # a Profile
        raise TypeError("Expected a built-in profile name to write an accumulator, got a "
                        f"custom Profile {value.name!r}; fix by passing its settings "
                        "(average, zero_division, params) as options instead.")
    raise TypeError(f"Expected JSON-writable options, got {type(value).__name__}.")
