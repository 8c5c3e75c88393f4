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
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pyarrow as pa

from .core.inputs import Inputs
from .core.pipeline import Prepared, compute_statistics, empty_spans_told, soft_given
from .core.score_rules import rules_of
from .core.scores import ScoreRuns, score_runs
from .core.settings import (Settings, profile_default_metrics, resolve_settings,
                            typed_options)
from .core.spans import SpanBatch
from .core.types import Average, Granularity, Missing, ZeroDivision
from .evaluate import LABELS_AND_TYPE_FIELD, build_report, intervals, prepare_for
from .core.serialize import concat as _concat
from .core.serialize import concat_parts as _concat_runs
from .core.serialize import ipc_bytes as _ipc
from .core.serialize import json_default as _json_default
from .core.serialize import to_arrow as _arrow
from .core.serialize import to_numpy as _numpy
from .scores import spans as scoring
from .scores.plan import plan_key as _plan_key
from .scores.plan import plan_of as _plan_of
from .scores.plan import plan_said as _said
from .scores.plan import split_metrics
from .stats.bootstrap import example_keys
from .views.type_sums import TypeSums, added, type_rows, type_sums

__all__ = ["Accumulator"]

_FORMAT = b"mycelium.accumulator/1"
_RUNS = b"mycelium.accumulator/runs"  # the pieces of `ScoreRuns`, an Arrow IPC stream
_LABELS = b"mycelium.accumulator/labels"  # soft_spearman_by_label's pairs, an Arrow IPC stream
_TYPES = b"mycelium.accumulator/types"  # the per-type statistics (type_field), an Arrow IPC stream
_PIECES = ("example", "score", "length", "positive")


@dataclass
class _Part:
    """The statistics of one batch (or of several, once merged)."""

    stats: dict[str, dict[str, np.ndarray]]
    kept: np.ndarray
    ids: list | None = None  # the kept examples' ids, when given (and still known)
    keys: np.ndarray | None = None  # their resampling keys (`example_keys`)
    pooled: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # response_level
    runs: ScoreRuns | None = None  # the kept examples' pieces of constant score and label
    empty: tuple[int, int] = (0, 0)  # zero-length spans listed: references, predictions
    #: soft_spearman_by_label's (example, label) pairs (`_label_pairs`), or None
    labels: dict[str, np.ndarray] | None = None
    #: with ``type_field``: per type, the batch's exact sums (`mycelium.views.type_sums`)
    types: dict[Any, TypeSums] | None = None


@dataclass
class Accumulator:
    """Accumulate per-example statistics over batches; `compute` gives `evaluate`'s report.

    Parameters
    ----------
    profile, metrics, average, zero_division, params, missing, granularity, trim_spans, offsets
        As in `mycelium.evaluate`: the settings every batch is scored with (``metrics``
        may name the score metrics and ``response_level``).
    type_field, typed_matching
        As in `mycelium.evaluate`: ``report["by_type"]``, the measures per type of the
        spans' ``type_field``, and the ``typed_span`` metric (its scheme in
        ``params={"typed_span": {"scheme": ...}}``). Each batch keeps, per type, exact
        sums of its examples having the type (`mycelium.views.type_sums`, the columns
        the frame faces' engines sum), a few numbers per type whatever the examples;
        they add across batches, and `compute` reduces them to `mycelium.evaluate`'s
        rows on all the examples, bit for bit. (With ``zero_division="warn"`` the
        per-type rows do not warn; the values are ``evaluate``'s.)
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

    Scores (``soft_predictions`` alone, or ``token_offsets`` with ``token_scores``, and
    a ``threshold``) are accepted as by `mycelium.evaluate`, in the same form and with
    the same threshold in every batch. Memory: the span metrics and ``response_level``
    keep a few numbers per example and metric; ``char_auroc`` and ``char_ap`` are not
    functions of per-example sums (micro ranks every character of every example
    together), so with scores the accumulator also keeps each example's pieces of
    constant score and label (`mycelium.core.scores.ScoreRuns`: four numbers per piece,
    at most about twice the example's tokens or soft spans plus its reference spans,
    never a number per character) and its highest score (``response_auroc``).

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

    Per type (``type_field``), with ``typed_span`` under the ``partial`` scheme. Type B's
    examples (both) have 4 of B's 7 reference characters predicted as B, of 9 predicted;
    ``typed_span`` counts one correct prediction (same boundaries, any type) and one
    partial (half credit) of 2:

    >>> refs = [[{"start": 0, "end": 5, "label": "A"}], [{"start": 2, "end": 9, "label": "B"}]]
    >>> preds = [[{"start": 0, "end": 5, "label": "B"}], [{"start": 2, "end": 6, "label": "B"}]]
    >>> options = dict(metrics=["typed_span", "character"], type_field="label",
    ...                typed_matching=True, params={"typed_span": {"scheme": "partial"}},
    ...                average="micro")
    >>> acc = Accumulator(**options)
    >>> acc.update(refs[:1], preds[:1])
    >>> acc.update(refs[1:], preds[1:])
    >>> b = acc.compute()["by_type"]["B"]
    >>> b["examples"], b["n_ref"], b["character"]
    (2, 1, {'precision': 0.4444444444444444, 'recall': 0.5714285714285714, 'f1': 0.5})
    >>> acc.compute()["typed_span"]
    {'precision': 0.75, 'recall': 0.75, 'f1': 0.75}
    >>> acc.compute()["by_type"] == evaluate(refs, preds, **options)["by_type"]
    True
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
    trim_spans: str | None = None
    offsets: str = "half-open"
    type_field: str | None = None
    typed_matching: bool = False
    _parts: list[_Part] = field(default_factory=list, repr=False)
    _soft: bool | None = field(default=None, repr=False)
    _keyed: bool | None = field(default=None, repr=False)
    _plan: tuple | None = field(default=None, repr=False)  # `_plan_key` of the batches

    def __post_init__(self) -> None:
        # Check the options now, not at compute (soft_spearman asks for soft labels).
        names = [self.metrics] if isinstance(self.metrics, str) else self.metrics or []
        rest, _ = split_metrics(self.metrics)
        typed_options(self._settings(soft="soft_spearman" in names, ids=False,
                                     names=rest or None if rest is not None else None))

    def _options(self) -> dict[str, Any]:
        """The options: every public field (a new option is a new field)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if not f.name.startswith("_")}

    def _settings(self, *, soft: bool, ids: bool, names: Any = ...) -> Settings:
        """The settings of the span metrics (``names``: those of the score plan)."""
        options = self._options()
        if names is ...:
            plan = _plan_of(self._plan)
            names = plan.span_names if plan is not None else (
                split_metrics(self.metrics)[0] or None)
        options["metrics"] = names
        return resolve_settings(soft=soft, ids=ids, **options)

    # ------------------------------------------------------------------ adding data

    def update(self, references, predictions=None, *, text=None, ids=None,
               soft_references=None, soft_predictions=None, token_offsets=None,
               token_scores=None, threshold=None) -> None:
        """Score one batch (any form `mycelium.evaluate` accepts) and keep its statistics.

        Parameters
        ----------
        references, predictions
            One example or a batch, as in `mycelium.evaluate`.
        text, soft_references, soft_predictions, token_offsets, token_scores, threshold
            As in `mycelium.evaluate` (the same score form and threshold in every batch).
        ids : sequence, optional
            One id per example, unique over everything accumulated: the resampling keys
            of the intervals. Give them in every batch or in none.

        Raises
        ------
        SpanValidationError, ValueError, TypeError
            As `mycelium.evaluate` for the batch; ``ValueError`` when this batch gives ids
            or soft labels and earlier ones did not (or the other way round).
        """
        plan = None
        metrics = self.metrics
        from .core.profiles import get_profile

        spans_soft = Inputs(references, predictions, soft_references=soft_references,
                            soft_predictions=soft_predictions).soft_from_spans(
                                get_profile(self.profile))
        soft_references, soft_predictions = (spans_soft.soft_references,
                                             spans_soft.soft_predictions)
        if metrics is None and predictions is not None and threshold is None \
                and not scoring.score_form_given(soft_references, soft_predictions,
                                                 token_offsets, token_scores):
            # a profile's extra metrics (ragtruth: response_level), as `evaluate` adds them
            metrics = profile_default_metrics(
                self.profile, soft=soft_given(soft_references, soft_predictions))
        if scoring.wanted(metrics, soft_references, soft_predictions, token_offsets,
                          token_scores, threshold, predictions):
            plan = scoring.score_plan(
                metrics, predictions, soft_references=soft_references,
                soft_predictions=soft_predictions, token_offsets=token_offsets,
                token_scores=token_scores, threshold=threshold,
                granularity=self.granularity, profile=self.profile)
        key = _plan_key(plan)
        if self._parts and key != self._plan:
            raise ValueError(f"Expected every batch scored as the first ({_said(self._plan)}"
                             f"), got a batch with {_said(key)}; fix by giving every batch "
                             "the same score form and threshold (or predictions in all).")
        self._plan = key
        if soft_references is None:  # soft predictions alone are scores, not soft labels
            soft_predictions = None
        soft = soft_given(soft_references, soft_predictions)
        self._agree("soft labels", "_soft", soft)
        self._agree("ids", "_keyed", ids is not None)
        settings = self._settings(soft=soft, ids=ids is not None)
        si = lengths = None
        spans = references  # the per-type breakdown reads the raw spans, as evaluate's
        if plan is not None:
            si, lengths, references, predictions = scoring.scored_inputs(
                plan, references, predictions, text=text,
                rules=rules_of(settings.profile), offsets=settings.offsets)
        if settings.type_field is None:
            spans = references
        placeholder = plan is not None and plan.placeholder
        with empty_spans_told(hold=True) as told:
            prepared = prepare_for(spans, predictions, settings, text=text)
        # the references stand in for predictions nobody gave: none of them is predicted
        told.tell(parts="references" if placeholder else "sum")
        empty = (prepared.empty_spans[0], 0) if placeholder else prepared.empty_spans
        stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                   settings.params)
        types = None
        if settings.type_field is not None:
            from .views.typology import typed_for, typed_span_for

            if "typed_span" in settings.metrics:
                stats["typed_span"] = typed_span_for(spans, predictions, settings,
                                                     prepared)
            types = type_sums(typed_for(spans, predictions, settings, prepared,
                                        type_field=settings.type_field,
                                        typed_matching=settings.typed_matching), settings)
        pooled: dict = {}
        runs = None
        if plan is not None:
            tokens = scoring.plan_tokens(plan, si, references, prepared,
                                         rules_of(settings.profile),
                                         trim_spans=settings.trim_spans,
                                         offsets=settings.offsets)
            pooled = scoring.pooled_statistics(prepared, scoring.pooled_names(plan), {},
                                               settings.params, tokens=tokens)
            if si is not None and lengths is not None:
                kept = prepared.kept
                runs = score_runs(si if kept.all() else si.take(kept), lengths[kept],
                                  prepared.refs)
        labels = None
        if soft:
            from .metrics.soft_labels import soft_label_statistics

            soft_stats, breakdown = soft_label_statistics(
                soft_references, soft_predictions, prepared, text=text,
                metrics=settings.metrics, rules=rules_of(settings.profile))
            stats.update(soft_stats)
            labels = None if breakdown is None else _label_pairs(breakdown)
            if labels is not None and types is not None:
                raise ValueError(LABELS_AND_TYPE_FIELD)
        kept_ids = None
        if ids is not None:
            ids = list(ids)
            if len(ids) != prepared.n_input:
                raise ValueError(f"Expected one id per example, got {len(ids)} ids for "
                                 f"{prepared.n_input} examples in this batch; fix by "
                                 "giving ids in the examples' order.")
            kept_ids = [i for i, k in zip(ids, prepared.kept) if k]
        keys = None if kept_ids is None else example_keys(0, kept_ids)
        self._parts.append(_Part(stats, prepared.kept, kept_ids, keys, pooled, runs,
                                 empty, labels, types))

    def add_batch(self, *, references, predictions=None, **kwargs) -> None:
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
            soft labels) and the other not; or ``other`` is this accumulator, or holds
            batches this one already holds (merged before): they would count twice.
        """
        if not isinstance(other, Accumulator):
            raise TypeError(f"Expected an Accumulator to merge, got {type(other).__name__}.")
        mine = {id(p) for p in self._parts}
        if other is self or any(id(p) in mine for p in other._parts):
            what = "this accumulator itself" if other is self else (
                "an accumulator whose batches this one already holds (merged before)")
            raise ValueError(f"Expected another accumulator's batches to merge, got {what}; "
                             "its examples would count twice. Fix by merging each "
                             "accumulator once (to count a dataset twice on purpose, "
                             "merge a copy: copy.deepcopy(acc)).")
        if self._signature() != other._signature():
            raise ValueError("Expected accumulators with the same settings, got "
                             f"{self._signature()!r} and {other._signature()!r}; fix by "
                             "making both with the same options.")
        for what, attr in (("soft labels", "_soft"), ("ids", "_keyed")):
            if getattr(other, attr) is not None:
                self._agree(what, attr, getattr(other, attr))
        if self._parts and other._parts and self._plan != other._plan:
            raise ValueError(f"Expected accumulators scored alike, got {_said(self._plan)} "
                             f"and {_said(other._plan)}; fix by giving both the same score "
                             "form and threshold.")
        if other._parts:
            self._plan = other._plan
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
        prepared = Prepared(SpanBatch.empty(0), SpanBatch.empty(0), kept, False, None,
                            empty_spans=self._empty())
        report = build_report(stats, settings, prepared, False)
        if self._parts[0].labels is not None:
            from .views.soft_labels import label_rows

            report["by_type"] = label_rows(_breakdown(self._parts))
        if settings.type_field is not None:
            report["by_type"] = type_rows(added([p.types or {} for p in self._parts]),
                                          settings)
        keys = self._keys()
        if settings.bootstrap is not None:
            report["ci"] = intervals(stats, settings, np.flatnonzero(kept),
                                     keys=keys, estimates=report,
                                     meta=report["meta"]["ci"])
        plan = _plan_of(self._plan)
        if plan is None:
            return report
        if plan.placeholder:
            report.pop("iou")
        pooled = {m: {k: _concat([p.pooled[m][k] for p in self._parts])
                      for k in self._parts[0].pooled[m]} for m in self._parts[0].pooled}
        runs = _concat_runs([p.runs for p in self._parts])
        if keys is None:
            keys = np.flatnonzero(kept).astype(np.uint64)
        values, ci, per = scoring.report_from_runs(
            runs, pooled, plan.extra, settings, include_per_example=False,
            keys=keys) if (runs is not None or pooled) else ({}, None, {})
        return scoring.assemble(report, values, ci, per, prepared, settings, plan)

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

    def _empty(self) -> tuple[int, int]:
        """Zero-length spans listed by every batch so far (references, predictions)."""
        return (sum(p.empty[0] for p in self._parts), sum(p.empty[1] for p in self._parts))

    def to_bytes(self) -> bytes:
        """The accumulated statistics as an Arrow IPC stream (with the settings)."""
        columns: dict[str, pa.Array] = {"__kept": pa.array(
            np.concatenate([p.kept for p in self._parts]) if self._parts
            else np.zeros(0, bool))}
        if self._parts:
            names = self._parts[0].stats
            for m in names:
                for k in names[m]:
                    columns[f"{m}.{k}"] = _arrow(_spread(_concat([p.stats[m][k]
                                                                  for p in self._parts]),
                                                         columns["__kept"]))
        if self._keyed:  # the kept examples' resampling keys (0 for dropped ones)
            keys = np.zeros(len(columns["__kept"]), dtype=np.uint64)
            kept_rows = np.flatnonzero(columns["__kept"].to_numpy(zero_copy_only=False))
            kept_keys = self._keys()
            assert kept_keys is not None  # keyed
            keys[kept_rows] = kept_keys
            columns["__key"] = pa.array(keys)
        schema_meta = {}
        if self._parts and self._parts[0].pooled:
            for m, st in self._parts[0].pooled.items():
                for k in st:
                    columns[f"__pooled.{m}.{k}"] = _arrow(_spread(
                        _concat([p.pooled[m][k] for p in self._parts]), columns["__kept"]))
        runs = _concat_runs([p.runs for p in self._parts]) if self._parts else None
        if runs is not None:  # per kept example, then the pieces (another Arrow stream)
            kept_rows = np.flatnonzero(columns["__kept"].to_numpy(zero_copy_only=False))
            for name in ("max_score", "gold"):
                full = np.zeros(len(columns["__kept"]), dtype=getattr(runs, name).dtype)
                full[kept_rows] = getattr(runs, name)
                columns[f"__{name}"] = pa.array(full)
            schema_meta[_RUNS] = _ipc(pa.table({a: getattr(runs, a) for a in _PIECES}))
        if self._parts and self._parts[0].labels is not None:
            schema_meta[_LABELS] = _ipc(pa.table(_merged_pairs(self._parts)))
        if self._parts and self._parts[0].types is not None:
            schema_meta[_TYPES] = _types_json(added([p.types or {} for p in self._parts]))
        meta = {"options": json.dumps(self._options(), default=_json_default),
                "soft": json.dumps(self._soft), "keyed": json.dumps(self._keyed),
                "plan": json.dumps(self._plan), "empty_spans": json.dumps(self._empty())}
        table = pa.table(columns).replace_schema_metadata({_FORMAT: json.dumps(meta),
                                                           **schema_meta})
        return _ipc(table)

    @classmethod
    def from_bytes(cls, data: bytes) -> Accumulator:
        """An accumulator from `to_bytes` output.

        Raises
        ------
        ValueError
            ``data`` is not an accumulator's stream (not Arrow IPC, cut short, or
            without the accumulator's metadata).
        TypeError
            ``data`` is not bytes.
        """
        table = _read_stream(data)
        meta = (table.schema.metadata or {}).get(_FORMAT)
        if meta is None:
            raise ValueError("Expected bytes written by Accumulator.to_bytes, got an Arrow "
                             "stream without its metadata, at data; fix by passing what "
                             "to_bytes returned.")
        info = json.loads(meta)
        acc = cls(**json.loads(info["options"]))
        acc._soft, acc._keyed = json.loads(info["soft"]), json.loads(info["keyed"])
        plan = json.loads(info.get("plan", "null"))
        acc._plan = None if plan is None else tuple(
            tuple(v) if isinstance(v, list) else v for v in plan)
        if table.num_rows or any(n != "__kept" for n in table.column_names):
            kept = table.column("__kept").to_numpy(zero_copy_only=False).astype(bool)
            stats: dict[str, dict[str, np.ndarray]] = {}
            pooled: dict[str, dict[str, np.ndarray]] = {}
            for name in table.column_names:
                if name.startswith("__pooled."):
                    m, k = name[len("__pooled."):].split(".", 1)
                    pooled.setdefault(m, {})[k] = _numpy(table.column(name))[kept]
                elif "." in name and not name.startswith("__"):
                    m, k = name.split(".", 1)
                    stats.setdefault(m, {})[k] = _numpy(table.column(name))[kept]
            keys = None
            if acc._keyed:
                keys = table.column("__key").to_numpy()[kept]
            runs = None
            pieces = (table.schema.metadata or {}).get(_RUNS)
            if pieces is not None:
                t = pa.ipc.open_stream(io.BytesIO(pieces)).read_all()
                runs = ScoreRuns(int(kept.sum()), *(t.column(a).to_numpy() for a in _PIECES[:1]),
                                 *(t.column(a).to_numpy() for a in _PIECES[1:]),
                                 *(table.column(f"__{a}").to_numpy(zero_copy_only=False)[kept]
                                   for a in ("max_score", "gold")))
            empty = tuple(json.loads(info.get("empty_spans", "[0, 0]")))
            labels = None
            pairs = (table.schema.metadata or {}).get(_LABELS)
            if pairs is not None:
                t = pa.ipc.open_stream(io.BytesIO(pairs)).read_all()
                labels = {name: t.column(name).to_numpy(zero_copy_only=False)
                          for name in t.column_names}
            typed = (table.schema.metadata or {}).get(_TYPES)
            acc._parts.append(_Part(stats, kept, None, keys, pooled, runs,
                                    (int(empty[0]), int(empty[1])), labels,
                                    None if typed is None else _types_of(typed)))
        return acc


def _label_pairs(breakdown) -> dict[str, np.ndarray]:
    """A batch's (example, label) pairs of ``soft_spearman_by_label``
    (`mycelium.metrics.soft_labels.LabelBreakdown`), labels by name: their codes are
    the batch's own."""
    s = breakdown.scores
    names = np.array(breakdown.names, dtype=object)
    return {"item": s.pair_item, "label": names[s.pair_label] if names.size
            else np.zeros(0, dtype=object), "cor": s.pair_cor, "iou": s.pair_iou,
            "ref_spans": s.pair_ref_spans, "pred_spans": s.pair_pred_spans}


def _merged_pairs(parts: list[_Part]) -> dict[str, np.ndarray]:
    """Every part's pairs, their examples numbered across the parts' kept examples."""
    out: dict[str, list] = {}
    before = 0
    for p in parts:
        assert p.labels is not None  # every batch scored alike
        for name, arr in p.labels.items():
            out.setdefault(name, []).append(arr + before if name == "item" else arr)
        before += int(p.kept.sum())
    return {name: np.concatenate(arrs) for name, arrs in out.items()}


def _spread(values: np.ndarray, kept: pa.Array) -> np.ndarray:
    """``values`` of the kept examples at their rows among all the examples (``kept``,
    the ``__kept`` column), 0 at the rows ``missing="drop"`` left out: every column of
    the stream has a row per example."""
    mask = kept.to_numpy(zero_copy_only=False).astype(bool)
    if values.size == mask.size:
        return values
    full = np.zeros(mask.size, dtype=values.dtype)
    full[mask] = values
    return full


def _types_json(types: dict[Any, TypeSums]) -> bytes:
    """The per-type sums as JSON: the types in their order, each with its sums (exact
    ints; floats written as ``repr`` reads them back)."""
    return json.dumps([[t, s.sums, s.examples, s.n_ref] for t, s in types.items()],
                      default=_json_default).encode()


def _types_of(data: bytes) -> dict[Any, TypeSums]:
    """The inverse of `_types_json`."""
    return {t: TypeSums(sums, int(n), int(n_ref)) for t, sums, n, n_ref in json.loads(data)}


def _breakdown(parts: list[_Part]):
    """The per-label breakdown of everything accumulated, as one call would have it."""
    from .metrics.typed_soft import TypedScores
    from .metrics.soft_labels import LabelBreakdown, label_codes

    pairs = _merged_pairs(parts)
    names, codes, _ = label_codes(pairs["label"], np.zeros(0, dtype=object))
    none = np.zeros(0)
    return LabelBreakdown(names, TypedScores(
        none, none, none, pairs["item"].astype(np.int64), codes, pairs["cor"],
        pairs["iou"], pairs["ref_spans"].astype(np.int64),
        pairs["pred_spans"].astype(np.int64)))


def _read_stream(data) -> pa.Table:
    """The Arrow IPC stream of `Accumulator.to_bytes` as a table, or an error that says
    what was passed instead."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"Expected the bytes of Accumulator.to_bytes, got "
                        f"{type(data).__name__}, at data; fix by passing what to_bytes "
                        "returned (a file read in binary mode: open(path, 'rb').read()).")
    try:
        return pa.ipc.open_stream(io.BytesIO(data)).read_all()
    except (pa.ArrowException, OSError) as exc:  # a stream cut short is an OSError
        raise ValueError(f"Expected the bytes of Accumulator.to_bytes (an Arrow IPC "
                         f"stream), got {len(data)} bytes that are not one ({exc}), at "
                         "data; fix by passing what to_bytes returned, whole and "
                         "unaltered.") from None
