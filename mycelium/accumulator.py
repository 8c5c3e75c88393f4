"""Scoring inside a loop: `Accumulator` keeps the per-example statistics of every batch it
is given and computes, at the end, exactly the report `mycelium.evaluate` gives on all the
data at once.

Every measure is a function of per-example sufficient statistics, so scoring batch by
batch and concatenating the statistics loses nothing: values are bit-identical (macro
means are exact sums, `mycelium.core.exactsum`), and intervals are too when examples are
keyed by id (each example's resampling weights depend on its id and the seed only, never
on which batch it came in). Memory grows with the number of examples (a few integers per
example and metric), not with the spans.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from .core.pipeline import Prepared, compute_statistics, soft_given
from .core.settings import Settings, resolve_settings
from .core.spans import SpanBatch
from .core.types import Average, Granularity, Missing, ZeroDivision
from .evaluate import build_report, intervals, prepare
from .stats.bootstrap import example_keys

__all__ = ["Accumulator"]

_FORMAT = b"mycelium.accumulator/1"


@dataclass
class _Part:
    """The statistics of one batch (or of several, once merged)."""

    stats: dict[str, dict[str, np.ndarray]]
    kept: np.ndarray
    ids: list | None = None  # the kept examples' ids, when given (and still known)
    keys: np.ndarray | None = None  # their resampling keys (`example_keys`)


@dataclass
class Accumulator:
    """Accumulate per-example statistics over batches; `compute` gives `evaluate`'s report.

    Parameters
    ----------
    profile, metrics, average, zero_division, params, missing, granularity
        As in `mycelium.evaluate`: the settings every batch is scored with.
    ci, n_resamples, seed
        Bootstrap intervals in `compute`, as in `mycelium.evaluate`. Identical to
        `evaluate`'s on the concatenated data when every batch gave ``ids``; without ids
        examples are keyed by their position in the order they were added.

    Notes
    -----
    ``update`` scores a batch at once (its spans are validated then, and errors name the
    example within that batch) and keeps only the statistics. ``merge`` adds another
    accumulator's statistics after this one's (same settings, else ``ValueError``).
    ``to_bytes`` / ``from_bytes`` write and read the statistics as an Arrow IPC stream,
    so shards scored in separate jobs can be merged later; an accumulator also pickles.
    Either every batch gives ``ids`` or none does; `to_bytes` keeps their resampling
    keys (hashes of the ids), not the ids. Soft labels (``soft_spearman``) are
    accepted when every batch gives both sides.

    Examples
    --------
    >>> from mycelium import Accumulator, evaluate
    >>> refs = [[[0, 10]], [[4, 7]], [], [[1, 3]]]
    >>> preds = [[[2, 8]], [[4, 7]], [[0, 2]], []]
    >>> acc = Accumulator(metrics=["iou", "character"], average="micro")
    >>> acc.update(refs[:2], preds[:2])
    >>> acc.add_batch(references=refs[2:], predictions=preds[2:])
    >>> acc.compute()["iou"] == evaluate(refs, preds, metrics=["iou", "character"],
    ...                                  average="micro")["iou"]
    True
    >>> acc.compute()["meta"]["examples"]
    4
    """

    profile: Any = None
    metrics: Any = None
    average: Average | None = None
    zero_division: ZeroDivision | None = None
    params: Any = None
    missing: Missing = "error"
    granularity: Granularity = "char"
    ci: float | None = None
    n_resamples: int = 1000
    seed: int = 0
    _parts: list[_Part] = field(default_factory=list, repr=False)
    _soft: bool | None = field(default=None, repr=False)
    _keyed: bool | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # Check the options now, not at compute (soft_spearman asks for soft labels).
        names = [self.metrics] if isinstance(self.metrics, str) else self.metrics or []
        self._settings(soft="soft_spearman" in names, ids=False)

    def _options(self) -> dict[str, Any]:
        return dict(profile=self.profile, metrics=self.metrics, average=self.average,
                    zero_division=self.zero_division, params=self.params,
                    missing=self.missing, granularity=self.granularity, ci=self.ci,
                    n_resamples=self.n_resamples, seed=self.seed)

    def _settings(self, *, soft: bool, ids: bool) -> Settings:
        return resolve_settings(soft=soft, ids=ids, **self._options())

    # ------------------------------------------------------------------ adding data

    def update(self, references, predictions, *, text=None, ids=None,
               soft_references=None, soft_predictions=None) -> None:
        """Score one batch (any form `mycelium.evaluate` accepts) and keep its statistics.

        Parameters
        ----------
        references, predictions
            One example or a batch, as in `mycelium.evaluate`.
        text, soft_references, soft_predictions
            As in `mycelium.evaluate`.
        ids : sequence, optional
            One id per example, unique over everything accumulated: the resampling keys
            of the intervals. Give them in every batch or in none.

        Raises
        ------
        SpanValidationError, ValueError, TypeError
            As `mycelium.evaluate` for the batch; ``ValueError`` when this batch gives ids
            or soft labels and earlier ones did not (or the other way round).
        """
        soft = soft_given(soft_references, soft_predictions)
        self._agree("soft labels", "_soft", soft)
        self._agree("ids", "_keyed", ids is not None)
        settings = self._settings(soft=soft, ids=ids is not None)
        prepared = prepare(references, predictions, text=text, missing=settings.missing,
                           granularity=settings.granularity)
        stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                   settings.params)
        if soft:
            from .metrics.soft_spearman import soft_statistics

            stats["soft_spearman"] = soft_statistics(soft_references, soft_predictions,
                                                     prepared, text=text)
        kept_ids = None
        if ids is not None:
            ids = list(ids)
            if len(ids) != prepared.n_input:
                raise ValueError(f"Expected one id per example, got {len(ids)} ids for "
                                 f"{prepared.n_input} examples in this batch; fix by "
                                 "giving ids in the examples' order.")
            kept_ids = [i for i, k in zip(ids, prepared.kept) if k]
        keys = None if kept_ids is None else example_keys(0, kept_ids)
        self._parts.append(_Part(stats, prepared.kept, kept_ids, keys))

    def add_batch(self, *, references, predictions, **kwargs) -> None:
        """`update` with keyword arguments, as Hugging Face ``evaluate`` metrics take them."""
        self.update(references, predictions, **kwargs)

    def _agree(self, what: str, attr: str, given: bool) -> None:
        before = getattr(self, attr)
        if before is not None and before != given:
            raise ValueError(f"Expected every batch to give {what} or none to, got a batch "
                             f"{'with' if given else 'without'} {what} after batches "
                             f"{'without' if given else 'with'}; fix by giving {what} in "
                             "every batch.")
        setattr(self, attr, given)

    def merge(self, other: Accumulator) -> Accumulator:
        """Add ``other``'s statistics after this accumulator's; return ``self``.

        Raises
        ------
        ValueError
            The two accumulators were made with different settings, or one has ids (or
            soft labels) and the other not.
        """
        if not isinstance(other, Accumulator):
            raise TypeError(f"Expected an Accumulator to merge, got {type(other).__name__}.")
        if self._signature() != other._signature():
            raise ValueError("Expected accumulators with the same settings, got "
                             f"{self._signature()!r} and {other._signature()!r}; fix by "
                             "making both with the same options.")
        for what, attr in (("soft labels", "_soft"), ("ids", "_keyed")):
            if getattr(other, attr) is not None:
                self._agree(what, attr, getattr(other, attr))
        self._parts.extend(other._parts)
        return self

    def _signature(self) -> str:
        return self._settings(soft=bool(self._soft), ids=bool(self._keyed)).signature()

    # --------------------------------------------------------------------- results

    def __len__(self) -> int:
        """The examples accumulated (dropped ones included)."""
        return sum(p.kept.size for p in self._parts)

    def compute(self) -> dict[str, Any]:
        """The report `mycelium.evaluate` gives on everything accumulated, bit for bit.

        Raises
        ------
        ValueError
            Nothing was accumulated.
        """
        if not self._parts:
            raise ValueError("Expected at least one batch before compute(), got none; fix "
                             "by calling update(references, predictions) first.")
        settings = self._settings(soft=bool(self._soft), ids=bool(self._keyed))
        names = self._parts[0].stats
        stats = {m: {k: _concat([p.stats[m][k] for p in self._parts]) for k in names[m]}
                 for m in names}
        kept = np.concatenate([p.kept for p in self._parts])
        prepared = Prepared(SpanBatch.empty(0), SpanBatch.empty(0), kept, False, None)
        report = build_report(stats, settings, prepared, False)
        if settings.bootstrap is not None:
            report["ci"] = intervals(stats, settings, np.flatnonzero(kept),
                                     keys=self._keys(), estimates=report,
                                     meta=report["meta"]["ci"])
        return report

    def _keys(self) -> np.ndarray | None:
        """The resampling keys of every kept example (None when keyed by position); an id
        given in two batches is an error, as in `mycelium.evaluate`."""
        if not self._keyed:
            return None
        if all(p.ids is not None for p in self._parts):
            return example_keys(0, [i for p in self._parts for i in p.ids or []])
        keys = _concat([p.keys for p in self._parts if p.keys is not None])
        if np.unique(keys).size != keys.size:
            raise ValueError("Expected unique example ids over the merged shards, got an "
                             "id that occurs more than once; fix by giving every example "
                             "one id (each example is one resampling unit).")
        return keys

    # --------------------------------------------------------------- serialisation

    def to_bytes(self) -> bytes:
        """The accumulated statistics as an Arrow IPC stream (with the settings)."""
        columns: dict[str, pa.Array] = {"__kept": pa.array(
            np.concatenate([p.kept for p in self._parts]) if self._parts
            else np.zeros(0, bool))}
        if self._parts:
            names = self._parts[0].stats
            for m in names:
                for k in names[m]:
                    columns[f"{m}.{k}"] = _arrow(_concat([p.stats[m][k]
                                                          for p in self._parts]))
        if self._keyed:  # the kept examples' resampling keys (0 for dropped ones)
            keys = np.zeros(len(columns["__kept"]), dtype=np.uint64)
            kept_rows = np.flatnonzero(columns["__kept"].to_numpy(zero_copy_only=False))
            kept_keys = self._keys()
            assert kept_keys is not None  # keyed
            keys[kept_rows] = kept_keys
            columns["__key"] = pa.array(keys)
        meta = {"options": json.dumps(self._options(), default=_json_default),
                "soft": json.dumps(self._soft), "keyed": json.dumps(self._keyed)}
        table = pa.table(columns).replace_schema_metadata({_FORMAT: json.dumps(meta)})
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Accumulator:
        """An accumulator from `to_bytes` output.

        Raises
        ------
        ValueError
            ``data`` is not an accumulator's stream.
        """
        table = pa.ipc.open_stream(io.BytesIO(data)).read_all()
        meta = (table.schema.metadata or {}).get(_FORMAT)
        if meta is None:
            raise ValueError("Expected bytes written by Accumulator.to_bytes, got a stream "
                             "without its metadata.")
        info = json.loads(meta)
        acc = cls(**json.loads(info["options"]))
        acc._soft, acc._keyed = json.loads(info["soft"]), json.loads(info["keyed"])
        if table.num_rows or any(n != "__kept" for n in table.column_names):
            kept = table.column("__kept").to_numpy(zero_copy_only=False).astype(bool)
            stats: dict[str, dict[str, np.ndarray]] = {}
            for name in table.column_names:
                if "." in name and not name.startswith("__"):
                    m, k = name.split(".", 1)
                    stats.setdefault(m, {})[k] = _numpy(table.column(name))
            keys = None
            if acc._keyed:
                keys = table.column("__key").to_numpy()[kept]
            acc._parts.append(_Part(stats, kept, None, keys))
        return acc


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
