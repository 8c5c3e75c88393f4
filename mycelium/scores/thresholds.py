"""Thresholds: `sweep` (span metrics at many thresholds) and `tune_threshold` (the best one).

SPEC section 9. The spans at threshold t are `mycelium.spans_at`'s; every value of a
sweep equals `mycelium.evaluate` with ``threshold=t`` on the same inputs (on a group's
rows, for a group). Groups are those of every face (`mycelium.core.groups`); each group's
thresholds are its own (`mycelium.scores.grids`), its values come from
`mycelium.scores.curves`. `sweep_curve` gives the frame faces the result as Arrow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core import pipeline
from ..core.groups import (by_table, group_codes, group_sums, grouped_table, key_dtypes,
                           pandas_frame, tidy_columns)
from ..core.inputs import Inputs, convert, zero_batch
from ..core.progress import running, wanted
from ..core.score_rules import rules_of
from ..core.settings import Settings, resolve_settings
from ..errors import SpanValidationError
from ..metrics import POOLED_METRICS
from .curves import curve_values
from .grids import Grids, grid_label, grids
from .plan import Tuned, split_metrics
from ..core.signature import signature_with
from .spans import prepare_scores

__all__ = ["sweep", "tune_threshold", "sweep_curve", "sweep_settings", "Curve"]

COLUMNS = ["threshold", "metric", "measure", "value", "examples", "average", "profile"]
#: Steps (segments re-scored, and cells of the result) from which a sweep shows a bar by
#: default: a few seconds of work on a 2-core machine.
PROGRESS_STEPS = 1_000
TUNED_COLUMNS = ["threshold", "value", "metric", "measure", "examples", "average",
                 "profile", "signature"]


def sweep(references, *, text, soft_predictions=None, token_offsets=None,
          token_scores=None, thresholds=None, metrics=("iou", "character"), average=None,
          profile=None, by=None, zero_division=None, params=None,
          missing="error", progress=None) -> pd.DataFrame:
    """Span metrics at many thresholds of a detector's scores, as one tidy frame.

    Parameters
    ----------
    references : spans of one example or a batch
        As for `mycelium.evaluate`.
    text : str or sequence of str
        The output texts (required: the negatives are the other characters).
    soft_predictions, token_offsets, token_scores
        One score form, as for `mycelium.evaluate`.
    thresholds : None, int, dict or sequence of float
        None: the exact curve, 0 and every distinct score (the spans change only there);
        an int k: k quantiles (0 to 1 in equal steps) of the interval scores, distinct;
        ``{"steps": k}``: ``numpy.arange(lo, hi, (hi - lo) / k)`` between the lowest and
        highest character score of these data (characters no interval covers score 0),
        ``hi`` excluded: PsiloQA's grid (its signature says ``grid:range/<k>``);
        a sequence: those thresholds, each in [0, 1]. With ``by``, the exact curve, the
        quantiles and the range are each group's own (of its scores); a sequence is
        every group's.
    metrics : str or sequence of str
        Span metrics and ``response_level``.
    average, profile, zero_division, params, missing
        As for `mycelium.evaluate`.
    by : sequence, pandas or Polars Series, or dict of them, optional
        Group labels per example (a dict gives several columns; a list is column
        ``"by"``, a Series keeps its name). Null labels form their own group. Keys are
        grouped as on every frame face (`mycelium.core.groups`): an integer key is
        never turned into a float, ``True`` and ``1`` are refused together, and names
        of the result's columns (``"metric"``, ``"value"``, ...) are refused.
    progress : bool, optional
        A progress bar over the work: one step per segment of an example's thresholds
        that re-scores spans (metrics other than ``iou``, ``character``,
        ``response_level``), and one per cell (a group and one of its thresholds) of the
        result; default: only on a terminal or in a notebook, for `PROGRESS_STEPS` steps
        or more.

    Returns
    -------
    pandas.DataFrame
        Columns ``[*by, "threshold", "metric", "measure", "value", "examples",
        "average", "profile"]``, sorted by group, then threshold ascending; each group
        equals ``sweep`` on its rows alone. ``response_level`` rows say
        ``average="micro"`` (it is always pooled). Key columns keep a Series' dtype;
        from a list, integer keys with nulls come back as Python ints and None.
        ``attrs["signature"]`` holds the signature.

    Raises
    ------
    TypeError, ValueError
        Bad keys or key names (`mycelium.core.groups`), bad thresholds, or what
        `mycelium.evaluate` raises for these inputs.

    Notes
    -----
    Cost. Between two consecutive distinct scores of an example nothing about its spans
    changes, so each example is scored once per stretch of thresholds between its own
    distinct scores, and its statistics are added to every threshold of the stretch
    through exact difference arrays (`mycelium.scores.curves`): the cost grows with the
    scored intervals and the thresholds, not with their product. ``iou``,
    ``character`` and ``response_level`` read their statistics off the scored runs; the
    other span metrics (and token offsets not in order) score the spans of every
    stretch.

    Examples
    --------
    >>> f = sweep([[2, 6]], text="abcdefgh", token_offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
    ...           token_scores=[0.1, 0.9, 0.6, 0.2], metrics="iou")
    >>> f[["threshold", "value"]].values.tolist()
    [[0.0, 0.5], [0.1, 0.6666666666666666], [0.2, 1.0], [0.6, 0.5], [0.9, 0.0]]
    """
    curve = sweep_curve(Inputs(references, text=text, soft_predictions=soft_predictions,
                               token_offsets=token_offsets, token_scores=token_scores),
                        sweep_settings(metrics=metrics, average=average, profile=profile,
                                       zero_division=zero_division, params=params,
                                       missing=missing, progress=progress),
                        by=by, thresholds=thresholds)
    frame = pandas_frame(curve.table(), curve.key_dtypes)
    frame.attrs["signature"] = curve.signature
    return frame


#: The options of `sweep` and `tune_threshold` that `sweep_settings` takes.
SWEEP_OPTIONS = ("metrics", "average", "profile", "zero_division", "params", "missing",
                 "progress")


def sweep_settings(face: str = "sweep", **options) -> Settings:
    """The settings of a sweep (`sweep`, `tune_threshold` and their frame faces): the
    one place their options are checked; the metrics are split by `sweep_curve`."""
    for name in options:
        if name not in SWEEP_OPTIONS:
            raise TypeError(f"{face}() got an unexpected keyword argument {name!r}")
    return resolve_settings(**options, plan=True)


def sweep_curve(inputs: Inputs, settings: Settings, *, by=None, thresholds=None) -> "Curve":
    """The `Curve` of `sweep`: ``inputs`` (references, text and one score form) under
    ``settings`` (`sweep_settings`), for the faces that keep its key columns as Arrow
    (``by`` may also be a dict of pandas or Polars Series)."""
    references, text = inputs.references, inputs.text
    soft_predictions = inputs.soft_predictions
    token_offsets, token_scores = inputs.token_offsets, inputs.token_scores
    metrics, missing, progress = settings.option("metrics"), settings.missing, settings.progress
    rest, pooled = split_metrics(metrics)
    if rest is None:
        rest, pooled = ["iou", "character"], []
    settings = settings.scoring(rest or ["iou"])
    names = list(rest) + pooled
    if not names or any(m in ("char_auroc", "char_ap", "response_auroc", "soft_spearman")
                        for m in names):
        raise ValueError(f"Expected span metrics to sweep, got {metrics!r}; fix by "
                         "naming metrics such as 'iou', 'character' or "
                         "'response_level' (threshold-free metrics have no threshold).")
    if "token_level" in names:
        raise ValueError("Expected span metrics to sweep, got token_level (tokens as "
                         "items); fix by scoring it with mycelium.evaluate at each threshold.")
    references = zero_batch(references, text)
    ref = convert(references, "references")
    single = ref.single
    n_input = 1 if single else len(references)
    keys = by_table(by, n_input)
    rules = rules_of(settings.profile)
    si, lengths = prepare_scores(references, text=text, single=single, n_input=n_input,
                                 soft_predictions=soft_predictions,
                                 token_offsets=token_offsets, token_scores=token_scores,
                                 token_overlap=rules.token_overlap)
    # the references twice (the spans come from the scores): warned once, as references
    prepared = pipeline.prepare(references, references, text=text, missing=missing,
                                warn_empty=False)
    if prepared.first_empty is not None and prepared.empty_spans[0]:
        pipeline.warn_empty_spans((prepared.empty_spans[0], 0), prepared.first_empty)
    kept = prepared.kept
    if not kept.all():
        si, lengths = si.take(kept), lengths[kept]
    groups = group_codes(keys, n_input)
    codes = groups.codes[kept]

    def said(g: int) -> str:
        if keys is None:
            return ""
        row = groups.keys.slice(g, 1).to_pylist()[0]
        return f" in group {', '.join(f'{k}={v!r}' for k, v in row.items())}"

    grid = grids(thresholds, si, lengths, codes, groups.n_groups, said)
    listed = prepared.listed[0] if prepared.listed is not None else prepared.refs.counts
    tokens_as_items = (token_offsets is not None and "response_level" in names
                       and settings.params["response_level"].get("unit") == "tokens")
    listed_refs = (ref.batch if kept.all() else ref.batch.take(kept)) \
        if tokens_as_items else None
    try:
        values = curve_values(si, lengths, prepared.refs, listed, codes, grid, names,
                              settings, listed_spans=listed_refs,
                              progress=lambda steps: running(
                                  steps, "sweep", wanted(progress, steps, PROGRESS_STEPS),
                                  unit="step"))
    except SpanValidationError as exc:  # told at the example's position in the input
        if kept.all() or exc.example is None:
            raise
        raise exc.at(int(np.flatnonzero(kept)[exc.example])) from None
    examples = group_sums({"": np.ones(codes.size, np.int64)}, codes,
                          groups.n_groups)[""][grid.group]
    sig = signature_with(settings.signature(), metrics=names,
                         scores="soft" if soft_predictions is not None else "token",
                         # how many distinct thresholds, over every group
                         thresholds=int(np.unique(grid.values).size),
                         grid=grid_label(thresholds))
    assert sig is not None
    return Curve(groups.keys, grid, values, examples.astype(np.int64), tuple(names),
                 settings, sig, key_dtypes(by, groups.keys) if keys is not None else {})


@dataclass(frozen=True)
class Curve:
    """A sweep's values: for every cell (a group and one of its thresholds, `Grids`) and
    metric, ``values[metric][measure][cell]``; ``examples[cell]`` its group's examples."""

    keys: pa.Table
    grids: Grids
    values: dict
    examples: np.ndarray
    names: tuple
    settings: Settings
    signature: str
    key_dtypes: dict

    def _average(self, metric: str) -> str:
        return "micro" if metric in POOLED_METRICS else self.settings.average

    def table(self) -> pa.Table:
        """``[*keys, threshold, metric, measure, value, examples, average, profile]``, one
        row per cell, metric and measure (cells in group, then threshold order)."""
        pairs = [(m, k) for m in self.names for k in self.values[m]]
        prof = self.settings.profile.name if self.settings.profile else None
        cell, columns = tidy_columns(self.values, pairs, self.grids.values.size,
                                     examples=self.examples,
                                     averages=[self._average(m) for m, _ in pairs],
                                     profile=prof)
        return grouped_table(self.keys, self.grids.group[cell],
                             {"threshold": pa.array(self.grids.values[cell]), **columns})

    def tuned(self, metric: str, measure: str) -> tuple[np.ndarray, np.ndarray]:
        """(threshold, value) per group maximising ``metric``'s ``measure``: the highest
        defined value, the lowest threshold among equal ones; NaN for a group with no
        defined value."""
        if measure not in self.values[metric]:
            raise ValueError(f"Expected a measure of {metric}, got {measure!r}; fix by "
                             f"passing one of {sorted(self.values[metric])}.")
        v, t, g = self.values[metric][measure], self.grids.values, self.grids.group
        n = self.grids.n_groups
        best_t, best_v = np.full(n, math.nan), np.full(n, math.nan)
        ok = ~np.isnan(v)
        order = np.lexsort((t[ok], -v[ok], g[ok]))  # by group: highest value, lowest t
        gs = g[ok][order]
        first = np.ones(gs.size, dtype=bool)
        first[1:] = gs[1:] != gs[:-1]
        best_t[gs[first]] = t[ok][order][first]
        best_v[gs[first]] = v[ok][order][first]
        return best_t, best_v

    def tuned_table(self, metric: str, measure: str) -> pa.Table:
        """`tune_threshold`'s rows: ``[*keys, threshold, value, metric, measure, examples,
        average, profile, signature]``, one per group."""
        best_t, best_v = self.tuned(metric, measure)
        n = self.grids.n_groups
        prof = self.settings.profile.name if self.settings.profile else None
        examples = self.examples[self.grids.offsets[:-1]]
        return grouped_table(self.keys, np.arange(n), {
            "threshold": pa.array(best_t), "value": pa.array(best_v),
            "metric": pa.array([metric] * n, pa.string()),
            "measure": pa.array([measure] * n, pa.string()),
            "examples": pa.array(examples),
            "average": pa.array([self._average(metric)] * n, pa.string()),
            "profile": pa.array([prof] * n, pa.string()),
            "signature": pa.array([self.tuned_signature(metric, measure)] * n, pa.string())})

    def tuned_signature(self, metric: str, measure: str) -> str:
        out = signature_with(self.signature, tuned=f"{metric}.{measure}")
        assert out is not None
        return out


def tune_threshold(references, *, text, soft_predictions=None, token_offsets=None,
                   token_scores=None, metric="iou", measure="score", average=None,
                   profile=None, by=None, thresholds=None, zero_division=None, params=None,
                   missing="error", progress=None):
    """The threshold that maximises one measure (per group with ``by``), on these data.

    Tune on development data and apply the result to test data in a second, explicit
    call: ``evaluate(test_refs, text=..., <scores>, threshold=result["threshold"])``;
    that result's signature then says ``threshold:<t>|tuned:<metric>``.

    Parameters
    ----------
    metric, measure : str
        What to maximise (default IoU's score).
    thresholds : None, int or sequence
        The candidates, as for `sweep` (None: every distinct score, the exact optimum;
        with ``by``, each group's own).
    progress : bool, optional
        The sweep's progress bar (see `sweep`). The other parameters are as for `sweep`.

    Returns
    -------
    dict or pandas.DataFrame
        Without ``by``: ``{"threshold", "value", "metric", "measure", "average",
        "examples", "signature"}``, the threshold a `Tuned` float (it records the
        metric). With ``by``: one row per group, columns ``[*by, "threshold", "value",
        "metric", "measure", "examples", "average", "profile", "signature"]``.

    Notes
    -----
    Undefined (NaN) values never win; among equal best values the **lowest** threshold
    is chosen (the widest spans among equally good ones). A group with no defined value
    gets NaN.

    Examples
    --------
    >>> best = tune_threshold([[2, 6]], text="abcdefgh",
    ...                       token_offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
    ...                       token_scores=[0.1, 0.9, 0.6, 0.2])
    >>> float(best["threshold"]), best["value"], best["threshold"].metric
    (0.2, 1.0, 'iou')
    """
    curve = sweep_curve(Inputs(references, text=text, soft_predictions=soft_predictions,
                               token_offsets=token_offsets, token_scores=token_scores),
                        sweep_settings(metrics=[metric], average=average, profile=profile,
                                       zero_division=zero_division, params=params,
                                       missing=missing, progress=progress),
                        by=by, thresholds=thresholds)
    if curve.keys.num_columns == 0:
        return tuned_dict(curve, metric, measure)
    return pandas_frame(curve.tuned_table(metric, measure), curve.key_dtypes)


def tuned_dict(curve: Curve, metric: str, measure: str) -> dict:
    """`tune_threshold`'s result without groups."""
    best_t, best_v = curve.tuned(metric, measure)
    t, v = float(best_t[0]), float(best_v[0])
    return {"threshold": Tuned(t, metric) if not math.isnan(t) else t, "value": v,
            "metric": metric, "measure": measure, "average": curve._average(metric),
            "examples": int(curve.examples[0]),
            "signature": curve.tuned_signature(metric, measure)}
