"""Where a submission would have placed on a published leaderboard: `rank_mushroom`,
`rank_faithbench`.

The submission is scored by the benchmark's official protocol (for Mu-SHROOM,
`mycelium.protocols.mushroom.score_files`; for FaithBench, the paper's gold rule and
metrics of `mycelium.protocols.faithbench`), and its value is placed among the published
rows (`mycelium.datasets.leaderboard`):

- ``rank = 1 +`` the number of ranked published rows whose value is strictly greater
  than the submission's value rounded to that row's printed precision (so a submission
  that reproduces a row to the printed digits ties with it, and takes its rank);
- baselines are shown, never ranked;
- the rank's bootstrap interval resamples the items (`mycelium.stats.bootstrap`'s
  Poisson weights, keyed by item id, so it depends on the seed alone): each resample's
  mean is ranked the same way, and the interval is the ``(1 - ci)/2`` and
  ``(1 + ci)/2`` empirical quantiles of those ranks. Only the submission is resampled:
  the published rows are fixed numbers (their per-item scores are not public).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._version import __version__
from ..core.signature import protocol_signature, signature_with
from ..datasets import (ReferenceRow, is_data_name, leaderboard, resolve, root,
                        round_printed)
from ..io.provenance import dataset_provenance
from ..stats.bootstrap import example_keys, poisson_weights
from . import faithbench as fb
from .mushroom import score_files

__all__ = ["RankResult", "rank_value", "rank_mushroom", "rank_faithbench",
           "read_response_predictions", "RESAMPLES"]

#: Default number of bootstrap resamples of the rank.
RESAMPLES = 1000


@dataclass(frozen=True)
class RankResult:
    """A submission placed on a published leaderboard.

    Attributes
    ----------
    rank : int
        1 + the ranked published rows strictly better than the submission.
    of : int
        The ranked published rows, plus the submission.
    value : float
        The submission's score under the official protocol (unrounded).
    interval : tuple of int
        The bootstrap interval of the rank (best, worst).
    above, below : ReferenceRow or None
        The ranked rows just above and just below the submission.
    rows : list of ReferenceRow
        The published table, in its order.
    signature : str
        How the number and the rank were obtained.
    """

    rank: int
    of: int
    value: float
    interval: tuple[int, int]
    above: ReferenceRow | None
    below: ReferenceRow | None
    rows: list[ReferenceRow] = field(repr=False)
    signature: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``rank``, ``of``, ``value``, ``interval``, ``above``, ``below``,
        ``signature`` (``above``/``below`` as ``{team, value, printed}`` or null)."""
        def row(r: ReferenceRow | None) -> dict | None:
            return None if r is None else {"team": r.team, "value": r.value,
                                           "printed": r.printed,
                                           "published_rank": r.published_rank}
        return {"rank": self.rank, "of": self.of, "value": self.value,
                "interval": list(self.interval), "above": row(self.above),
                "below": row(self.below), "signature": self.signature}


def _better(value: float, rows: Sequence[ReferenceRow]) -> int:
    return sum(1 for r in rows if float(r.printed) > round_printed(value, r.precision))


def _ranks_of(values: np.ndarray, rows: Sequence[ReferenceRow], ci: float
              ) -> tuple[int, int]:
    """The ``ci`` interval of the ranks of resampled ``values`` (NaN ones left out)."""
    ranked = [r for r in rows if not r.baseline]
    values = values[~np.isnan(values)]
    if not ranked or values.size == 0:
        return (0, 0)
    ranks = np.array([1 + _better(float(v), ranked) for v in values])
    low, high = np.quantile(ranks, [(1 - ci) / 2, (1 + ci) / 2], method="inverted_cdf")
    return int(low), int(high)


def rank_value(value: float, rows: Sequence[ReferenceRow]
               ) -> tuple[int, int, ReferenceRow | None, ReferenceRow | None]:
    """``(rank, of, above, below)`` of ``value`` among the ranked rows of a table.

    Examples
    --------
    >>> from mycelium.datasets import leaderboard
    >>> rows = leaderboard("mu_shroom", "en", "iou")
    >>> rank, of, above, below = rank_value(0.6146007, rows)  # UCSC's 0.614601
    >>> rank, of, above.team, below.team
    (2, 42, 'iai_MSU', 'UCSC')
    >>> rank_value(0.99, rows)[:3]
    (1, 42, None)
    """
    ranked = sorted((r for r in rows if not r.baseline), key=lambda r: -r.value)
    rank = 1 + _better(value, ranked)
    above = ranked[rank - 2] if rank >= 2 else None
    below = ranked[rank - 1] if rank - 1 < len(ranked) else None
    return rank, len(ranked) + 1, above, below


def _rank_interval(scores: np.ndarray, ids: Sequence[Any], rows: Sequence[ReferenceRow], *,
                   ci: float, n_resamples: int, seed: int) -> tuple[int, int]:
    """The bootstrap interval of the rank of the mean of ``scores`` (see the module)."""
    if n_resamples <= 0 or scores.size == 0:
        return (0, 0)
    weights = poisson_weights(example_keys(len(ids), list(ids)), seed, range(n_resamples))
    totals = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (weights @ scores) / totals  # a resample that draws no item: NaN, left out
    return _ranks_of(means, rows, ci)


def rank_mushroom(predictions: str | os.PathLike[str], lang: str, *, by: str = "iou",
                  reference: str | os.PathLike[str] | None = None, ci: float = 0.95,
                  n_resamples: int = RESAMPLES, seed: int = 0,
                  float_parse: str | None = None) -> RankResult:
    """Score a Mu-SHROOM test submission officially and place it on the published board.

    Parameters
    ----------
    predictions : path
        The submission: official-format JSON lines for one language's test set.
    lang : str
        Its language, e.g. ``"en"`` (the leaderboard compared against).
    by : {"iou", "cor"}
        The leaderboard: IoU of hard labels, or Cor (Spearman of soft labels).
    reference : path or data name, optional
        The labelled test file; default the registered copy ``"mu_shroom:test:<lang>"``
        (``mycelium data add mu_shroom PATH``).
    ci : float
        Level of the rank's bootstrap interval.
    n_resamples, seed : int
        The bootstrap's resamples and seed (recorded in the signature).
    float_parse : {"pandas-fast", "exact"}, optional
        As `mycelium.protocols.mushroom.score_files` (default: the official reading).

    Returns
    -------
    RankResult

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> ref = {"id": "a", "model_output_text": "Paris is in Italy.",
    ...        "hard_labels": [[12, 17]],
    ...        "soft_labels": [{"start": 12, "end": 17, "prob": 1.0}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ref_path, pred_path = pathlib.Path(tmp, "ref.jsonl"), pathlib.Path(tmp, "p.jsonl")
    ...     _ = ref_path.write_text(json.dumps(ref) + "\\n")
    ...     _ = pred_path.write_text(json.dumps({"id": "a", "hard_labels": [[12, 17]]}) + "\\n")
    ...     result = rank_mushroom(pred_path, "en", reference=ref_path, n_resamples=10)
    >>> result.rank, result.of, result.value, result.below.team
    (1, 42, 1.0, 'iai_MSU')
    """
    if by not in ("iou", "cor"):
        raise ValueError(f"Expected by='iou' or 'cor', got {by!r}, at rank_mushroom; fix by "
                         "choosing one of them.")
    lang = lang.lower()
    rows = leaderboard("mu_shroom", lang, by)
    if reference is None:
        reference = f"mu_shroom:test:{lang}"
    ref_path = Path(resolve(str(reference))[0]) if is_data_name(reference) else Path(reference)
    result = score_files(ref_path, predictions, float_parse=float_parse)
    scores = np.asarray(result.iou if by == "iou" else result.cor, dtype=float)
    value = result.iou_mean if by == "iou" else result.cor_mean
    rank, of, above, below = rank_value(value, rows)
    interval = _rank_interval(scores, result.ids, rows, ci=ci, n_resamples=n_resamples,
                              seed=seed)
    source = rows[0].source if rows else ""
    fields = [("mycelium", __version__), ("protocol", "mu_shroom"), ("metric", by),
              ("float_parse", float_parse or "pandas-fast"), ("split", "test"),
              ("lang", lang), ("rank", "strictly-greater-at-printed-precision"),
              ("reference_results", source), ("ci", ci),
              ("bootstrap", "poisson-percentile"), ("n_resamples", n_resamples),
              ("seed", seed)]
    signature = signature_with(protocol_signature(fields),
                               dataset=dataset_provenance("mu_shroom", [ref_path]))
    if math.isnan(value):
        raise ValueError(f"Expected a defined {by} for the submission, got NaN, at "
                         f"{predictions}; fix the submission's labels.")
    return RankResult(rank, of, value, interval, above, below, rows, signature or "")


def read_response_predictions(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Response-level FaithBench predictions: ``batch``, ``sample_id`` and ``prediction``
    (1 consistent, 0 hallucinated, FaithBench's coding) or ``score`` (a consistency score
    in [0, 1], hallucinated below 0.5 as the paper binarises HHEM), from JSON lines
    (``.jsonl``) or CSV (``.csv``).

    Raises
    ------
    ValueError
        A column is missing, a key repeats, or a value is not 0/1 (or a score in [0, 1]);
        the message names the file and the row.
    """
    path = Path(path)
    frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_json(path, lines=True)
    if not {"batch", "sample_id"} <= set(frame.columns) or \
            not ({"prediction", "score"} & set(frame.columns)):
        raise ValueError(f"Expected columns batch, sample_id and prediction (or score), got "
                         f"{list(frame.columns)}, at {path}; fix by writing one row per "
                         "FaithBench item with those fields.")
    column = "prediction" if "prediction" in frame.columns else "score"
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~((values == 0) | (values == 1)) if column == "prediction" else \
        ~((values >= 0) & (values <= 1))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        wanted = "0 or 1" if column == "prediction" else "in [0, 1]"
        raise ValueError(f"Expected {column} {wanted}, got {frame[column].iloc[at]}, at "
                         f"{path} row {at + 1}; fix that value (1 = consistent, 0 = "
                         "hallucinated).")
    keys = list(zip(frame["batch"].astype(int), frame["sample_id"].astype(int)))
    if len(set(keys)) != len(keys):
        seen: set = set()
        dup = next(k for k in keys if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"Expected one prediction per item, got batch {dup[0]} sample_id "
                         f"{dup[1]} twice, at {path}; fix by keeping one row per item.")
    consistent = values >= 0.5 if column == "score" else values == 1
    return pd.DataFrame({"batch": [k[0] for k in keys], "sample_id": [k[1] for k in keys],
                         "pred": consistent.astype(np.int64)})


def _weighted_metric(metric: str, gold: np.ndarray, pred: np.ndarray,
                     weights: np.ndarray) -> np.ndarray:
    """`fb.balanced_accuracy` or `fb.f1_macro` of each row of ``weights`` (an item drawn
    k times counts k times)."""
    out = []
    classes = np.unique(gold) if metric == "balanced_accuracy" else \
        np.union1d(np.unique(gold), np.unique(pred))
    for c in classes:
        hit = weights @ ((pred == c) & (gold == c)).astype(np.float64)
        in_gold = weights @ (gold == c).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            if metric == "balanced_accuracy":
                out.append(hit / in_gold)
            else:
                den = weights @ (pred == c).astype(np.float64) + in_gold
                out.append(np.where(den > 0, 2 * hit / np.where(den > 0, den, 1), 0.0))
    return np.mean(out, axis=0)


def rank_faithbench(predictions: str | os.PathLike[str], *,
                    by: str = "balanced_accuracy", pooling: str = "worst",
                    reference: str | os.PathLike[str] | None = None, ci: float = 0.95,
                    n_resamples: int = RESAMPLES, seed: int = 0) -> RankResult:
    """Score response-level predictions as FaithBench's paper does and place them on its
    detector table.

    The gold label of each of the paper's 750 items is `mycelium.protocols.faithbench`'s
    ``convention="paper"`` rule (the companion exports); an item without a prediction is
    scored as wrong, as the paper scores a missing prediction; predictions for the items
    the paper skipped are not scored (as in the paper). The published rows are the 21
    detector configurations of the table (no baselines).

    Parameters
    ----------
    predictions : path
        `read_response_predictions`' format.
    by : {"balanced_accuracy", "f1_macro"}
    pooling : {"worst", "best"}
        Worst is the paper's main table.
    reference : path, optional
        The FaithBench data folder (``companion/`` and ``data_for_release/``); default the
        registered copy (``mycelium data add faithbench PATH``).
    ci, n_resamples, seed
        As `rank_mushroom`.

    Returns
    -------
    RankResult
    """
    if by not in ("balanced_accuracy", "f1_macro"):
        raise ValueError(f"Expected by='balanced_accuracy' or 'f1_macro', got {by!r}, at "
                         "rank_faithbench; fix by choosing one of them.")
    rows = leaderboard("faithbench", "en", by, split=f"paper_{pooling}")
    folder = Path(reference) if reference is not None else root("faithbench")
    rule = fb.GoldRule(pooling=pooling)
    items = fb.gold_labels(folder, rule)
    every = fb.read_items(folder, rule.source)
    known = set(zip(every["batch"].astype(int), every["sample_id"].astype(int)))
    preds = read_response_predictions(predictions)
    unknown = [k for k in zip(preds["batch"], preds["sample_id"]) if k not in known]
    if unknown:
        raise ValueError(f"Expected FaithBench items, got batch {unknown[0][0]} sample_id "
                         f"{unknown[0][1]} ({len(unknown)} unknown), at {predictions}; fix by "
                         "keying each row by its batch and sample_id (within the batch).")
    by_key = dict(zip(zip(preds["batch"], preds["sample_id"]), preds["pred"]))
    keys = list(zip(items["batch"].astype(int), items["sample_id"].astype(int)))
    gold = items["gold"].to_numpy()
    pred = np.array([by_key.get(k, 1 - g) for k, g in zip(keys, gold)], dtype=np.int64)
    score = fb.balanced_accuracy if by == "balanced_accuracy" else fb.f1_macro
    value = float(score(gold, pred))
    rank, of, above, below = rank_value(value, rows)
    interval = (0, 0)
    if n_resamples > 0:
        ids = [f"{b}:{s}" for b, s in keys]
        weights = poisson_weights(example_keys(len(ids), ids), seed, range(n_resamples))
        interval = _ranks_of(_weighted_metric(by, gold, pred, weights), rows, ci)
    missing = sum(1 for k in keys if k not in by_key)
    fields = [("mycelium", __version__), ("protocol", "faithbench"), ("metric", by),
              ("missing_predictions", missing),
              ("rank", "strictly-greater-at-printed-precision"),
              ("reference_results", rows[0].source), ("ci", ci),
              ("bootstrap", "poisson-percentile"), ("n_resamples", n_resamples),
              ("seed", seed), ("gold", rule.signature())]
    return RankResult(rank, of, value, interval, above, below, rows,
                      protocol_signature(fields))
