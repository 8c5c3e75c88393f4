"""The statistics of many batches as one, and as Arrow: what `mycelium.Accumulator` joins
and writes with ``to_bytes`` (int64 and float64 columns as they are, exact Python ints
beyond int64 as strings, an Arrow IPC stream as the bytes)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa

from .scores import ScoreRuns, concat_runs

__all__ = ["ipc_bytes", "concat", "to_arrow", "to_numpy", "json_default", "concat_parts"]


def concat_parts(parts: list[ScoreRuns | None]) -> ScoreRuns | None:
    """The pieces of every batch's examples, renumbered after one another (None when a
    batch has none)."""
    if any(r is None for r in parts):
        return None
    return concat_runs([r for r in parts if r is not None])


def ipc_bytes(table: pa.Table) -> bytes:
    """``table`` as one Arrow IPC stream."""
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def concat(arrays: list[np.ndarray]) -> np.ndarray:
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def to_arrow(values: np.ndarray) -> pa.Array:
    """int64 and float64 columns as they are; exact Python ints beyond int64 as strings."""
    if values.dtype == object:
        return pa.array([str(v) for v in values.tolist()], pa.string()).cast(pa.large_string())
    return pa.array(values)


def to_numpy(column: pa.ChunkedArray) -> np.ndarray:
    """The inverse of `to_arrow`."""
    if pa.types.is_large_string(column.type):
        return np.array([int(v) for v in column.to_pylist()], dtype=object)
    return column.to_numpy()


def json_default(value: Any) -> Any:
    """``json.dumps``' fallback for the options of an accumulator: refuses what it cannot
    write back (a custom `Profile`, any other object) with a message saying how to fix it."""
    if hasattr(value, "name") and hasattr(value, "version"):  # a Profile
        raise TypeError("Expected a built-in profile name to write an accumulator, got a "
                        f"custom Profile {value.name!r}; fix by passing its settings "
                        "(average, zero_division, params) as options instead.")
    raise TypeError(f"Expected JSON-writable options, got {type(value).__name__}.")
