"""Score metrics as sums an engine can add up, so they scale past one machine's memory:
micro and macro ``char_auroc`` / ``char_ap``, ``response_auroc``, ``response_level`` and
every span metric at a threshold (SPEC section 9), per group, on Polars' streaming
engine and on Spark (`mycelium.frames.polars_scores`, `mycelium.frames.spark_scores`).

AUROC and AP are not sums of per-example statistics, but they are functions of the
positive and negative weights at each distinct score (the tie blocks of
`mycelium.metrics.ranking`), and those are sums. Each batch of rows becomes *long
rows* ``(group, kind, column, score, a, b, f)`` (``score``: a float64's bits, as int64):

- ``SUM`` rows, one per (group, summed column): ``a`` the int64 sum of the column over
  the group's rows, ``f`` a float rest. The columns: the examples scored, the span
  metrics' `mycelium.core.engine_sums` columns, ``response_level``'s statistics, and
  each macro score value as exact limbs and a definedness count
  (`mycelium.core.engine_sums.value_columns`);
- ``CHAR`` rows, one per (group, distinct character score): ``a`` and ``b`` the
  positive and negative characters at that score (micro ``char_auroc``, ``char_ap``);
- ``RESPONSE`` rows, one per (group, distinct highest score of an example): ``a`` and
  ``b`` the examples with and without a reference character (``response_auroc``).

An engine adds ``a``, ``b`` (exactly, as integers) and ``f`` per (keys, kind, column,
score); `finish` ranks each group's points once and decodes the sums, with the kernels
`mycelium.evaluate` itself uses. The integers are the ones `mycelium.evaluate` sums on the
group's rows and the tie blocks come in the same order, so every value is the same
double, bit for bit. Memory is one long row per (group, distinct score): scores with few
distinct values (rounded or low-precision probabilities) take little, fully distinct
float scores take a row each.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.engine_sums import (EngineColumn, engine_columns, engine_layout, exact_ints,
                                reduce_engine_sums, value_columns, value_layout)
from ..core.exactsum import means_of_sums
from ..core.groups import (Groups, group_fsums, group_sums, grouped_table, sparse_sums,
                           tidy_columns)
from ..core.inputs import convert
from ..core.pipeline import compute_statistics
from ..core.profiles import get_profile
from ..core.reduce import SEP, values_from_sums
from ..core.score_metrics import example_values, pooled_values_of_sums
from ..core.score_rules import ScoreRules, rules_of
from ..core.scores import score_runs, spans_at_threshold
from ..core.settings import OPTIONS, Settings, profile_default_metrics, resolve_settings
from ..evaluate import prepare
from ..metrics import POOLED_METRICS, SCORE_METRICS, fixed_average
from ..metrics.order import codes_in_order
from ..metrics.ranking import blocks, rank
from ..scores.plan import ScorePlan, score_plan
from ..scores.spans import (as_predictions, plan_tokens, pooled_statistics, prepare_scores,
                            score_signature)
from .engine import SIGNATURE_KEY

__all__ = ["ScoreSums", "score_sums", "frame_score_sums", "batch_rows", "finish", "SUM",
           "CHAR", "RESPONSE", "EMPTY", "EMPTY_AT", "LONG_COLUMNS", "empty_spans_of"]

SUM, CHAR, RESPONSE = 0, 1, 2
#: Zero-length spans, told once per call by the face (`empty_spans_of`): EMPTY rows count
#: them (``column`` 0 references, 1 predictions; ``a`` the count), one EMPTY_AT row is a
#: batch's first (``column`` its side, ``score`` its example's position in the batch,
#: which the face turns into a key unique across batches and ordered as the rows, ``a``
#: ``b`` the span as written, ``f`` its index in the example's spans).
EMPTY, EMPTY_AT = 4, 5
#: The long rows' columns after the keys: (kind, column, score) key them, a, b, f are summed.
#: ``score`` holds the bits of the float64 score as an int64: engines group integers
#: exactly and cheaply (Polars 2.1's streaming ``group_by`` on a Float64 key holds its
#: input rows; on the int64 bits it aggregates as they come).
LONG_COLUMNS = ("kind", "column", "score", "a", "b", "f")
_EXAMPLES = "examples"
#: Metrics whose value is pooled over the examples whatever ``average`` says.


@dataclass(frozen=True, eq=False)
class ScoreSums:
    """What one call computes, as sums: its plan and settings (`mycelium.evaluate`'s for
    the same options), the summed columns' layout and the report's signature."""

    plan: ScorePlan
    settings: Settings
    rules: ScoreRules
    layout: tuple[EngineColumn, ...]       # every SUM column, in order
    span_layout: tuple[EngineColumn, ...]  # the span metrics' part of it
    pooled: tuple[str, ...]                # response_level, if asked for
    char: tuple[str, ...]                  # char_auroc / char_ap, if asked for
    response: bool                         # response_auroc asked for
    signature: str

    @property
    def macro(self) -> bool:
        """Macro char metrics: per-example values summed as limbs (else pooled points)."""
        return self.settings.average == "macro"


def score_sums(options: Mapping[str, Any], *, predictions: bool = False,
               form: str | None = None) -> ScoreSums:
    """The `ScoreSums` of a frame call with these options (the keywords of
    `mycelium.evaluate` among ``options``, the rest left out, so every option reaches
    the settings whole; ``predictions``: a prediction column is given; ``form``:
    ``"token"``, ``"soft"`` or None), checked as `mycelium.evaluate` checks them."""
    o = {k: v for k, v in options.items() if k in OPTIONS}
    profile, metrics, threshold = o.get("profile"), o.get("metrics"), o.get("threshold")
    given = object()  # stands for a column: the plan reads only which ones are given
    if metrics is None and predictions and threshold is None and form is None:
        metrics = profile_default_metrics(profile, soft=False)
    plan = score_plan(metrics, given if predictions else None, soft_references=None,
                      soft_predictions=given if form == "soft" else None,
                      token_offsets=given if form == "token" else None,
                      token_scores=given if form == "token" else None, threshold=threshold,
                      granularity="char", profile=profile)
    settings = resolve_settings(**{**o, "metrics": plan.span_names})
    span_layout = () if plan.placeholder else engine_layout(settings)
    pooled = tuple(m for m in plan.extra if m in POOLED_METRICS)
    char = tuple(m for m in plan.extra if m in SCORE_METRICS
                 and SCORE_METRICS[m].UNIT == "char")
    layout = [EngineColumn(_EXAMPLES, _EXAMPLES, "int", ""), *span_layout]
    layout += [EngineColumn(f"{m}{SEP}{k}", f"{m}{SEP}{k}", "int", "")
               for m in pooled for k in POOLED_METRICS[m].statistics]
    if settings.average == "macro":
        for m in char:
            layout += value_layout(m)
    return ScoreSums(plan, settings, rules_of(get_profile(profile)), tuple(layout),
                     tuple(span_layout), pooled, char, "response_auroc" in plan.extra,
                     score_signature(settings, plan))


def frame_score_sums(pred_col, options: dict) -> ScoreSums | None:
    """The `ScoreSums` of a frame face's call (``options``: its keyword arguments, columns
    by name), or None when an option is not a sum of per-row statistics: intervals
    (they resample each group's examples), the per-type rows (filtered per type), soft
    labels (``soft_spearman``) or units other than characters."""
    if options.get("ci") is not None or options.get("type_field") is not None \
            or options.get("soft_ref_col") is not None \
            or options.get("granularity", "char") != "char":
        return None
    token = options.get("token_offsets_col") is not None \
        or options.get("token_scores_col") is not None
    form = "token" if token else ("soft" if options.get("soft_pred_col") is not None
                                  else None)
    return score_sums(options, predictions=pred_col is not None, form=form)


# --------------------------------------------------------------------- a batch

def batch_rows(ss: ScoreSums, *, references, predictions=None, text=None,
               soft_predictions=None, token_offsets=None, token_scores=None,
               codes: np.ndarray, n_groups: int) -> dict[str, np.ndarray]:
    """The long rows of one batch (module docstring) as numpy columns ``group`` (the
    batch's group of each row, ``codes``) and `LONG_COLUMNS`.

    The batch is read as `mycelium.evaluate` reads a group's rows: scores validated
    against the texts, the spans at the threshold made from them, then the span
    pipeline; errors are `mycelium.evaluate`'s, naming the example within the batch.
    """
    plan, settings = ss.plan, ss.settings
    ref = convert(references, "references")
    n = len(codes)
    si = lengths = None
    if plan.form is not None:
        si, lengths = prepare_scores(ref, text=text, single=False, n_input=n,
                                     soft_predictions=soft_predictions,
                                     token_offsets=token_offsets, token_scores=token_scores,
                                     token_overlap=ss.rules.token_overlap)
    preds: Any = predictions
    stand_in = plan.threshold is None and not plan.has_spans
    if plan.threshold is not None:
        assert si is not None and lengths is not None
        preds = as_predictions(spans_at_threshold(si, lengths, float(plan.threshold),
                                                  inclusive=ss.rules.inclusive), False)
    elif stand_in:  # the references stand in for predictions nobody gave
        preds = ref
    prepared = prepare(ref, preds, text=text, missing=settings.missing, granularity="char",
                       trim_spans=settings.trim_spans, warn_empty=False)
    kept = prepared.kept
    columns = {_EXAMPLES: np.ones(int(kept.sum()), dtype=np.int64)}
    if ss.span_layout:
        stats = compute_statistics(prepared.refs, prepared.preds, settings.span_metrics,
                                   settings.params)
        columns.update(engine_columns(stats, settings, ss.span_layout))
    # tokens as items: token_level, and response_level with unit="tokens"
    by_tokens = "token_level" in ss.pooled or ("response_level" in ss.pooled and settings
                                               .params["response_level"].get("unit")
                                               == "tokens")
    tokens = plan_tokens(plan, si, ref, prepared, ss.rules,
                         trim_spans=settings.trim_spans) if by_tokens else None
    for m, st in pooled_statistics(prepared, list(ss.pooled), {}, settings.params,
                                   tokens=tokens).items():
        columns.update({f"{m}{SEP}{k}": np.asarray(v, dtype=np.int64) for k, v in st.items()})
    kept_codes = codes[kept]
    points = []
    if si is not None and (ss.char or ss.response):
        assert lengths is not None
        runs = score_runs(si if kept.all() else si.take(kept), lengths[kept], prepared.refs)
        if ss.char and ss.macro:
            values = example_values(runs, list(ss.char),
                                    ap_undefined=ss.rules.char_ap_undefined)
            for m in ss.char:
                columns.update(value_columns(m, values[m]))
        elif ss.char:
            points.append(_points(CHAR, kept_codes[runs.example], runs.score, runs.pos,
                                  runs.neg, n_groups))
        if ss.response:
            gold = runs.gold.astype(np.int64)
            points.append(_points(RESPONSE, kept_codes, runs.max_score, gold, 1 - gold,
                                  n_groups))
    return _concat([_sum_rows(ss, columns, kept_codes, n_groups), *points,
                    _empty_rows(prepared, codes, stand_in)])


def _empty_rows(prepared, codes: np.ndarray, stand_in: bool = False
                ) -> dict[str, np.ndarray]:
    """The batch's EMPTY and EMPTY_AT rows (none when it has no zero-length span), in the
    group of the first one's example. ``stand_in``: the references stood in for the
    predictions, none of whose spans is then counted."""
    at = prepared.first_empty
    if at is None:
        return _concat([])
    counts = np.asarray(prepared.empty_spans, dtype=np.int64)
    if stand_in:
        counts[1] = 0
    group = np.full(3, codes[at.example], dtype=np.int64)
    return {"group": group, "kind": np.array([EMPTY, EMPTY, EMPTY_AT], np.int8),
            "column": np.array([0, 1, 0 if at.side == "references" else 1], np.int32),
            "score": np.array([0, 0, at.example], np.int64),
            "a": np.array([counts[0], counts[1], at.start], np.int64),
            "b": np.array([0, 0, at.end], np.int64),
            "f": np.array([0.0, 0.0, float(at.span)])}


def empty_spans_of(rows: dict[str, np.ndarray]):
    """``((references, predictions), (side, key, span, start, end))`` from the summed
    long rows: the zero-length spans of the call and its first (the EMPTY_AT row of the
    least key, the face's); None when there was none."""
    kind = np.asarray(rows["kind"])
    at = np.flatnonzero(kind == EMPTY_AT)
    if not at.size:
        return None
    column, a = np.asarray(rows["column"]), np.asarray(rows["a"])
    counts = tuple(int(sum(a[(kind == EMPTY) & (column == c)].tolist())) for c in (0, 1))
    first = at[np.argmin(np.asarray(rows["score"])[at])]
    side = "references" if int(column[first]) == 0 else "predictions"
    return counts, (side, int(rows["score"][first]), int(rows["f"][first]), int(a[first]),
                    int(rows["b"][first]))


def _sum_rows(ss: ScoreSums, columns: dict[str, np.ndarray], codes: np.ndarray,
              n_groups: int) -> dict[str, np.ndarray]:
    """SUM rows: per (group, column) the column's sum; zero sums are left out but for
    the examples (every group of the batch keeps its row)."""
    sums = group_sums({col.label: columns[col.label] for col in ss.layout}, codes, n_groups)
    parts: list[dict[str, np.ndarray]] = []
    for c, col in enumerate(ss.layout):
        summed = sums[col.label]
        keep = np.arange(n_groups) if c == 0 else np.flatnonzero(summed != 0)
        ints = np.zeros(keep.size, np.int64)
        floats = np.zeros(keep.size, np.float64)
        if columns[col.label].dtype.kind in "iu":  # a limb, a count: int64, exact
            ints = summed[keep].astype(np.int64)
        else:  # a float rest (its sum correctly rounded; the engine adds the batches')
            floats = summed[keep].astype(np.float64)
        parts.append({"group": keep, "kind": np.full(keep.size, SUM, np.int8),
                      "column": np.full(keep.size, c, np.int32),
                      "score": np.zeros(keep.size, np.int64), "a": ints,
                      "b": np.zeros(keep.size, np.int64), "f": floats})
    return _concat(parts)


def _points(kind: int, group: np.ndarray, score: np.ndarray, a: np.ndarray,
            b: np.ndarray, n_groups: int) -> dict[str, np.ndarray]:
    """Rows of ``kind``: per (group, distinct score) the sums of ``a`` and ``b``."""
    codes, distinct = codes_in_order(score)  # 0.0 and -0.0 are one score
    k = max(distinct.size, 1)
    at, (sa, sb) = sparse_sums(group.astype(np.int64) * k + codes, n_groups * k, [a, b])
    return {"group": at // k, "kind": np.full(at.size, kind, np.int8),
            "column": np.full(at.size, -1, np.int32),
            "score": (distinct[at % k] if distinct.size else np.zeros(0)).view(np.int64),
            "a": sa, "b": sb, "f": np.zeros(at.size)}


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    if not parts:  # no rows, of the long rows' types
        parts = [{"group": np.zeros(0, np.int64), "kind": np.zeros(0, np.int8),
                  "column": np.zeros(0, np.int32), "score": np.zeros(0, np.int64),
                  "a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64),
                  "f": np.zeros(0)}]
    return {name: np.concatenate([p[name] for p in parts]) for name in ("group",
                                                                         *LONG_COLUMNS)}


# ---------------------------------------------------------------- the finish

def finish(ss: ScoreSums, rows: dict[str, np.ndarray], groups: Groups) -> pa.Table:
    """The tidy table (`mycelium.frames.engine.tidy_from_sums`'s columns, the signature
    in its metadata) from the engine's summed long rows: ``rows["group"]`` the final
    group of each row (of ``groups``), ``a``, ``b`` exact integers (int64 or Python
    ints), ``f`` floats."""
    n = groups.n_groups
    kind, group = np.asarray(rows["kind"]), np.asarray(rows["group"], dtype=np.int64)
    sums = _column_sums(ss, rows, kind == SUM, group, n)
    values: dict[str, dict[str, np.ndarray]] = {}
    if ss.span_layout:
        values.update(values_from_sums(sums, ss.settings, examples=sums[_EXAMPLES]))
    for m in ss.pooled:
        values[m] = _pooled(m, sums, n, ss.settings.zero_division)
    for m in ss.char:
        if ss.macro:
            means = means_of_sums(*(sums[f"{m}{SEP}{p}"] for p in
                                    ("h", "m", "l", "residual", "defined")))
            values[m] = {"score": means}
        else:
            values[m] = {"score": _ranked(m, rows, kind == CHAR, group, n)}
    if ss.response:
        values["response_auroc"] = {"score": _ranked("response_auroc", rows,
                                                     kind == RESPONSE, group, n)}
    return _tidy(ss, values, np.asarray(sums[_EXAMPLES]), groups)


def _column_sums(ss: ScoreSums, rows, sel: np.ndarray, group: np.ndarray, n: int) -> dict:
    """``reduce_engine_sums`` of the SUM rows: per group the exact sums of every column."""
    column = np.asarray(rows["column"])[sel]
    a, f = exact_ints(rows["a"])[sel], np.asarray(rows["f"], dtype=np.float64)[sel]
    g = group[sel]
    partials: dict[str, np.ndarray] = {}
    for c, col in enumerate(ss.layout):
        at = column == c
        if col.integer:
            partials[col.label] = group_sums({"": a[at]}, g[at], n)[""] if at.any() \
                else np.zeros(n, dtype=np.int64)
        else:
            partials[col.label] = group_fsums(f[at], g[at], n)
    return reduce_engine_sums(partials, np.arange(n), n, ss.settings, layout=ss.layout)


def _pooled(m: str, sums, n: int, zero_division: float) -> dict[str, np.ndarray]:
    """``response_level``'s measures per group from its summed statistics."""
    st = {k: sums[f"{m}{SEP}{k}"] for k in POOLED_METRICS[m].statistics}
    return {k: np.asarray(v, dtype=np.float64)
            for k, v in pooled_values_of_sums(st, m, zero_division=zero_division).items()}


def _ranked(m: str, rows, sel: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
    """A curve metric per group from its points: one ranking of all groups' points."""
    score = np.asarray(rows["score"], dtype=np.int64)[sel].view(np.float64)
    pos, neg = exact_ints(rows["a"])[sel], exact_ints(rows["b"])[sel]
    if pos.dtype == object or neg.dtype == object:  # beyond int64: not a character count
        raise OverflowError(f"Expected {m}'s weights below 2**63 per score, got more; fix "
                            "by scoring fewer characters at once.")
    if not score.size:
        return np.full(n, np.nan)
    b = blocks(rank(score, group[sel], n), pos, neg)
    return SCORE_METRICS[m].values(b)[0]


def _tidy(ss: ScoreSums, values, examples: np.ndarray, groups: Groups) -> pa.Table:
    """One row per (group, metric, measure), groups outermost, in the report's order."""
    settings, plan = ss.settings, ss.plan
    names = [m for m in settings.metrics if not plan.placeholder] + list(plan.extra)
    pairs = [(m, k) for m in names for k in values[m]]
    profile = settings.profile.name if settings.profile else None
    group, columns = tidy_columns(values, pairs, groups.n_groups, examples=exact_ints(examples),
                                  averages=[fixed_average(m) or settings.average
                                            for m, _ in pairs], profile=profile)
    table = grouped_table(groups, group, columns)
    return table.replace_schema_metadata({SIGNATURE_KEY: ss.signature.encode()})
