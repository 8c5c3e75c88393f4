"""The engine behind every dataframe face: grouped tidy results and per-row scores.

The faces (pandas accessor, Polars namespace, CLI, Spark) hand this module span columns,
optional texts, soft labels, ids and group keys; it scores every row once with the
core, then reduces per group exactly as `mycelium.evaluate` would on that group's rows
(same per-example values, exact sums), so each group's numbers equal ``evaluate`` on
those rows bit for bit — values, ``soft_spearman``, bootstrap intervals (resampled
within each group) and the per-type rows of ``by_type``. Results are Arrow tables,
converted by each face to its own frame type. Detector comparisons live in
`mycelium.frames.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ..core.aggregate import aggregate, per_example, warn_undefined
from ..core.columns import is_null
from ..core.inputs import Inputs, arrow_or_python
from ..core.pipeline import Prepared, compute_statistics, soft_given
from ..core.reduce import row_column_parts, values_from_sums
from ..core.settings import Settings, resolve_settings, typed_options
from ..core.spans import SpanBatch
from ..evaluate import LABELS_AND_TYPE_FIELD, prepare_for
from ..metrics import SOFT_METRICS, fixed_average
from ..core.groups import (Groups, check_key_type, group_bounds, group_codes, group_sums,
                           grouped_table, key_table, normalize_by, tidy_columns)

__all__ = ["TIDY_COLUMNS", "face_call", "columns_of", "evaluate_table", "table_of_statistics", "score_table",
           "tidy_table", "tidy_from_sums",
           "with_intervals", "typed_table", "typed_rows", "types_by_group", "group_codes", "Groups", "soft_lists",
           "column_values", "example_ids", "key_table", "normalize_by", "check_key_type"]

#: The columns after the group keys in every tidy result.
TIDY_COLUMNS = ("metric", "measure", "value", "examples", "average", "profile")
#: The key column of the per-type rows (after the group keys), and their count rows.
TYPE_COLUMN = "type"
COUNTS_METRIC, COUNTS_MEASURE, COUNTS_AVERAGE = "counts", "n_ref", "sum"
SIGNATURE_KEY = b"mycelium.signature"
#: The last column of every tidy ``evaluate`` result: the settings signature of its row,
#: so that results concatenated from several calls (``pd.concat``) keep theirs.
SIGNATURE_COLUMN = "signature"


#: A frame face's data keywords (column names) and the `Inputs` field each names.
COLUMN_ROLES = {"ref_col": "references", "pred_col": "predictions", "text": "text",
                "soft_ref_col": "soft_references", "soft_pred_col": "soft_predictions",
                "token_offsets_col": "token_offsets", "token_scores_col": "token_scores",
                "id_col": "ids"}
#: A frame face's keywords that shape its frame, not the scores (neither data nor options).
FACE_ONLY = ("self", "sdf", "by", "with_signature", "as_spark")


def face_call(arguments) -> tuple[Inputs, Settings]:
    """A frame face's bound keyword ``arguments`` as (the `Inputs` its data columns
    are named by, its `Settings`): the one place its options are checked."""
    names = Inputs(**{field: arguments.get(role) for role, field in COLUMN_ROLES.items()})
    options = {k: v for k, v in arguments.items()
               if k not in COLUMN_ROLES and k not in FACE_ONLY}
    settings = resolve_settings(**options, ids=names.ids is not None, plan=True)
    return names.soft_from_spans(settings.profile), settings


def columns_of(names: Inputs, column) -> Inputs:
    """The columns ``names`` names, each looked up by ``column(name, role)`` (None for
    None), in the order of `COLUMN_ROLES`."""
    return Inputs(**{field: None if getattr(names, field) is None
                     else column(getattr(names, field), role)
                     for role, field in COLUMN_ROLES.items()})


def evaluate_table(inputs: Inputs, settings: Settings, groups: Groups | None = None
                   ) -> pa.Table:
    """One row per (group, metric, measure): ``[*keys, metric, measure, value, examples,
    average, profile]``, with the settings signature in the schema metadata.

    ``inputs``: the columns (`mycelium.core.inputs.Inputs`; soft labels are lists of
    ``{start, end, prob}`` per row, in any form `soft_lists` reads, and add
    ``soft_spearman``); ``ci`` adds ``ci_low`` and ``ci_high`` after ``value``
    (`with_intervals`; ``ids``, one per row, key the resamples instead of the row
    positions); ``type_field`` gives the per-type rows instead (`typed_table`);
    ``trim_spans`` trims span edges before scoring. Every option is that of
    `mycelium.evaluate`, in ``settings`` (`resolve_settings`).

    Examples
    --------
    >>> t = evaluate_table(Inputs([[[0, 10]], [[4, 7]]], [[[2, 8]], [[4, 7]]]),
    ...                    resolve_settings(metrics="iou"))
    >>> t.column("value").to_pylist(), t.column("examples").to_pylist()
    ([0.8], [2])
    """
    references, predictions, text = inputs.references, inputs.predictions, inputs.text
    soft_references, soft_predictions = inputs.soft_references, inputs.soft_predictions
    soft = soft_given(soft_references, soft_predictions)
    type_field = settings.type_field
    if type_field is not None and (soft or settings.bootstrap is not None):
        raise ValueError("type_field gives the per-type rows of mycelium.evaluate's "
                         "'by_type', which have no soft_spearman and no intervals; drop "
                         "soft_ref_col/soft_pred_col and ci, or call without type_field.")
    typed_options(settings)
    settings = settings.scoring(settings.asked, soft=soft)
    ids = inputs.ids
    prepared = prepare_for(references, predictions, settings, text=text)
    if groups is None:
        groups = group_codes(None, prepared.n_input)
    if ids is not None:
        ids = example_ids(ids, prepared.n_input)
    if type_field is not None:
        whole = None
        if "typed_span" in settings.metrics:
            from ..views.typology import typed_span_for

            whole = {"typed_span": typed_span_for(references, predictions, settings,
                                                  prepared)}
        return typed_table(references, predictions, settings, prepared, groups,
                           type_field=type_field, typed_matching=settings.typed_matching,
                           whole=whole)
    stats, breakdown = statistics_and_labels(prepared, settings, text=text,
                                             soft_references=soft_references,
                                             soft_predictions=soft_predictions)
    table = table_of_statistics(stats, settings, prepared.kept, groups, ids=ids,
                                progress=settings.progress)
    if breakdown is None:
        return table
    return with_label_rows(table, breakdown, groups.codes[prepared.kept], groups, settings)


def table_of_statistics(stats, settings: Settings, kept: np.ndarray, groups: Groups, *,
                        ids=None, progress=None) -> pa.Table:
    """`evaluate_table`'s result from the per-row statistics of the kept rows (``kept``:
    one flag per input row, `Prepared.kept`), however they were computed: on all rows at
    once, or batch by batch and concatenated (per-row statistics do not depend on the
    other rows, so the result is the same bit for bit). ``ids`` as `example_ids` gives."""
    prepared = Prepared(SpanBatch.empty(0), SpanBatch.empty(0), kept, False, None)
    if settings.warn_undefined:
        warn_undefined(stats, average=settings.average, params=settings.params,
                       codes=groups.codes[kept], n_groups=groups.n_groups)
    table = _tidy(stats, settings, prepared, groups)
    if settings.bootstrap is not None:
        table = with_intervals(table, stats, settings, prepared, groups, ids=ids,
                               progress=progress)
    return table


def all_statistics(prepared: Prepared, settings: Settings, *, text=None,
                   soft_references=None, soft_predictions=None) -> dict:
    """Per-row statistics of the span metrics, and the soft metrics' per-row scores
    (computed as `mycelium.evaluate` does)."""
    return statistics_and_labels(prepared, settings, text=text,
                                 soft_references=soft_references,
                                 soft_predictions=soft_predictions)[0]


def statistics_and_labels(prepared: Prepared, settings: Settings, *, text=None,
                          soft_references=None, soft_predictions=None):
    """`all_statistics` and, with ``soft_spearman_by_label``, its per-label breakdown
    (`mycelium.metrics.soft_labels.LabelBreakdown`; None without)."""
    stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                               settings.params)
    breakdown = None
    if any(m in settings.metrics for m in SOFT_METRICS):
        from ..core.score_rules import rules_of
        from ..metrics.soft_labels import soft_label_statistics

        if settings.type_field is not None and "soft_spearman_by_label" in settings.metrics:
            raise ValueError(LABELS_AND_TYPE_FIELD)
        soft, breakdown = soft_label_statistics(
            soft_column(soft_references, "soft_references"),
            soft_column(soft_predictions, "soft_predictions"), prepared, text=text,
            metrics=settings.metrics, rules=rules_of(settings.profile))
        stats.update(soft)
    return stats, breakdown


def with_label_rows(table: pa.Table, breakdown, codes: np.ndarray, groups: Groups,
                    settings: Settings) -> pa.Table:
    """``table`` (the tidy rows) with a ``type`` column (null on its rows) and, per group,
    the per-label rows of ``soft_spearman_by_label`` (`mycelium.views.soft_labels`, as
    `mycelium.evaluate`'s ``by_type``): per label, ``soft_spearman`` and ``iou`` (measure
    ``score``, average ``"macro"``), then the counts ``n_ref`` and ``n_pred`` (metric
    ``"counts"``, average ``"sum"``); ``examples`` counts the group's examples having the
    label. ``codes``: the group of each scored row."""
    from ..views.soft_labels import label_rows

    rows: dict[str, list] = {name: [] for name in ("group", TYPE_COLUMN) + TIDY_COLUMNS}
    profile = settings.profile.name if settings.profile else None
    for g in range(groups.n_groups):
        for label, entry in label_rows(breakdown, codes == g).items():
            n = entry["examples"]
            cells = [("soft_spearman", "score", entry["soft_spearman"]["score"], "macro"),
                     ("iou", "score", entry["iou"]["score"], "macro"),
                     (COUNTS_METRIC, COUNTS_MEASURE, float(entry["n_ref"]), COUNTS_AVERAGE),
                     (COUNTS_METRIC, "n_pred", float(entry["n_pred"]), COUNTS_AVERAGE)]
            for metric, measure, value, average in cells:
                for name, v in zip(("group", TYPE_COLUMN) + TIDY_COLUMNS,
                                   (g, label, metric, measure, value, n, average, profile)):
                    rows[name].append(v)
    label_group = np.asarray(rows["group"], dtype=np.int64)
    kinds = {TYPE_COLUMN: pa.string(), "metric": pa.string(), "measure": pa.string(),
             "value": pa.float64(), "examples": pa.int64(), "average": pa.string(),
             "profile": pa.string()}
    labelled = grouped_table(groups, rows["group"], {
        name: pa.array(rows[name], t) for name, t in kinds.items()})
    overall = table.add_column(groups.keys.num_columns, TYPE_COLUMN,
                               pa.nulls(table.num_rows, pa.string()))
    for name in ("ci_low", "ci_high"):  # intervals are the means' (none per label)
        if name in overall.column_names:
            labelled = labelled.append_column(name, pa.nulls(labelled.num_rows, pa.float64()))
    # Each group's rows together: its means (type null) first, then its labels.
    per_group = table.num_rows // max(groups.n_groups, 1)
    group = np.concatenate([np.repeat(np.arange(groups.n_groups), per_group), label_group])
    order = np.argsort(group, kind="stable")
    both = pa.concat_tables([overall, labelled.select(overall.column_names)])
    return _signed(both.take(pa.array(order, pa.int64())), settings)


def _tidy(stats, settings: Settings, prepared: Prepared, groups: Groups) -> pa.Table:
    return tidy_table(stats, settings, groups.codes[prepared.kept], groups)


def tidy_table(stats, settings: Settings, codes: np.ndarray, groups: Groups, *,
               examples: np.ndarray | None = None, example_values=None) -> pa.Table:
    """Reduce per-row statistics to the tidy table through exact group sums.

    ``stats`` (``{metric: {statistic: array}}``) has one entry per scored row and
    ``codes[i]`` is row i's group; each group's values equal what `mycelium.evaluate`
    computes on that group's rows, because both reduce exact sums (`mycelium.core.reduce`).
    With ``examples`` (micro only), each row is a partial sum of statistics over
    ``examples[i]`` examples. With ``example_values`` (macro only; ``stats`` unused),
    the rows' per-example values are given instead.
    """
    if examples is not None and settings.average != "micro":
        raise ValueError("internal: partial sums of statistics can only be micro-averaged")
    if example_values is not None and settings.average != "macro":
        raise ValueError("internal: per-example values can only be macro-averaged")
    counts = np.ones(codes.size, dtype=np.int64) if examples is None else np.asarray(
        examples, dtype=np.int64)
    examples_per_group = group_sums({"": counts}, codes, groups.n_groups)[""]
    sums: dict[str, np.ndarray] = {}
    # Each part summed as it comes: the limb columns of every measure at once were the
    # peak memory of a large frame (5 float64 columns per measure per row).
    for part in row_column_parts(stats, settings, values=example_values):
        sums.update(group_sums(part, codes, groups.n_groups))
    return tidy_from_sums(sums, examples_per_group, groups, settings)


def tidy_from_sums(sums, examples_per_group, groups: Groups, settings: Settings) -> pa.Table:
    """The tidy table from exact group sums of `mycelium.core.reduce.row_columns`."""
    values = values_from_sums(sums, settings, examples=examples_per_group)
    pairs = [(metric, measure) for metric in settings.metrics for measure in values[metric]]
    profile = settings.profile.name if settings.profile else None
    group, columns = tidy_columns(values, pairs, groups.n_groups, examples=examples_per_group,
                                  averages=[_average_of(m, settings) for m, _ in pairs],
                                  profile=profile)
    return _signed(grouped_table(groups, group, columns), settings)


def _average_of(metric: str, settings: Settings) -> str:
    return fixed_average(metric) or settings.average


def _signed(table: pa.Table, settings: Settings) -> pa.Table:
    return table.replace_schema_metadata({SIGNATURE_KEY: settings.signature().encode()})


def score_table(inputs: Inputs, settings: Settings) -> pa.Table:
    """Per-row measures, one column ``<metric>_<measure>`` each, rows in input order.

    Rows left out by ``missing="drop"`` get nulls. Soft labels add ``soft_spearman_score``;
    ``granularity`` scores words or sentences and ``trim_spans`` trims span edges (as in
    `mycelium.evaluate`). ``settings``: the face's (`resolve_settings`, ``plan=True``).
    """
    text = inputs.text
    soft_references, soft_predictions = inputs.soft_references, inputs.soft_predictions
    settings = settings.scoring(settings.asked,
                                soft=soft_given(soft_references, soft_predictions))
    prepared = prepare_for(inputs.references, inputs.predictions, settings, text=text)
    stats = all_statistics(prepared, settings, text=text, soft_references=soft_references,
                           soft_predictions=soft_predictions)
    values = per_example(stats, zero_division=settings.zero_division, params=settings.params)
    columns = {}
    mask = None if prepared.kept.all() else ~prepared.kept
    for metric in settings.metrics:
        for measure, arr in values[metric].items():
            full = np.full(prepared.n_input, np.nan)
            full[prepared.kept] = arr
            columns[f"{metric}_{measure}"] = pa.array(full, pa.float64(), mask=mask)
    table = pa.table(columns) if columns else pa.table({})
    return table.replace_schema_metadata({SIGNATURE_KEY: settings.signature().encode()})


def signature_of(table: pa.Table) -> str | None:
    """The settings signature stored in a result table's schema metadata."""
    meta = table.schema.metadata or {}
    value = meta.get(SIGNATURE_KEY)
    return value.decode() if value is not None else None


# ------------------------------------------------------------------ intervals

def with_intervals(table: pa.Table, stats, settings: Settings, prepared: Prepared,
                   groups: Groups, *, ids=None, progress=None) -> pa.Table:
    """``table`` with ``ci_low`` and ``ci_high`` after ``value``: per group, the
    percentile-bootstrap interval of `mycelium.evaluate.intervals` on that group's rows.

    Resampling runs within each group (`mycelium.stats.bootstrap`). Each example is keyed by
    its id (``ids``, one per input row) or, without ids, by its row position in the
    whole frame — so a group's interval equals ``intervals`` (and, for the whole frame,
    `mycelium.evaluate`) with the same keys. One progress bar covers all groups.
    """
    from ..core.progress import running, wanted
    from ..stats.bootstrap import example_keys, percentile_interval, resampled_values

    b = settings.bootstrap
    assert b is not None, "intervals are computed only for settings with ci"
    positions = np.flatnonzero(prepared.kept)
    order, bounds = group_bounds(groups.codes[prepared.kept], groups.n_groups)
    kept_ids = None if ids is None else ids[positions]
    per_group = table.num_rows // groups.n_groups
    metric = table.column("metric").to_pylist()
    measure = table.column("measure").to_pylist()
    value = table.column("value").to_numpy()
    low, high = np.full(table.num_rows, np.nan), np.full(table.num_rows, np.nan)
    enabled = wanted(progress, b.n_resamples * positions.size)
    with running(b.n_resamples * groups.n_groups, "bootstrap", enabled,
                 unit="resample") as bar:
        for g in range(groups.n_groups):
            rows = order[bounds[g]:bounds[g + 1]]
            sub = {m: {k: np.asarray(v)[rows] for k, v in st.items()}
                   for m, st in stats.items()}
            keys = (positions[rows].astype(np.uint64) if kept_ids is None
                    else example_keys(0, kept_ids[rows]))
            resampled = resampled_values(
                sub, keys=keys, average=settings.average, zero_division=settings.zero_division,
                params=settings.params, seed=b.seed, n_resamples=b.n_resamples,
                progress=bar.update)
            for i in range(g * per_group, (g + 1) * per_group):
                low[i], high[i] = percentile_interval(resampled[metric[i]][measure[i]], b.ci,
                                                      float(value[i]))
    at = table.schema.get_field_index("value") + 1
    table = table.add_column(at, "ci_low", pa.array(low, pa.float64()))
    return table.add_column(at + 1, "ci_high", pa.array(high, pa.float64()))


def example_ids(values, n_rows: int) -> np.ndarray:
    """Example ids (one per row, any column form) as an object array of Python values."""
    ids = column_values(values)
    if len(ids) != n_rows:
        raise ValueError(f"ids have {len(ids)} entries but there are {n_rows} rows.")
    for k, value in enumerate(ids):
        if value is None:
            raise ValueError(f"the id of row {k} is null; every row needs an id (ids key "
                             "the bootstrap resamples and pair the rows of detectors).")
    out = np.empty(len(ids), dtype=object)
    out[:] = ids
    return out


# ------------------------------------------------------------------ typology

def typed_table(references, predictions, settings: Settings, prepared: Prepared,
                groups: Groups, *, type_field: str, typed_matching: bool,
                whole=None) -> pa.Table:
    """Per group and type, the rows of `mycelium.evaluate`'s ``by_type`` on the group's
    rows: ``[*keys, type, metric, measure, value, examples, average, profile]``.

    ``whole`` (``{"typed_span": statistics of the kept rows}``, when the call asks for
    ``typed_span``) puts first in each group the rows of ``typed_span``, which compares
    the types itself and so is one value over all types: its ``type`` is null (no
    ``typed_span`` row is ever per type, so a null there never means the "no type"
    group, whose rows are those of the other metrics).

    For each type, the measures `mycelium.views.typology` defines per type (the reference-side
    recalls; every measure under typed matching), then one count row: metric
    ``"counts"``, measure ``"n_ref"``, value the number of reference spans of that type,
    average ``"sum"``. ``examples`` counts the group's examples having the type. A
    group lists the types occurring in its own rows, as ``evaluate`` on those rows does.
    """
    from ..views.typology import sorted_types, typed_for

    typed = typed_for(references, predictions, settings, prepared, type_field=type_field,
                      typed_matching=typed_matching)
    codes = groups.codes[prepared.kept]
    ref_types = types_by_group(references, "references", type_field, groups, prepared.kept)
    pred_types = (types_by_group(predictions, "predictions", type_field, groups,
                                 prepared.kept) if typed_matching else None)
    cells: list[list[tuple]] = []
    for g in range(groups.n_groups):
        in_group = codes == g
        cells.append([])
        for t in sorted_types(ref_types[g], None if pred_types is None else pred_types[g]):
            present = typed.present[t] & in_group
            sub = {m: {k: v[present] for k, v in st.items()}
                   for m, st in typed.stats[t].items()}
            values = aggregate(sub, average=settings.average,
                               zero_division=settings.zero_division, params=settings.params)
            cells[g].append((t, values, int(present.sum()),
                             int(typed.n_ref[t][in_group].sum())))
    return typed_rows(groups, cells, settings, wanted=typed.measures_of(settings.span_metrics),
                      whole=_whole_values(whole, settings, codes, groups))


def typed_rows(groups: Groups, cells: list, settings: Settings, *, wanted,
               whole=({}, None)) -> pa.Table:
    """The rows of `typed_table` from each group's values, however they were reduced (on
    the rows here, or summed on Spark's workers: `mycelium.frames.spark_typed`).

    ``cells[g]`` lists group g's types in `mycelium.views.typology.sorted_types` order, as
    ``(type, {metric: {measure: value}}, examples, n_ref)``; ``wanted`` the (metric,
    measure) pairs kept (None: all, `TypedStatistics.measures_of`); ``whole``, ``(values,
    examples)`` per group of the metrics compared over all types (``typed_span``), whose
    rows come first in each group with a null type.

    Examples
    --------
    >>> groups = group_codes(None, 2)
    >>> t = typed_rows(groups, [[("A", {"character": {"recall": 0.5}}, 2, 3)]],
    ...                resolve_settings(metrics="character"), wanted=None)
    >>> t.column("type").to_pylist(), t.column("value").to_pylist()
    (['A', 'A'], [0.5, 3.0])
    """
    rows: dict[str, list] = {name: [] for name in ("group", TYPE_COLUMN) + TIDY_COLUMNS}
    profile = settings.profile.name if settings.profile else None

    def emit(g, t, metric, measure, value, examples, average):
        for name, v in zip(("group", TYPE_COLUMN) + TIDY_COLUMNS,
                           (g, t, metric, measure, float(value), examples, average, profile)):
            rows[name].append(v)

    whole_values, whole_examples = whole
    for g in range(groups.n_groups):
        for metric, measures in whole_values.items():
            for measure, arr in measures.items():
                emit(g, None, metric, measure, arr[g], int(whole_examples[g]),
                     settings.average)
        for t, values, examples, n_ref in cells[g]:
            for metric, measures in values.items():
                for measure, value in measures.items():
                    if wanted is None or (metric, measure) in wanted:
                        emit(g, t, metric, measure, value, examples, settings.average)
            emit(g, t, COUNTS_METRIC, COUNTS_MEASURE, n_ref, examples, COUNTS_AVERAGE)
    type_array = pa.array(rows.pop(TYPE_COLUMN))
    if pa.types.is_null(type_array.type):
        type_array = type_array.cast(pa.string())
    types = {"metric": pa.string(), "measure": pa.string(), "value": pa.float64(),
             "examples": pa.int64(), "average": pa.string(), "profile": pa.string()}
    columns = {TYPE_COLUMN: type_array,
               **{name: pa.array(rows[name], t) for name, t in types.items()}}
    return _signed(grouped_table(groups, rows["group"], columns), settings)


def _whole_values(whole, settings: Settings, codes: np.ndarray, groups: Groups):
    """Per group, the values of the metrics of ``whole`` (`typed_table`) and the group's
    examples, through the exact group sums every face reduces with."""
    if not whole:
        return {}, None
    from dataclasses import replace

    only = replace(settings, metrics=tuple(whole))
    examples = group_sums({"": np.ones(codes.size, dtype=np.int64)}, codes,
                          groups.n_groups)[""]
    sums: dict[str, np.ndarray] = {}
    for part in row_column_parts(whole, only):
        sums.update(group_sums(part, codes, groups.n_groups))
    return values_from_sums(sums, only, examples=examples), examples


def types_by_group(obj, side: str, field: str, groups: Groups, kept: np.ndarray) -> list:
    """The type of every span of the kept examples, split by group (object arrays).

    Examples
    --------
    >>> refs = [[{"start": 0, "end": 2, "t": "A"}], [{"start": 1, "end": 3, "t": "B"}]]
    >>> [g.tolist() for g in types_by_group(refs, "references", "t", group_codes(None, 2),
    ...                                     np.array([True, True]))]
    [['A', 'B']]
    """
    from ..core.inputs import convert
    from ..views.typology import span_field

    batch = convert(obj, side).batch
    types = span_field(obj, field, side, single=False)
    example = batch.example_ids
    keep = kept[example]
    codes, types = groups.codes[example][keep], types[keep]
    return [types[codes == g] for g in range(groups.n_groups)]


# ------------------------------------------------------------------ columns

def check_column(name: object, role: str, columns: Sequence[object]) -> str:
    """``name`` if it names one of a frame's ``columns``; TypeError for a non-name,
    KeyError listing the columns otherwise (every frame face's column lookup)."""
    if not isinstance(name, str):
        raise TypeError(f"{role} is a {type(name).__name__}; expected a column name.")
    if name not in columns:
        raise KeyError(f"{role} column {name!r} not found; the frame has columns "
                       f"{list(map(str, columns))}.")
    return name


def column_values(col) -> list:
    """The values of a column (pandas, Polars, Arrow, numpy or a sequence) as Python
    values, nulls (None, NaN, pd.NA) as None."""
    col = arrow_or_python(col)
    if isinstance(col, (pa.Array, pa.ChunkedArray)):
        return col.to_pylist()
    if isinstance(col, np.ndarray):
        col = col.tolist()
    return [None if is_null(v) else v for v in col]


def soft_column(col, side: str):
    """Soft labels as the soft metrics read them: an Arrow-backed column of
    ``list<struct<...>>`` as its Arrow array (read column-wise,
    `mycelium.metrics.soft_spearman.soft_flat`), any other form as `soft_lists`."""
    arr = arrow_or_python(col)
    if isinstance(arr, (pa.Array, pa.ChunkedArray)) and (
            pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)) \
            and pa.types.is_struct(arr.type.value_type):
        return arr
    return soft_lists(col, side)


def soft_lists(col, side: str) -> list:
    """Soft labels, one list of ``{start, end, prob}`` per row, from a column of lists of
    dicts, an Arrow / Polars ``list<struct<start, end, prob>>`` column, or JSON strings
    (as in CSV files). Null rows stay None (`soft_spearman` names them if kept)."""
    import json

    out = []
    for k, value in enumerate(column_values(col)):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{side} example {k} is not valid JSON ({exc.msg}); "
                                 "expected a list of {start, end, prob}.") from None
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        out.append(value)
    return out


def take_rows(col, rows: np.ndarray):
    """Rows ``rows`` (positions) of a column in any accepted form, same form."""
    if col is None:
        return None
    module = type(col).__module__
    if module.startswith("polars"):
        return col.gather(rows)
    if module.startswith("pandas"):
        return col.iloc[rows].reset_index(drop=True)
    if isinstance(col, (pa.Array, pa.ChunkedArray)):
        return col.take(pa.array(rows, pa.int64()))
    if isinstance(col, np.ndarray):
        return col[rows]
    return [col[i] for i in rows.tolist()]
