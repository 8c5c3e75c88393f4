"""Many annotators as an input: per-annotator span lists (Mu-SHROOM's ``annotations``)
scored against each other, against the leave-one-out majority of the others, and turned
into majority references at any vote share and soft references.

Input: a frame with one row per item, an ``annotations`` column holding per item a list
of ``{"annotator": str, "spans": [{"start", "end"}, ...]}`` (`mycelium.read_mushroom`
gives it as ``ANNOTATIONS_TYPE``), and the item's text. Votes are counted per
character, each annotator at most once (an annotator's overlapping or touching spans are
merged before votes are counted). Tidy results have one row per (group, metric,
measure) with ``ci_low`` / ``ci_high`` when ``ci`` is given: a Poisson bootstrap that
resamples **items** (every pair or annotator row of an item carries the item's weight,
`mycelium.stats.bootstrap`), so intervals account for rows of one item being related.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.aggregate import aggregate
from ..core.provenance import dataset_of
from ..core.signature import signature_with
from ..core.settings import Settings, resolve_settings
from ..core.spans import SPAN_TYPE
from ..evaluate import statistics
from ..metrics.soft_spearman import cor
from ..stats.bootstrap import percentile_interval, resampled_values
from ._votes import (_ROLES, SOFT_REFERENCE_TYPE, _arrow, _binary, _by, _check_share,
                     _coverage, _fill, _lists, _ordered_pairs, _pair_cors, _soft_arrow,
                     _votes)

__all__ = ["annotator_table", "pairwise_agreement", "leave_one_out", "majority_reference",
           "soft_reference", "SOFT_REFERENCE_TYPE"]


def annotator_table(frame: pd.DataFrame, *, annotations: str = "annotations",
                    text: str = "model_output_text", keep: Sequence[str] = (),
                    past_end: str = "error") -> pd.DataFrame:
    """One row per (item, annotator): ``[*keep, item, annotator, n_annotators, spans]``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per item; ``annotations`` holds each item's per-annotator span lists.
    annotations, text : str
        Column names of the annotations and of the item's text.
    keep : sequence of str
        Item columns copied onto every row (e.g. ``["lang"]``).
    past_end : {"error", "clip"}
        A span ending past the text is an error, or clipped to ``len(text)`` (counted in
        ``attrs["mycelium_annotators"]["clipped"]``). Zero-length spans carry no
        characters and are dropped, counted in ``attrs["mycelium_annotators"]
        ["empty_spans"]`` (Mu-SHROOM's released annotations list some), on every
        result of this module.

    Returns
    -------
    pandas.DataFrame
        ``item`` is the row position in ``frame``; ``spans`` is
        ``pd.ArrowDtype(mycelium.SPAN_TYPE)``: each annotator's spans with zero-length
        spans and duplicates dropped (as every metric drops them), sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"text": ["abcdefghij"], "annotations": [[
    ...     {"annotator": "a", "spans": [{"start": 0, "end": 4}]},
    ...     {"annotator": "b", "spans": [{"start": 2, "end": 6}, {"start": 6, "end": 6}]}]]})
    >>> out = annotator_table(df, text="text")
    >>> out[["item", "annotator", "n_annotators"]].values.tolist()
    [[0, 'a', 2], [0, 'b', 2]]
    >>> out["spans"].tolist()
    [[{'start': 0, 'end': 4}], [{'start': 2, 'end': 6}]]
    """
    v = _votes(frame, annotations, text, keep, past_end)
    out = v.table.copy()
    out["spans"] = pd.array(_arrow(v.row, v.start, v.end, len(out)),
                            dtype=pd.ArrowDtype(SPAN_TYPE))
    out.attrs["mycelium_annotators"] = v.told
    return out


def majority_reference(frame: pd.DataFrame, *, share: float = 0.5, strict: bool = True,
                       annotations: str = "annotations", text: str = "model_output_text",
                       past_end: str = "error") -> pd.Series:
    """Per item, the characters marked by more than ``share`` of its annotators.

    A character is in the reference when ``votes > share * k`` (``strict``, default: with
    ``share=0.5`` the published Mu-SHROOM hard labels' rule, prob > 0.5) or
    ``votes >= share * k``, for the item's ``k`` annotators; maximal runs of such
    characters are the spans (touching runs joined). An item without annotators gets
    no spans.

    Returns
    -------
    pandas.Series
        ``pd.ArrowDtype(mycelium.SPAN_TYPE)``, the frame's index.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"text": ["abcdefghij"], "annotations": [[
    ...     {"annotator": "a", "spans": [{"start": 0, "end": 4}]},
    ...     {"annotator": "b", "spans": [{"start": 2, "end": 6}]},
    ...     {"annotator": "c", "spans": [{"start": 3, "end": 9}]}]]})
    >>> majority_reference(df, text="text").tolist()
    [[{'start': 2, 'end': 6}]]
    >>> majority_reference(df, text="text", share=2 / 3).tolist()  # all three
    [[{'start': 3, 'end': 4}]]
    """
    _check_share(share)
    v = _votes(frame, annotations, text, (), past_end)
    item = v.table["item"].to_numpy()
    k = np.bincount(item, minlength=v.n_items).astype(np.float64)
    maj, _ = _coverage(v, item, v.n_items, k * share, strict)
    row, s, e = maj
    out = pd.Series(pd.array(_arrow(row, s, e, v.n_items), dtype=pd.ArrowDtype(SPAN_TYPE)),
                    index=frame.index)
    out.attrs["mycelium_annotators"] = v.told
    return out


def soft_reference(frame: pd.DataFrame, *, annotations: str = "annotations",
                   text: str = "model_output_text", past_end: str = "error") -> pd.Series:
    """Per item, the share of its annotators marking each character, as soft spans.

    Returns
    -------
    pandas.Series
        ``pd.ArrowDtype(SOFT_REFERENCE_TYPE)``: disjoint ``{start, end, prob}`` runs of
        constant non-zero share ``votes / k``, in order (usable as ``soft_references``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"text": ["abcdefghij"], "annotations": [[
    ...     {"annotator": "a", "spans": [{"start": 0, "end": 4}]},
    ...     {"annotator": "b", "spans": [{"start": 2, "end": 6}]}]]})
    >>> [(s["start"], s["end"], s["prob"]) for s in soft_reference(df, text="text")[0]]
    [(0, 2, 0.5), (2, 4, 1.0), (4, 6, 0.5)]
    """
    v = _votes(frame, annotations, text, (), past_end)
    item = v.table["item"].to_numpy()
    k = np.bincount(item, minlength=v.n_items)
    _, (g, s, e, c) = _coverage(v, item, v.n_items, k.astype(np.float64), True)
    prob = c / np.maximum(k[g], 1)
    out = pd.Series(pd.array(_soft_arrow(g, s, e, prob, v.n_items),
                             dtype=pd.ArrowDtype(SOFT_REFERENCE_TYPE)), index=frame.index)
    out.attrs["mycelium_annotators"] = v.told
    return out


def pairwise_agreement(frame: pd.DataFrame, *, by: str | Sequence[str] | None = None,
                       annotations: str = "annotations", text: str = "model_output_text",
                       profile: Any = "mu_shroom", metrics=None, average=None,
                       zero_division=None, params=None, soft: bool = True,
                       ci: float | None = None, n_resamples: int = 1000, seed: int = 0,
                       past_end: str = "error") -> pd.DataFrame:
    """Every annotator scored against every other annotator of the same item.

    Each ordered pair (``annotator`` as the prediction, ``reference`` as the reference)
    of two different annotators of an item is one example; groups ``by`` item columns
    and/or ``"annotator"`` / ``"reference"``. With ``soft``, ``soft_spearman`` compares
    the two annotators' spans as probability-1 soft labels (Mu-SHROOM's Cor).

    Returns
    -------
    pandas.DataFrame
        ``[*by, metric, measure, value, (ci_low, ci_high), examples, average, profile]``;
        ``attrs["mycelium_signature"]`` records the settings (and the dataset).

    Examples
    --------
    >>> import pandas as pd
    >>> marked = {"a": (0, 4), "b": (2, 6)}  # annotator: (start, end)
    >>> df = pd.DataFrame({"text": ["abcdefghij"], "annotations": [[
    ...     {"annotator": who, "spans": [{"start": s, "end": e}]}
    ...     for who, (s, e) in marked.items()]]})
    >>> out = pairwise_agreement(df, text="text", metrics=["iou"], soft=False)
    >>> out[["metric", "value", "examples"]].values.tolist()
    [['iou', 0.3333333333333333, 2]]
    """
    settings = _settings(profile=profile, metrics=metrics, average=average,
                         zero_division=zero_division, params=params, soft=soft, ci=ci,
                         n_resamples=n_resamples, seed=seed)
    keys = _by(by)
    v = _votes(frame, annotations, text, [c for c in keys if c not in _ROLES], past_end)
    det, ref = _ordered_pairs(v.table["item"].to_numpy())
    long = v.table.iloc[det].reset_index(drop=True)
    long["reference"] = v.table["annotator"].to_numpy()[ref]
    refs, preds = v.lists(ref), v.lists(det)
    cors = _pair_cors(v, ref, det) if soft else None
    out = _tidy(long, refs, preds, v.texts[det], cors, frame, keys, "pairwise", settings)
    out.attrs["mycelium_annotators"] = v.told
    return out


def leave_one_out(frame: pd.DataFrame, *, share: float = 0.5, strict: bool = True,
                  by: str | Sequence[str] | None = None, annotations: str = "annotations",
                  text: str = "model_output_text", profile: Any = "mu_shroom",
                  metrics=None, average=None, zero_division=None, params=None,
                  soft: bool = True, ci: float | None = None, n_resamples: int = 1000,
                  seed: int = 0, past_end: str = "error") -> pd.DataFrame:
    """Each annotator scored against the majority of the item's *other* annotators.

    The reference of annotator ``a`` on an item with ``k`` annotators is the characters
    marked by more than ``share`` of the other ``k - 1`` (``votes > share * (k - 1)``;
    ``>=`` without ``strict``): with ``share=0.5`` and k = 3 both others, k = 11 six of
    ten. ``a`` never votes in its own reference. With ``soft``, ``soft_spearman``
    compares ``a``'s spans (probability 1) with the others' vote shares. One example
    per (item, annotator); groups ``by`` item columns and/or ``"annotator"``.

    Returns
    -------
    pandas.DataFrame
        As `pairwise_agreement`.

    Raises
    ------
    ValueError
        An item with a single annotator (no one left to vote).

    Examples
    --------
    >>> import pandas as pd
    >>> marked = {"a": (0, 4), "b": (2, 6), "c": (2, 4)}  # annotator: (start, end)
    >>> df = pd.DataFrame({"text": ["abcdefghij"], "annotations": [[
    ...     {"annotator": who, "spans": [{"start": s, "end": e}]}
    ...     for who, (s, e) in marked.items()]]})
    >>> out = leave_one_out(df, text="text", metrics=["iou"], soft=False, by="annotator")
    >>> out[["annotator", "value"]].values.tolist()
    [['a', 0.5], ['b', 0.5], ['c', 1.0]]
    """
    _check_share(share)
    settings = _settings(profile=profile, metrics=metrics, average=average,
                         zero_division=zero_division, params=params, soft=soft, ci=ci,
                         n_resamples=n_resamples, seed=seed)
    keys = _by(by)
    if "reference" in keys:
        raise ValueError("Expected by= to name item columns or 'annotator', got "
                         "'reference', at leave_one_out(by=...); fix by dropping it (the "
                         "reference is the other annotators' majority).")
    v = _votes(frame, annotations, text, [c for c in keys if c not in _ROLES], past_end)
    item = v.table["item"].to_numpy()
    others = v.table["n_annotators"].to_numpy() - 1
    if (others < 1).any():
        r = int(np.flatnonzero(others < 1)[0])
        raise ValueError(f"Expected two or more annotators per item, got one, at item "
                         f"{int(item[r])}; fix by leaving single-annotator items out "
                         "(leave-one-out needs someone left to vote).")
    target, voter = _ordered_pairs(item)
    maj, (g, s, e, c) = _coverage(v, target, len(v.table), others * share, strict,
                                  voter_rows=voter)
    m_row, m_s, m_e = maj
    refs = _lists(m_row, m_s, m_e, len(v.table), np.arange(len(v.table)))
    preds = v.lists(np.arange(len(v.table)))
    cors = None
    if soft:
        shares = _fill(g, s, e, c / others[g], v.lengths)
        cors = np.array([cor(a, b) if a.size else np.nan
                         for a, b in zip(shares, _binary(v))], dtype=np.float64)
    out = _tidy(v.table, refs, preds, v.texts, cors, frame, keys,
                f"leave_one_out:{share!r}:{'gt' if strict else 'ge'}", settings)
    out.attrs["mycelium_annotators"] = v.told
    return out


def _settings(**options: Any) -> Settings:
    """The settings of an agreement face: resamples draw whole items (every row of an
    item shares its weights), which the signature records as ``keys:items``."""
    settings = resolve_settings(**options, ids=True)
    if settings.bootstrap is None:
        return settings
    return replace(settings, bootstrap=replace(settings.bootstrap, keys="items"))


def _tidy(long: pd.DataFrame, refs, preds, texts, cors, frame, keys, kind,
          settings: Settings) -> pd.DataFrame:
    """Score each group of ``long``'s rows; a tidy frame with item-resampled intervals."""
    units = long["item"].to_numpy().astype(np.uint64)  # an item's rows share its weights
    if keys:
        codes = long.groupby(keys, dropna=False, sort=True).ngroup().to_numpy()
    else:
        codes = np.zeros(len(long), dtype=np.int64)
    name = settings.profile.name if settings.profile else None
    rows = []
    for g in range(int(codes.max()) + 1 if len(long) else 0):
        pos = np.flatnonzero(codes == g)
        key = [long[k].iloc[int(pos[0])] for k in keys]
        st = _group_statistics(settings, [refs[i] for i in pos], [preds[i] for i in pos],
                               [texts[i] for i in pos], None if cors is None else cors[pos])
        values = aggregate(st, average=settings.average,
                           zero_division=settings.zero_division_option,
                           params=settings.params)
        boot = None
        if settings.bootstrap is not None:
            boot = resampled_values(st, keys=units[pos], average=settings.average,
                                    zero_division=settings.zero_division,
                                    params=settings.params, seed=settings.bootstrap.seed,
                                    n_resamples=settings.bootstrap.n_resamples)
        for metric in settings.metrics:
            avg = "macro" if metric == "soft_spearman" else settings.average
            for measure, value in values[metric].items():
                ends = [] if boot is None or settings.bootstrap is None else list(
                    percentile_interval(boot[metric][measure], settings.bootstrap.ci, value))
                rows.append([*key, metric, measure, value, *ends, len(pos), avg, name])
    cols = ["metric", "measure", "value"] + (["ci_low", "ci_high"]
                                             if settings.bootstrap is not None else [])
    out = pd.DataFrame(rows, columns=[*keys, *cols, "examples", "average", "profile"])
    out.attrs["mycelium_signature"] = signature_with(settings.signature(), annotators=kind,
                                                     dataset=dataset_of(frame))
    return out


def _group_statistics(settings, refs, preds, texts, cors) -> dict:
    spans = list(settings.span_metrics)
    st = statistics(refs, preds, text=texts, metrics=spans, params=settings.params) \
        if spans else {}
    if "soft_spearman" in settings.metrics:
        st["soft_spearman"] = {"score": np.asarray(cors, dtype=np.float64)}
    return st
