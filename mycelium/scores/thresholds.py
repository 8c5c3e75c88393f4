"""Thresholds: `sweep` (span metrics at many thresholds) and `tune_threshold` (the best one).

SPEC section 9. The spans at threshold t are `mycelium.spans_at`'s; every value of a
sweep equals `mycelium.evaluate` with ``threshold=t`` on the same inputs.
"""

from __future__ import annotations

import math
import numpy as np
import pandas as pd

from ..core import pipeline
from ..core.aggregate import aggregate
from ..core.inputs import convert
from ..core.pipeline import compute_statistics
from ..core.progress import Bar, running, wanted
from ..core.score_metrics import pooled_values
from ..core.score_rules import rules_of
from ..core.scores import (ScoreInput, concat_runs, score_run_blocks, score_runs,
                           spans_at_threshold)
from ..core.settings import resolve_settings
from ..core.spans import canonicalize
from ..metrics import POOLED_METRICS
from .plan import Tuned, check_threshold, split_metrics
from .spans import pooled_statistics, prepare_scores, signature_with

__all__ = ["sweep", "tune_threshold"]

#: Metrics whose statistics at every threshold come from one pass over the runs.
FAST = ("iou", "character", "response_level")
COLUMNS = ["threshold", "metric", "measure", "value", "examples", "average", "profile"]
#: Steps (thresholds re-scored, and group x threshold cells of the result) from which a
#: sweep shows a bar by default: a few seconds of work (12,000 thresholds of 604 examples
#: took 30 s for iou and character on a 2-core machine).
PROGRESS_STEPS = 1_000


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
        a sequence: those thresholds, each in [0, 1].
    metrics : str or sequence of str
        Span metrics and ``response_level``.
    average, profile, zero_division, params, missing
        As for `mycelium.evaluate`.
    by : sequence, pandas Series or dict of sequences, optional
        Group labels per example (a dict gives several columns; a list is column
        ``"by"``, a Series keeps its name). Null labels form their own group.
    progress : bool, optional
        A progress bar over the thresholds (one step per threshold that re-scores spans,
        and per group and threshold of the result); default: only on a terminal or in a
        notebook, for `PROGRESS_STEPS` steps or more.

    Returns
    -------
    pandas.DataFrame
        Columns ``[*by, "threshold", "metric", "measure", "value", "examples",
        "average", "profile"]``, sorted by group, then threshold ascending.
        ``response_level`` rows say ``average="micro"`` (it is always pooled).

    Notes
    -----
    Cost. ``iou``, ``character`` and ``response_level`` are computed for all thresholds
    from one pass over the scored runs: the text is cut into runs of constant *mask
    score* and label (`mycelium.core.scores.score_runs`; in the token form the gap
    between two consecutive tokens scores the lower of the two, so that the mask at t is
    exactly the union of the spans at t), each run's position among the sorted
    thresholds is found by one binary search, and its length is added to a per-example
    difference array whose cumulative sum over thresholds gives, for every threshold,
    the predicted and intersected characters of each example. The other span metrics
    (and token offsets not in order) re-score the spans at each threshold.

    Examples
    --------
    >>> f = sweep([[2, 6]], text="abcdefgh", token_offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
    ...           token_scores=[0.1, 0.9, 0.6, 0.2], metrics="iou")
    >>> f[["threshold", "value"]].values.tolist()
    [[0.0, 0.5], [0.1, 0.6666666666666666], [0.2, 1.0], [0.6, 0.5], [0.9, 0.0]]
    """
    run = _Run(references, text, soft_predictions, token_offsets, token_scores, metrics,
               average, profile, zero_division, params, missing, by)
    grid = _thresholds(thresholds, run.si, run.lengths)
    run.grid_label = _grid_label(thresholds)
    steps = grid.size * (len(run.keys) + bool(run.slow_names()))
    with running(steps, "sweep", wanted(progress, steps, PROGRESS_STEPS),
                 unit="threshold") as bar:
        stats = run.statistics(grid, bar)
        return run.frame(grid, stats, bar)


class _Run:
    """The validated inputs of a sweep (kept examples only) and its settings."""

    def __init__(self, references, text, soft_predictions, token_offsets, token_scores,
                 metrics, average, profile, zero_division, params, missing, by):
        self.grid_label: str | None = None
        rest, pooled = split_metrics(metrics)
        if rest is None:
            rest, pooled = ["iou", "character"], []
        self.settings = resolve_settings(profile=profile, metrics=rest or ["iou"],
                                         average=average, zero_division=zero_division,
                                         params=params, missing=missing)
        self.names = list(rest) + pooled
        if not self.names or any(m in ("char_auroc", "char_ap", "response_auroc",
                                       "soft_spearman") for m in self.names):
            raise ValueError(f"Expected span metrics to sweep, got {metrics!r}; fix by "
                             "naming metrics such as 'iou', 'character' or "
                             "'response_level' (threshold-free metrics have no threshold).")
        token_rule = "token_level" in self.names or (
            "response_level" in self.names
            and self.settings.params["response_level"].get("unit") == "tokens")
        if token_rule:
            raise ValueError("Expected span metrics to sweep, got token_level or "
                             "response_level with unit='tokens' (tokens as items); fix by "
                             "scoring them with mycelium.evaluate at each threshold.")
        single = convert(references, "references").single
        n_input = 1 if single else len(references)
        self.rules = rules_of(self.settings.profile)
        # The form the caller gave (token_overlap="last" reads tokens as soft spans).
        self.form = "soft" if soft_predictions is not None else "token"
        si, lengths = prepare_scores(references, text=text, single=single, n_input=n_input,
                                     soft_predictions=soft_predictions,
                                     token_offsets=token_offsets, token_scores=token_scores,
                                     token_overlap=self.rules.token_overlap)
        self.prepared = pipeline.prepare(references, references, text=text, missing=missing)
        kept = self.prepared.kept
        self.si = si if kept.all() else si.take(kept)
        self.lengths = lengths[kept]
        self.group_cols, self.codes, self.keys = _groups(by, n_input, kept)

    def slow_names(self) -> list[str]:
        """The metrics re-scored at each threshold (the others: one pass, `FAST`). The fast
        pass counts merged masks, so the pairwise character rule takes the slow one."""
        pairwise = self.settings.params["character"].get("overlaps") == "pairwise"
        fast = [m for m in FAST if not (m == "character" and pairwise)] \
            if _in_order(self.si) else []
        return [m for m in self.names if m not in fast]

    def statistics(self, grid: np.ndarray, bar: Bar
                   ) -> dict[str, list[dict[str, np.ndarray]]]:
        """``{metric: [per-example statistics at each threshold]}``."""
        slow = self.slow_names()
        fast = [m for m in self.names if m not in slow]
        out = _fast_statistics(self.si, self.lengths, self.prepared.refs, grid, fast,
                               inclusive=self.rules.inclusive)
        if slow:
            span_names = [m for m in slow if m not in POOLED_METRICS]
            for m in slow:
                out[m] = []
            for t in grid.tolist():
                preds = canonicalize(spans_at_threshold(self.si, self.lengths, t,
                                                        inclusive=self.rules.inclusive))
                listed = None if self.prepared.listed is None else (
                    self.prepared.listed[0], preds.counts)
                prepared = pipeline.Prepared(self.prepared.refs, preds, self.prepared.kept,
                                             False, self.lengths, listed=listed)
                st = compute_statistics(self.prepared.refs, preds, span_names,
                                        self.settings.params)
                st = pooled_statistics(prepared, [m for m in slow if m in POOLED_METRICS],
                                       st, self.settings.params)
                for m in slow:
                    out[m].append(st[m])
                bar.update(1)
        return out

    def frame(self, grid: np.ndarray, stats, bar: Bar) -> pd.DataFrame:
        s = self.settings
        prof = s.profile.name if s.profile else None
        rows = []
        for g, key in enumerate(self.keys):
            sel = self.codes == g
            n = int(sel.sum())
            for j, t in enumerate(grid.tolist()):
                for m in self.names:
                    st = {k: v[sel] for k, v in stats[m][j].items()}
                    if m in POOLED_METRICS:
                        vals = {k: float(a[0]) for k, a in pooled_values(
                            st, m, zero_division=s.zero_division).items()}
                        avg = "micro"
                    else:
                        vals = aggregate({m: st}, average=s.average,
                                         zero_division=s.zero_division,
                                         params=s.params)[m]
                        avg = s.average
                    for measure, v in vals.items():
                        rows.append((*key, t, m, measure, v, n, avg, prof))
                bar.update(1)
        frame = pd.DataFrame(rows, columns=self.group_cols + COLUMNS)
        frame.attrs["signature"] = self.signature(len(grid))
        return frame

    def signature(self, n_thresholds: int, tuned: str | None = None) -> str:
        sig = signature_with(self.settings.signature(), self.names, form=self.form,
                             threshold=None)
        sig += f"|thresholds:{n_thresholds}"
        if self.grid_label:
            sig += f"|grid:{self.grid_label}"
        return sig + (f"|tuned:{tuned}" if tuned else "")


def _groups(by, n_input: int, kept: np.ndarray):
    """(group columns, group code per kept example, key tuple per group)."""
    if by is None:
        return [], np.zeros(int(kept.sum()), dtype=np.int64), [()]
    if isinstance(by, dict):
        cols = {str(k): list(v) for k, v in by.items()}
    elif isinstance(by, pd.Series):
        cols = {str(by.name) if by.name is not None else "by": by.tolist()}
    else:
        cols = {"by": list(by)}
    for name, values in cols.items():
        if len(values) != n_input:
            raise ValueError(f"Expected {n_input} group labels in by[{name!r}] (one per "
                             f"example), got {len(values)}; fix by passing one per example.")
    df = pd.DataFrame(cols)[kept].reset_index(drop=True)
    codes = df.groupby(list(cols), dropna=False, sort=True).ngroup().to_numpy(np.int64)
    first = np.full(codes.max() + 1 if codes.size else 0, -1)
    for i, c in enumerate(codes.tolist()):
        if first[c] < 0:
            first[c] = i
    keys = [tuple(df.iloc[int(i)].tolist()) for i in first]
    return list(cols), codes, keys


def _grid_label(thresholds) -> str | None:
    """``range/<steps>`` for a score-range grid (recorded in the signature)."""
    return f"range/{thresholds['steps']}" if isinstance(thresholds, dict) else None


def _range_grid(spec: dict, si: ScoreInput, lengths: np.ndarray) -> np.ndarray:
    """``np.arange(lo, hi, (hi - lo) / steps)`` over the character scores' range."""
    steps = spec.get("steps") if set(spec) == {"steps"} else None
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"Expected thresholds={{'steps': <int >= 1>}}, got {spec!r}, at "
                         "thresholds=; fix by passing e.g. {'steps': 2000}.")
    runs = score_runs(si, lengths, None)
    if runs.score.size == 0:
        raise ValueError("Expected characters to take a score range from, got empty texts "
                         "only, at thresholds=; fix by passing explicit thresholds.")
    lo, hi = float(runs.score.min()), float(runs.score.max())
    if hi == lo:
        raise ValueError(f"Expected character scores that vary, got every character "
                         f"scoring {lo!r}, at thresholds={spec!r}; fix by passing explicit "
                         "thresholds (a range grid of one value has no step).")
    # The grid of PsiloQA's evaluator (psilo/methods/uncertainty/evaluation.py): floating
    # arange, so `steps` values (or one more from rounding) from lo up, hi excluded.
    return np.arange(lo, hi, (hi - lo) / int(steps))


def _thresholds(thresholds, si: ScoreInput, lengths: np.ndarray) -> np.ndarray:
    """The sorted distinct thresholds of a sweep."""
    scores = si.scores
    if isinstance(thresholds, dict):
        grid = _range_grid(thresholds, si, lengths)
    elif thresholds is None:
        grid = np.concatenate([[0.0], scores])
    elif isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
        if thresholds < 1:
            raise ValueError(f"Expected a number of quantiles >= 1, got {thresholds}, at "
                             "thresholds=; fix by passing e.g. 100.")
        q = np.linspace(0.0, 1.0, int(thresholds)) if thresholds > 1 else np.array([0.5])
        grid = np.quantile(scores, q) if scores.size else np.array([0.0])
    else:
        grid = np.array([check_threshold(t) for t in thresholds], dtype=np.float64)
        if grid.size == 0:
            raise ValueError("Expected at least one threshold, got none, at thresholds=; "
                             "fix by passing None for the exact curve.")
    grid = np.sort(grid)
    return grid[np.concatenate([[True], grid[1:] != grid[:-1]])]


def _in_order(si: ScoreInput) -> bool:
    """Token offsets in order (starts and ends non-decreasing in each example)."""
    if si.form == "soft" or si.example.size < 2:
        return True
    same = si.example[1:] == si.example[:-1]
    return bool(((si.starts[1:] >= si.starts[:-1]) & (si.ends[1:] >= si.ends[:-1]) | ~same)
                .all())


def _mask_input(si: ScoreInput) -> ScoreInput:
    """Token form: add each gap between consecutive tokens, scoring the lower of the two,
    so that characters scoring > t are exactly the spans at t (`spans_at`'s rule)."""
    if si.form == "soft" or si.example.size < 2:
        return si
    gap = (si.example[1:] == si.example[:-1]) & (si.starts[1:] > si.ends[:-1])
    i = np.flatnonzero(gap)
    # Each gap after its token, so that the examples stay in order (blocks of examples).
    at = np.arange(si.example.size) + np.cumsum(np.concatenate([[0], gap]))
    n = si.example.size + i.size
    example, starts, ends, scores = (np.empty(n, dtype=np.int64), np.empty(n, np.int64),
                                     np.empty(n, np.int64), np.empty(n))
    example[at], starts[at], ends[at], scores[at] = si.example, si.starts, si.ends, si.scores
    g = at[i] + 1
    example[g], starts[g], ends[g] = si.example[i], si.ends[i], si.starts[i + 1]
    scores[g] = np.minimum(si.scores[i], si.scores[i + 1])
    return ScoreInput("token", si.n, example, starts, ends, scores, si.single)


def _fast_statistics(si, lengths, refs, grid, names, *, inclusive=False
                     ) -> dict[str, list]:
    if not names:
        return {}
    runs = concat_runs(score_run_blocks(_mask_input(si), lengths, refs))
    n, T = runs.n, grid.size
    # Thresholds below a run's score (index < k) count it (at or below it with ">="): a
    # difference array per example.
    k = np.searchsorted(grid, runs.score, side="right" if inclusive else "left")

    def above(weights):
        d = np.bincount(runs.example * (T + 1) + k, weights=weights, minlength=n * (T + 1))
        d = -d.reshape(n, T + 1)
        d[:, 0] += np.bincount(runs.example, weights=weights, minlength=n)
        return np.rint(np.cumsum(d, axis=1)[:, :T]).astype(np.int64)

    pred = above(runs.length.astype(np.float64))
    inter = above(runs.pos.astype(np.float64))
    ref = np.bincount(runs.example, weights=runs.pos.astype(np.float64),
                      minlength=n).astype(np.int64)[:, None]
    hot = (runs.max_score[:, None] >= grid[None, :]) if inclusive else \
        (runs.max_score[:, None] > grid[None, :])
    gold = (refs.counts > 0)[:, None]
    out: dict[str, list] = {}
    for m in names:
        cols = []
        for j in range(T):
            p, i, r, h = pred[:, j], inter[:, j], ref[:, 0], hot[:, j]
            if m == "iou":
                cols.append({"inter": i, "union": r + p - i})
            elif m == "character":
                cols.append({"tp": i, "fp": p - i, "fn": r - i})
            else:
                g = gold[:, 0]
                cols.append({k_: v.astype(np.int64) for k_, v in (
                    ("tp", g & h), ("fp", ~g & h), ("fn", g & ~h), ("tn", ~g & ~h))})
        out[m] = cols
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
        The candidates, as for `sweep` (None: every distinct score, the exact optimum).
    progress : bool, optional
        The sweep's progress bar (see `sweep`).
    Other parameters
        As for `sweep`.

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
    frame = sweep(references, text=text, soft_predictions=soft_predictions,
                  token_offsets=token_offsets, token_scores=token_scores,
                  thresholds=thresholds, metrics=[metric], average=average, profile=profile,
                  by=by, zero_division=zero_division, params=params, missing=missing,
                  progress=progress)
    rows = frame[frame["measure"] == measure]
    if rows.empty:
        raise ValueError(f"Expected a measure of {metric}, got {measure!r}; fix by passing "
                         f"one of {sorted(set(frame['measure']))}.")
    sig = frame.attrs["signature"] + f"|tuned:{metric}.{measure}"
    group_cols = [c for c in frame.columns if c not in COLUMNS]
    picked = []
    groups = rows.groupby(group_cols, dropna=False, sort=False) if group_cols else [((), rows)]
    for key, part in groups:
        best = _best(part["threshold"].to_numpy(), part["value"].to_numpy())
        t, v = best
        key = key if isinstance(key, tuple) else (key,)
        picked.append((*key, Tuned(t, metric) if not math.isnan(t) else t, v, metric,
                       measure, int(part["examples"].iloc[0]), part["average"].iloc[0],
                       part["profile"].iloc[0], sig))
    if not group_cols:
        t, v, m, ms, n, avg, _, s = picked[0]
        return {"threshold": t, "value": v, "metric": m, "measure": ms, "average": avg,
                "examples": n, "signature": s}
    return pd.DataFrame(picked, columns=group_cols + [
        "threshold", "value", "metric", "measure", "examples", "average", "profile",
        "signature"])


def _best(thresholds: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """(threshold, value) of the highest defined value, the lowest threshold on ties."""
    ok = ~np.isnan(values)
    if not ok.any():
        return math.nan, math.nan
    t, v = thresholds[ok], values[ok]
    order = np.lexsort((t, -v))  # highest value, then lowest threshold
    return float(t[order[0]]), float(v[order[0]])
