"""The lazy Polars face: ``pl.LazyFrame.mycelium``, streaming with bounded memory.

Each streamed batch is scored with the core (in slices) and reduced to one row of exact
int64 sums per group (`mycelium.core.engine_sums`); Polars adds them per group in Int128 and
the few group rows are finished by `mycelium.frames.engine.tidy_from_sums` — so a lazy plan
gives the eager faces' numbers bit for bit without holding rows. Registered by
`mycelium.frames.polars` (itself registered when Polars is imported).
"""

from __future__ import annotations

from typing import Any

from functools import partial

import numpy as np
import polars as pl
import pyarrow as pa

from ..core.engine_sums import engine_columns, engine_layout, exact_ints, reduce_engine_sums
from ..core.pipeline import EmptyAt, compute_statistics, soft_given
from ..core.groups import group_sums
from ..core.settings import OPTIONS, Settings, resolve_settings
from ..metrics import METRICS
from . import engine as frames
from ._options import (Average, By, Granularity, Metrics, Missing, Params, ProfileArg,
                       TrimSpans, ZeroDivision)
from .polars_batches import (
    COUNT,
    ROW,
    STATS,
    TIDY,
    TellOnce,
    batch_scores,
    check_columns,
    first_row,
    polars_frame,
    batch_inputs,
    prepare_batch,
)


@pl.api.register_lazyframe_namespace("mycelium")
class MyceliumLazyFrame:
    """Lazy scoring: ``lf.mycelium.evaluate(...)`` is a LazyFrame that runs on ``collect()``.

    The plan reads only the span, text and key columns, scores them batch by batch
    (on Polars' streaming engine with ``collect(engine="streaming")``, so span columns
    are never held for all rows), lets Polars sum exact integer columns per group
    (`mycelium.core.engine_sums`) and finishes the groups with `mycelium.frames.engine`, the
    engine of every face: memory does not grow with the number of rows.

    Examples
    --------
    >>> import os, tempfile, polars as pl, mycelium
    >>> df = pl.DataFrame({"model": ["a", "a", "b"],
    ...                    "ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
    ...                    "pred": [[[2, 8]], [[4, 7]], []]})
    >>> path = os.path.join(tempfile.mkdtemp(), "spans.parquet")
    >>> df.write_parquet(path)
    >>> plan = pl.scan_parquet(path).mycelium.evaluate("ref", "pred", by="model",
    ...                                                metrics="character", average="micro")
    >>> isinstance(plan, pl.LazyFrame)
    True
    >>> out = plan.collect(engine="streaming")
    >>> out.filter(pl.col("measure") == "recall").select("model", "value").rows()
    [('a', 0.6923076923076923), ('b', 0.0)]
    >>> out.equals(df.mycelium.evaluate("ref", "pred", by="model", metrics="character",
    ...                                 average="micro"))
    True
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def evaluate(self, ref_col: str, pred_col: str | None = None, *,
                 text: str | None = None, by: By = None, profile: ProfileArg = None,
                 metrics: Metrics = None, average: Average | None = None,
                 zero_division: ZeroDivision = None, params: Params = None,
                 missing: Missing = "error", soft_ref_col: str | None = None,
                 soft_pred_col: str | None = None, granularity: Granularity = "char",
                 trim_spans: TrimSpans = None, ci: float | None = None,
                 n_resamples: int = 1000, seed: int = 0, id_col: str | None = None,
                 progress: bool | None = None, type_field: str | None = None,
                 typed_matching: bool = False, token_offsets_col: str | None = None,
                 token_scores_col: str | None = None, threshold: float | None = None,
                 with_signature: bool = True, offsets: str = "half-open") -> pl.LazyFrame:
        """Tidy results as a LazyFrame; arguments and result as `MyceliumFrame.evaluate`.

        Parameters
        ----------
        ref_col, pred_col : str
            Span columns of the plan.
        text : str, optional
            Column of output texts; spans must end within them.
        by : str or list of str, optional
            Group key columns, grouped and ordered as by the eager faces.
        profile, metrics, average, zero_division, params, missing
            As in `mycelium.evaluate`.
        soft_ref_col, soft_pred_col, granularity, trim_spans, offsets
            As in the eager face (`mycelium.frames.polars.MyceliumFrame.evaluate`):
            streamed, batch by batch.
        token_offsets_col, token_scores_col, threshold
            As in the eager face, and so is ``soft_pred_col`` alone (a score column):
            the score metrics, ``response_level`` and the spans at a threshold stream,
            summed per group and distinct score (`mycelium.frames.polars_scores`).
        type_field, typed_matching
            As in the eager face. The per-type rows stream: each batch's sums per
            group and type (`mycelium.frames.typed_sums`), summed by Polars in Int128,
            when the span structs hold the type as a String field; types in another
            form (JSON strings, another dtype) are gathered as below.
        ci, n_resamples, seed, id_col, progress
            As in the eager face. These are not sums of per-row statistics (intervals
            resample each group's examples), so with any of them the plan does not
            stream: on ``collect()`` it gathers the columns it reads (only those) and
            scores them with the eager face, which gives the same numbers.
        with_signature : bool
            Add the last column ``signature`` (default), as the eager face does.

        Returns
        -------
        polars.LazyFrame
            A plan whose ``collect()`` is `mycelium.frames.polars.MyceliumFrame.evaluate`
            of the collected frame, bit for bit.

        Raises
        ------
        KeyError, TypeError, ValueError
            A missing column, a column argument that is not a name, or an invalid
            option: checked now, from the schema, without reading data.
        mycelium.SpanValidationError
            On ``collect()``: a bad span, named by the row's position in the plan's rows.

        Notes
        -----
        The plan holds a batch of rows at a time and O(groups) sums, however many rows
        it reads:

        1. each batch of rows (a streamable ``map_batches`` over the key, span and text
           columns only) is validated and scored by the core; each row's statistics
           become `mycelium.core.reduce.row_columns` — the columns whose exact group sums
           determine every result (the statistics for micro, exact integer limbs of
           each per-example value for macro) — rewritten as int64 columns by
           `mycelium.core.engine_sums`, and summed per group within the batch, so one row
           per group and batch leaves it (span columns and per-row values do not);
        2. Polars adds these up per group (``group_by(by).agg(sum)`` in Int128: exact
           beyond 2**63), with the number of rows scored and each group's first row;
        3. on ``collect()``, the one-row-per-group result is grouped again by
           `mycelium.frames.engine.group_codes` (which merges keys pandas considers equal,
           NaN and null, and orders groups as every face does) and finished by
           `mycelium.frames.engine.tidy_from_sums`.

        Integer sums are exact in any order, so the numbers equal the eager faces and
        `mycelium.evaluate` bit for bit, for any batching. The only float sums are the
        rests of `mycelium.core.engine_sums`, zero unless a per-example value (macro) or a
        CLEval numerator (micro, fractional ``granularity_penalty_weight``) has bits
        below 2**-115 — not reachable by a built-in measure.

        On the streaming engine (``collect(engine="streaming")``) span columns are
        held a batch of rows at a time (scored 32,768 rows at a time); the in-memory
        engine reads all rows first, so use the streaming engine for large inputs.
        Polars decodes a Parquet row group at a time and reads ahead of a slow
        consumer: smaller row groups (say 100,000 rows) lower the peak memory.

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> lf = pl.LazyFrame({"ref": [[[0, 10]], [[4, 7]], [[0, 5]]],
        ...                    "pred": [[[2, 8]], [[4, 7]], []]})
        >>> plan = lf.mycelium.evaluate("ref", "pred", metrics="iou", average="micro")
        >>> plan.collect().select("metric", "value", "examples").rows()
        [('iou', 0.5, 3)]
        """
        arguments = dict(locals())  # first: the face's arguments, every option among them
        from . import scores

        # What the eager face is called with when the plan does not stream: every option.
        eager = {k: v for k, v in arguments.items() if k not in ("self", "ref_col", "pred_col")}
        if scores.soft_from_spans(profile, soft_ref_col, soft_pred_col):
            # The per-label rows of soft_spearman_by_label are not sums over rows: the
            # columns are gathered and scored by the eager face.
            return _collected(self._lf, ref_col, pred_col, eager)
        if type_field is not None and _typed_streams(self._lf, arguments):
            return _typed_plan(self._lf, arguments)
        if ci is not None or type_field is not None or scores.wanted(
                pred_col, soft_ref_col, soft_pred_col, token_offsets_col, token_scores_col,
                threshold, metrics, profile=profile):
            from .polars_scores import streamed_scores

            # inclusive offsets with scores: the eager face reads them
            streamed = streamed_scores(self._lf, ref_col, pred_col, eager) \
                if offsets == "half-open" else None
            return streamed if streamed is not None else _collected(
                self._lf, ref_col, pred_col, eager)
        soft = soft_given(soft_ref_col, soft_pred_col)
        settings = frames.face_call(arguments)[1]
        settings = settings.scoring(settings.asked, soft=soft)
        names = frames.normalize_by(by)
        schema = self._lf.collect_schema()
        check_columns(schema.names(), ref_col, pred_col, text, names)
        for role, name in (("soft_ref_col", soft_ref_col), ("soft_pred_col", soft_pred_col)):
            if name is not None:
                frames.check_column(name, role, schema.names())
        frames.key_table({n: pl.Series(n, [], dtype=schema[n]) for n in names})  # types
        layout = engine_layout(settings)
        inputs = list(dict.fromkeys([*names, ROW, ref_col, pred_col]
                                    + ([text] if text is not None else [])
                                    + ([soft_ref_col, soft_pred_col] if soft else [])))
        sums_schema = ({name: schema[name] for name in names}
                       | {c.label: pl.Int128 if c.integer else pl.Float64 for c in layout}
                       | {COUNT: pl.Int64, ROW: pl.get_index_type()} | EMPTY_SCHEMA)
        batch_sums = (self._lf.with_row_index(ROW).select(inputs).map_batches(
            partial(_batch_sums, ref_col=ref_col, pred_col=pred_col, text=text,
                    soft=(soft_ref_col, soft_pred_col) if soft else None, names=names,
                    settings=settings, layout=layout, schema=sums_schema),
            streamable=True, schema=sums_schema))
        sums = _sums(layout)
        partials = (batch_sums.group_by(names).agg(sums) if names
                    else batch_sums.select(sums))
        out_schema = {name: schema[name] for name in names} | TIDY
        if with_signature:
            out_schema["signature"] = pl.String
        return partials.map_batches(
            partial(_finish_sums, settings=settings, names=names, layout=layout,
                    schema=out_schema), schema=out_schema)

    def score(self, ref_col: str, pred_col: str, *, text: str | None = None,
              profile: ProfileArg = None, metrics: Metrics = None,
              zero_division: ZeroDivision = None, params: Params = None,
              missing: Missing = "error", granularity: Granularity = "char",
              trim_spans: TrimSpans = None, offsets: str = "half-open") -> pl.LazyFrame:
        """Per-row measures as a LazyFrame, computed batch by batch (streamable).

        Parameters
        ----------
        ref_col, pred_col, text : str
            Span columns of the plan and the column of output texts, as in `evaluate`.
        profile, metrics, zero_division, params, missing, granularity, trim_spans, offsets
            As in `mycelium.evaluate` (no ``average``: every row is one example).
            Zero-length spans are told by one `mycelium.EmptySpanWarning` per plan: the
            rows stream with no step after the last batch, so it tells the first batch
            holding any (`mycelium.frames.polars_batches.TellOnce`); ``evaluate``
            counts a whole call.

        Returns
        -------
        polars.LazyFrame
            A plan whose ``collect()`` is `mycelium.frames.polars.MyceliumFrame.score` of
            the collected frame: one Float64 column ``<metric>_<measure>`` per measure,
            in row order.

        Raises
        ------
        KeyError, TypeError, ValueError
            As for `evaluate`, checked now.

        Examples
        --------
        >>> import polars as pl, mycelium
        >>> lf = pl.LazyFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], []]})
        >>> lf.mycelium.score("ref", "pred", metrics="iou").collect()["iou_score"].to_list()
        [0.6, 0.0]
        """
        options: dict[str, Any] = dict(profile=profile, metrics=metrics,
                                       zero_division=zero_division, params=params,
                                       missing=missing, granularity=granularity,
                                       trim_spans=trim_spans, offsets=offsets)
        settings = resolve_settings(**options)
        from .scores import soft_from_spans

        # A profile whose soft labels are the spans (shroom_visions) scores each row
        # alone too: every batch reads them from its span columns (`batch_scores`).
        spans_soft = settings.profile is not None and soft_from_spans(profile, None, None)
        check_columns(self._lf.collect_schema().names(), ref_col, pred_col, text, [])
        scored = settings.scoring(settings.asked, soft=True) if spans_soft else settings
        columns = [f"{m}_{k}" for m in scored.metrics  # a soft metric's one measure: score
                   for k in (METRICS[m].measures if m in METRICS else ("score",))]
        scores = batch_inputs(ref_col, pred_col, text, row=True).map_batches(
            partial(batch_scores, settings=settings, once=TellOnce()),
            return_dtype=pl.Struct({c: pl.Float64 for c in columns}), is_elementwise=True)
        return (self._lf.with_row_index(ROW).select(scores.alias(STATS))
                .unnest(STATS))


def _collected(lf: pl.LazyFrame, ref_col: str, pred_col: str | None, options: dict
               ) -> pl.LazyFrame:
    """The plan of an option that does not stream: on ``collect()``, the columns it reads
    are gathered and scored by the eager face (`MyceliumFrame.evaluate`), so the numbers
    are the eager face's. Columns and options are checked now, on an empty frame."""
    schema = lf.collect_schema()
    roles = {"ref_col": ref_col, "pred_col": pred_col, "text": options["text"],
             "soft_ref_col": options["soft_ref_col"],
             "soft_pred_col": options["soft_pred_col"], "id_col": options["id_col"],
             "token_offsets_col": options["token_offsets_col"],
             "token_scores_col": options["token_scores_col"],
             **{f"by[{i}]": b for i, b in enumerate(frames.normalize_by(options["by"]))}}
    for role, name in roles.items():
        if name is not None:
            frames.check_column(name, role, schema.names())
    columns = list(dict.fromkeys(n for n in roles.values() if n is not None))
    from ..scores.plan import split_metrics

    rest, _ = split_metrics(options["metrics"])
    # the option checks, now: every option of the call, as the eager face will check them
    resolve_settings(**{**{k: v for k, v in options.items() if k in OPTIONS},
                        "metrics": rest or None})
    names = frames.normalize_by(options["by"])
    out_schema: dict[str, Any] = {n: schema[n] for n in names}
    from .scores import label_rows_wanted

    if options["type_field"] is not None or label_rows_wanted(options["profile"],
                                                              options["metrics"]):
        out_schema["type"] = pl.String
    tidy: dict[str, Any] = dict(TIDY)
    if options["ci"] is not None:
        tidy = {k: v for k, v in tidy.items() if k in ("metric", "measure", "value")} | {
            "ci_low": pl.Float64, "ci_high": pl.Float64} | {
            k: v for k, v in tidy.items() if k in ("examples", "average", "profile")}
    out_schema |= tidy
    if options["with_signature"]:
        out_schema["signature"] = pl.String

    def run(df: pl.DataFrame) -> pl.DataFrame:
        from .polars import MyceliumFrame  # the eager face (registered beside this one)

        return MyceliumFrame(df).evaluate(ref_col, pred_col, **options).cast(
            pl.Schema(out_schema))

    return lf.select(columns).map_batches(run, schema=out_schema)


# ----------------------------------------------------------------------- Expr


def _sums(layout) -> list[pl.Expr]:
    """Group sums of the engine columns (Int128: exact), the examples, the first row
    (its minimum as Int64: see `first_row`) and the zero-length spans (`EMPTY_SCHEMA`)."""
    return ([pl.col(c.label).cast(pl.Int128 if c.integer else pl.Float64).sum()
             for c in layout] + [pl.col(COUNT).sum(), first_row(),
                                 pl.col(EMPTY_REF).sum(), pl.col(EMPTY_PRED).sum(),
                                 pl.col(EMPTY_FIRST).min()])


#: Zero-length spans, told by one `mycelium.EmptySpanWarning` per ``collect()`` (the
#: batches are prepared without warning): how many each side listed, and the first,
#: ``"<row, 20 digits>|<where>"`` so that the minimum string is the first row's.
EMPTY_REF, EMPTY_PRED, EMPTY_FIRST = "__empty_ref", "__empty_pred", "__empty_first"
EMPTY_SCHEMA = {EMPTY_REF: pl.Int64, EMPTY_PRED: pl.Int64, EMPTY_FIRST: pl.String}


def _empty_columns(prepared, rows: pl.Series, n: int | None = None) -> dict[str, Any]:
    """A slice's zero-length spans as `EMPTY_SCHEMA` columns: its counts and its first
    on the slice's first row (zeros and nulls elsewhere; only their totals are read).
    ``n``: the rows the columns go with, when not one per row of ``rows`` (the frame
    rows, which locate the first)."""
    n = rows.len() if n is None else n
    refs, preds = np.zeros(n, np.int64), np.zeros(n, np.int64)
    first: list[str | None] = [None] * n
    at = prepared.first_empty
    if at is not None and n:
        refs[0], preds[0] = prepared.empty_spans
        row = int(rows[at.example])
        first[0] = f"{row:020d}|{EmptyAt(at.side, row, at.span, at.start, at.end)}"
    return {EMPTY_REF: refs, EMPTY_PRED: preds, EMPTY_FIRST: pl.Series(first, dtype=pl.String)}


def _warn_empty(df: pl.DataFrame) -> None:
    """The one `mycelium.EmptySpanWarning` of a collect, from the summed columns."""
    first = df.get_column(EMPTY_FIRST).min()
    if first is None:
        return
    from ..core.pipeline import warn_empty_spans

    counts = (int(df.get_column(EMPTY_REF).sum()), int(df.get_column(EMPTY_PRED).sum()))
    row, where = str(first).split("|", 1)
    warn_empty_spans(counts, f"{where} (example {int(row)} is the row's position in the "
                     "LazyFrame's rows as they reach mycelium, counted from 0 after any "
                     "filter or slice in the plan)", within=("polars",))



_SLICE = 1 << 15  # rows scored at a time inside a batch: bounds the core's scratch memory


def _batch_sums(df: pl.DataFrame, *, ref_col, pred_col, text, soft, names,
                settings: Settings, layout, schema) -> pl.DataFrame:
    """One batch of rows → its per-group sums (`_sums`): one row per group of each slice.

    Each row is scored by the core and becomes `mycelium.core.engine_sums.engine_columns`
    (zeros and no example for rows left out by ``missing="drop"``); summing them here
    already, slice by slice, means only a few rows per slice travel on through the plan.
    Rows are scored `_SLICE` at a time, so memory does not grow with the batch size.
    """
    parts = [_slice_sums(df.slice(start, _SLICE), ref_col=ref_col, pred_col=pred_col,
                         text=text, soft=soft, names=names, settings=settings,
                         layout=layout)
             for start in range(0, max(df.height, 1), _SLICE)]
    out = parts[0] if len(parts) == 1 else pl.concat(parts)
    if len(parts) > 1 and not names:
        out = out.select(_sums(layout))
    # Grouped, the slices' sums travel on as they are: the plan's group_by adds them up
    # once (adding them here too would pay for the same grouping twice when the groups
    # are many and small).
    return out.select(list(schema))


def _slice_sums(df: pl.DataFrame, *, ref_col, pred_col, text, soft, names,
                settings: Settings, layout) -> pl.DataFrame:
    soft_ref, soft_pred = soft if soft is not None else (None, None)
    batch = df.select(batch_inputs(ref_col, pred_col, text, row=True, soft_ref=soft_ref,
                              soft_pred=soft_pred).alias(STATS)).to_series()
    prepared = prepare_batch(batch, settings.missing, settings, warn_empty=False)
    if soft is None:
        stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                   settings.params)
    else:
        stats = frames.all_statistics(
            prepared, settings, text=batch.struct.field("text") if text else None,
            soft_references=batch.struct.field("soft_ref"),
            soft_predictions=batch.struct.field("soft_pred"))
    columns = engine_columns(stats, settings, layout)
    kept = prepared.kept
    columns[COUNT] = np.ones(int(kept.sum()), dtype=np.int64)
    if not kept.all():
        for label, col in columns.items():
            full = np.zeros(kept.size, dtype=col.dtype)
            full[kept] = col
            columns[label] = full
    columns |= _empty_columns(prepared, df.get_column(ROW))
    rows = df.select(*names, ROW).hstack(pl.DataFrame(columns))
    return rows.group_by(names).agg(_sums(layout)) if names else rows.select(_sums(layout))


def _finish_sums(df: pl.DataFrame, *, settings, names, layout, schema) -> pl.DataFrame:
    """The tidy result from Polars' per-group sums (one row per group, not per row).

    Partial groups are ordered by their first row and grouped again by
    `frames.group_codes`, which merges keys pandas considers equal (NaN and null) and
    keeps the key value of the group's first row, as the eager faces do; the integer
    sums of merged partials are added exactly.
    """
    _warn_empty(df)
    # In first-row order; only the columns read are gathered, as numpy (not the frame).
    order = df.get_column(ROW).arg_sort(nulls_last=True).to_numpy()
    keys = df.select(names).to_arrow().take(order) if names else None
    groups = frames.group_codes(keys, df.height)
    partials = {c.label: (_exact_sums(df[c.label]) if c.integer
                          else df[c.label].fill_null(0.0).to_numpy())[order] for c in layout}
    sums = reduce_engine_sums(partials, groups.codes, groups.n_groups, settings, layout)
    examples = group_sums({"": _exact_sums(df[COUNT])[order]}, groups.codes,
                          groups.n_groups)[""]
    table = frames.tidy_from_sums(sums, examples, groups, settings)
    return _result(table, settings, schema)


def _exact_sums(sums: pl.Series) -> np.ndarray:
    """Int128 (or Int64) group sums as `exact_ints` gives them (int64 read column-wise
    when Polars can cast them, else as Python ints)."""
    sums = sums.fill_null(0)
    small = sums.cast(pl.Int64, strict=False)
    return exact_ints(small.to_numpy() if small.null_count() == 0 else sums.to_list())


def _result(table: pa.Table, settings: Settings, schema) -> pl.DataFrame:
    out = polars_frame(table)
    if "signature" in schema:
        out = out.with_columns(signature=pl.lit(settings.signature(), pl.String))
    return out.cast(schema)


# ------------------------------------------------------------------ per-type rows


def _typed_streams(lf: pl.LazyFrame, arguments: dict) -> bool:
    """Whether a call's per-type rows stream (`_typed_plan`): spans alone (no scores,
    soft labels or intervals, which take the other paths), read as written, with types
    that Polars holds as a String field of the span structs (other forms are collected)."""
    from .typed_sums import summable

    a = arguments
    if not summable(a):
        return False
    schema = lf.collect_schema()
    for name in [a["ref_col"]] + ([a["pred_col"]] if a["typed_matching"] else []):
        dtype = schema.get(name) if isinstance(name, str) else None
        if not (isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct)
                and dict(dtype.inner.to_schema()).get(a["type_field"]) == pl.String):
            return False
    return True


def _typed_plan(lf: pl.LazyFrame, arguments: dict) -> pl.LazyFrame:
    """The per-type rows as a streaming plan: each batch's sums per group and type
    (`mycelium.frames.typed_sums.batch_sums`), summed per (group, type) by Polars in
    Int128, finished from the few summed rows (`mycelium.frames.typed_sums.finish`):
    the eager face's rows, bit for bit, without gathering the frame."""
    from .typed_sums import KIND_COL, N_COL, NREF_COL, TYPE_COL, typed_plan

    settings = frames.face_call(arguments)[1]
    settings = settings.scoring(settings.asked, soft=False)
    ref_col, pred_col, text = arguments["ref_col"], arguments["pred_col"], arguments["text"]
    names = frames.normalize_by(arguments["by"])
    schema = lf.collect_schema()
    check_columns(schema.names(), ref_col, pred_col, text, names)
    frames.key_table({n: pl.Series(n, [], dtype=schema[n]) for n in names})  # types
    plan = typed_plan(settings)
    ints = [N_COL, NREF_COL] + [n for n, c, _ in plan.columns() if c.integer]
    floats = [n for n, c, _ in plan.columns() if not c.integer]
    sums_schema = ({n: schema[n] for n in names}
                   | {KIND_COL: pl.Int32, TYPE_COL: pl.String}
                   | {n: pl.Int64 for n in ints} | {n: pl.Float64 for n in floats}
                   | {ROW: pl.get_index_type()} | EMPTY_SCHEMA)
    inputs = list(dict.fromkeys([*names, ROW, ref_col, pred_col]
                                + ([text] if text is not None else [])))
    batch_sums = lf.with_row_index(ROW).select(inputs).map_batches(
        partial(_typed_batch, ref_col=ref_col, pred_col=pred_col, text=text, names=names,
                plan=plan, schema=sums_schema), streamable=True, schema=sums_schema)
    partials = batch_sums.group_by([*names, KIND_COL, TYPE_COL]).agg(
        [pl.col(n).cast(pl.Int128).sum() for n in ints]
        + [pl.col(n).sum() for n in floats] + [first_row(), pl.col(EMPTY_REF).sum(),
                                               pl.col(EMPTY_PRED).sum(),
                                               pl.col(EMPTY_FIRST).min()])
    out_schema = {n: schema[n] for n in names} | {"type": pl.String} | TIDY
    if arguments["with_signature"]:
        out_schema["signature"] = pl.String
    return partials.map_batches(partial(_typed_finish, plan=plan, names=names, ints=ints,
                                        floats=floats, schema=out_schema),
                                schema=out_schema)


def _typed_batch(df: pl.DataFrame, *, ref_col, pred_col, text, names, plan,
                 schema) -> pl.DataFrame:
    """One batch of rows → its sums per group and type, each group's keys and first row
    taken from the group's first row in the batch."""
    from .typed_sums import batch_sums

    keys = df.select(names).to_arrow() if names else None
    groups = frames.group_codes(keys, df.height)
    g, columns, prepared = batch_sums(df.get_column(ref_col), df.get_column(pred_col),
                                      df.get_column(text) if text is not None else None,
                                      groups, plan)
    first = np.full(groups.n_groups, df.height, dtype=np.int64)
    np.minimum.at(first, groups.codes, np.arange(df.height, dtype=np.int64))
    rows = df.select(*names, ROW)[first[g]] if g.size else df.select(*names, ROW).clear()
    empty = pl.DataFrame(_empty_columns(prepared, df.get_column(ROW), g.size))
    return rows.hstack(pl.DataFrame(pa.table(columns))).hstack(empty).select(
        list(schema)).cast(pl.Schema(schema))


def _typed_finish(df: pl.DataFrame, *, plan, names, ints, floats, schema) -> pl.DataFrame:
    """The per-type rows from Polars' sums per (group, type) (partials in first-row
    order, so that merged keys show their first row's value, as in `_finish_sums`)."""
    from .typed_sums import KIND_COL, TYPE_COL, finish

    _warn_empty(df)
    order = df.get_column(ROW).arg_sort(nulls_last=True).to_numpy()
    keys = df.select(names).to_arrow().take(order) if names else None
    columns: dict[str, Any] = {n: _exact_sums(df[n])[order] for n in ints}
    columns |= {n: df[n].fill_null(0.0).to_numpy()[order] for n in floats}
    columns[KIND_COL] = df[KIND_COL].to_numpy()[order]
    columns[TYPE_COL] = np.array(df[TYPE_COL].to_list() + [None], dtype=object)[:-1][order]
    return _result(finish(columns, keys, plan), plan.settings, schema)
