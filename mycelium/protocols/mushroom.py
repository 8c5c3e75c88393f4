"""A drop-in for the official Mu-SHROOM (SemEval-2025 Task 3) scorer, on mycelium's core.

`score_files` reads one reference and one prediction file in the official jsonl format
and returns what ``participant_kit/scorer.py`` computes: per-example IoU of the hard
labels and Cor (`soft_spearman`) of the soft labels, their unweighted means, and the
text the scorer writes (``"IoU: %.8f\\nCor: %.8f\\n"``).

Reproduced quirks of the official pipeline (each is marked where it is implemented):

- records are paired by ``id`` after sorting both files by id; ids that all look like
  integers sort numerically (pandas turns them into int64 when reading);
- a prediction without ``hard_labels`` gets the soft spans with prob > 0.5 (strict),
  sorted, a span starting exactly at the previous kept span's end extending it; without
  ``soft_labels`` it gets prob-1.0 soft labels on its hard spans; presence is decided
  per file, not per line;
- Cor's constant-vector rule and last-writer-wins vectors (see
  `mycelium.metrics.soft_spearman`).

- numbers are read as the scorer's ``pandas.read_json`` reads them (its fast float
  parser: ``0.5000000000000001`` becomes 0.5, and digits past the 15th decimal are
  dropped, so near-equal 17-digit probabilities tie), the ``mu_shroom`` profile's
  ``float_parse="pandas-fast"`` (`mycelium.io.float_parse`); ``float_parse="exact"``
  reads them correctly rounded instead. On 16 of 46 real submissions that reproduce
  published leaderboard rows, the exact reading changes the printed Cor (by up to
  0.0106).

Deliberate differences: invalid input (a span outside the text, negative or reversed;
a probability outside [0, 1]; missing, extra or duplicate ids; no label field) is
rejected with an error naming the file, the line, the id, the field and the span — as
the official submission platform rejected such files, and saying which rule of the
task's format checker a span breaks — where the bare scorer crashes or scores nonsense.
"""

from __future__ import annotations

from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SpanValidationError
from ..evaluate import evaluate
from ..io._records import json_objects
from ..io.float_parse import parse_float_hook, resolve_float_parse
from .mushroom_checks import (MushroomInputError, _by_id, _check_references, _checked_hard,
                              _checked_soft, _label_fields, _located, _namer, _same_ids,
                              refuse_byte_order_mark)
from .mushroom_fast import _hard_batch, _official_order, score_columnar

__all__ = ["MushroomResult", "MushroomInputError", "score_files", "score_records",
           "derive_hard_labels", "derive_soft_labels", "format_scores"]


@dataclass(frozen=True)
class MushroomResult:
    """Scores of one prediction file against its reference file.

    Attributes
    ----------
    ids : list of str
        The record ids, in the official scorer's order (numeric if all look numeric).
    iou, cor : list of float
        Per-example IoU of the hard labels and Cor (`mycelium.metrics.soft_spearman`)
        of the soft labels, in ``ids`` order.
    iou_mean, cor_mean : float
        Their unweighted means, summed as the official scorer sums them.

    Examples
    --------
    >>> result = MushroomResult(["1"], [0.5], [1.0], 0.5, 1.0)
    >>> print(result.printed, end="")
    IoU: 0.50000000
    Cor: 1.00000000
    """

    ids: list
    iou: list[float]
    cor: list[float]
    iou_mean: float
    cor_mean: float

    @property
    def printed(self) -> str:
        """Exactly what the official scorer writes to its output file."""
        return format_scores(self.iou_mean, self.cor_mean)


def format_scores(iou: float, cor: float) -> str:
    """The official output text: ``IoU: %.8f\\nCor: %.8f\\n``.

    Parameters
    ----------
    iou, cor : float
        The file's mean IoU and mean Cor.

    Returns
    -------
    str
        Two lines, each value with 8 decimals, as ``participant_kit/scorer.py`` writes.

    Examples
    --------
    >>> format_scores(0.8125, 0.8466876226407682)
    'IoU: 0.81250000\\nCor: 0.84668762\\n'
    """
    return f"IoU: {iou:.8f}\nCor: {cor:.8f}\n"


def read_jsonl(path, *, float_parse: str | None = None) -> list[dict]:
    """Records of a jsonl file; errors name the file and line.

    Lines end at ``"\\n"`` only, as for the official scorer's reader: a raw U+2028,
    U+2029 or U+0085 inside a JSON string is part of the string. A byte order mark at
    the start of the file is dropped. Floats are read by ``float_parse`` (default: the
    ``mu_shroom`` profile's ``"pandas-fast"``, as the official scorer reads them;
    ``"exact"``: correctly rounded).
    """
    return _read_lines(path, resolve_float_parse(float_parse))[0]


def _read_lines(path, rule: str) -> tuple[list[dict], list[int]]:
    """The records of a jsonl file and the line number of each."""
    path = Path(path)
    hook = parse_float_hook(rule)
    try:
        with open(path, "rb") as fh:
            pairs = list(json_objects(fh, str(path), at=lambda n: f"{path}, line {n}",
                                      error=MushroomInputError, parse_float=hook))
    except OSError as exc:
        raise MushroomInputError(f"{path}: cannot read the file ({exc.strerror}).") from None
    return [record for _, record in pairs], [line for line, _ in pairs]


def derive_hard_labels(soft_labels: list[dict[str, Any]]) -> list[list[int]]:
    """Hard labels of a prediction that has only soft labels (the official rule).

    Parameters
    ----------
    soft_labels : list of dict
        ``{"start", "end", "prob"}`` spans, half-open offsets.

    Returns
    -------
    list of [start, end]
        The spans with ``prob > 0.5`` (strictly), sorted by ``(start, end)``; a span
        starting exactly at the previous kept span's end extends it.

    Examples
    --------
    >>> derive_hard_labels([{"start": 5, "end": 9, "prob": 0.9},
    ...                     {"start": 0, "end": 5, "prob": 0.6},
    ...                     {"start": 9, "end": 12, "prob": 0.5}])
    [[0, 9]]
    """
    kept = sorted((s for s in soft_labels if s["prob"] > 0.5),
                  key=lambda s: (s["start"], s["end"]))
    hard: list[list[int]] = []
    prev_end = None
    for span in kept:
        # Quirk of the official Mu-SHROOM scorer (recompute_hard_labels): a span starting
        # exactly where the previous kept span ended overwrites that span's end.
        if hard and span["start"] == prev_end:
            hard[-1][1] = span["end"]
        else:
            hard.append([span["start"], span["end"]])
        prev_end = span["end"]
    return hard


def derive_soft_labels(hard_labels: list[list[int]]) -> list[dict[str, Any]]:
    """Soft labels of a prediction that has only hard labels: prob 1.0 on each span.

    Parameters
    ----------
    hard_labels : list of [start, end]
        Half-open spans.

    Returns
    -------
    list of dict
        One ``{"start", "end", "prob": 1.0}`` per span, in the given order.

    Examples
    --------
    >>> derive_soft_labels([[0, 4], [6, 9]])
    [{'start': 0, 'end': 4, 'prob': 1.0}, {'start': 6, 'end': 9, 'prob': 1.0}]
    """
    return [{"start": s, "end": e, "prob": 1.0} for s, e in hard_labels]


def score_files(ref_path: str | os.PathLike[str],
                pred_path: str | os.PathLike[str], *,
                float_parse: str | None = None) -> MushroomResult:
    """Score one official-format prediction file against its reference file.

    Parameters
    ----------
    ref_path : str or path
        The reference jsonl file (``id``, ``model_output_text``, ``hard_labels``,
        ``soft_labels`` per line).
    pred_path : str or path
        The prediction jsonl file: ``id`` and ``hard_labels`` and/or ``soft_labels``
        per line (a missing field is derived as the official scorer derives it).
    float_parse : {"pandas-fast", "exact"}, optional
        How both files' numbers become floats. The default is the ``mu_shroom``
        profile's ``"pandas-fast"``: as the official scorer's ``pandas.read_json``
        reads them, so that the output is the official one on every file;
        ``"exact"`` reads them correctly rounded (`mycelium.io.float_parse`).

    Returns
    -------
    MushroomResult
        Per-example IoU and Cor, their means and the official output text.

    Raises
    ------
    MushroomInputError
        A file cannot be read or is not valid JSON lines, ids are missing, extra or
        repeated, a label field is missing or malformed, or a span or probability is
        out of range; the message names the file, the line, the id and the field (and
        the span, with the task's format-checker rule it breaks).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> ref = {"id": "a", "model_output_text": "Paris is in Italy.",
    ...        "hard_labels": [[12, 17]],
    ...        "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667}]}
    >>> pred = {"id": "a", "hard_labels": [[9, 17]]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ref_path, pred_path = pathlib.Path(tmp, "ref.jsonl"), pathlib.Path(tmp, "pred.jsonl")
    ...     _ = ref_path.write_text(json.dumps(ref) + "\\n", encoding="utf-8")
    ...     _ = pred_path.write_text(json.dumps(pred) + "\\n", encoding="utf-8")
    ...     result = score_files(ref_path, pred_path)
    >>> result.iou, result.cor
    ([0.625], [0.6933752452815364])
    >>> print(result.printed, end="")
    IoU: 0.62500000
    Cor: 0.69337525
    """
    rule = resolve_float_parse(float_parse)
    for path in (ref_path, pred_path):
        refuse_byte_order_mark(path)
    fast = score_columnar(ref_path, pred_path, _official_order, float_parse=rule)
    if fast is not None:
        ids, iou, cor = fast
        return MushroomResult(ids, iou, cor, float(np.mean(iou)), float(np.mean(cor)))
    refs, ref_lines = _read_lines(ref_path, rule)
    preds, pred_lines = _read_lines(pred_path, rule)
    return _score(refs, preds, str(ref_path), str(pred_path), ref_lines, pred_lines)


def score_records(refs: list[dict[str, Any]], preds: list[dict[str, Any]], *,
                  ref_name: str = "reference", pred_name: str = "prediction"
                  ) -> MushroomResult:
    """`score_files` on records already read (dicts in the official format).

    Parameters
    ----------
    refs, preds : list of dict
        Reference and prediction records, in any order (paired by ``id``).
    ref_name, pred_name : str
        Names of the two sides in error messages (`score_files` passes the paths).

    Returns
    -------
    MushroomResult
        As `score_files` (whose Raises section lists the `MushroomInputError` cases).

    Notes
    -----
    IoU is `mycelium.metrics.iou` of the hard labels (1.0 when both are empty) and Cor
    is `mycelium.metrics.soft_spearman` of the soft labels, under the ``mu_shroom``
    profile; the means are numpy's mean over the examples in id order.

    Examples
    --------
    >>> refs = [{"id": "a", "model_output_text": "Paris is in Italy.",
    ...          "hard_labels": [[12, 17]],
    ...          "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667}]},
    ...         {"id": "b", "model_output_text": "The sky is blue.",
    ...          "hard_labels": [], "soft_labels": []}]
    >>> preds = [{"id": "b", "soft_labels": []},
    ...          {"id": "a", "soft_labels": [{"start": 9, "end": 12, "prob": 0.4},
    ...                                      {"start": 12, "end": 17, "prob": 0.9}]}]
    >>> result = score_records(refs, preds)
    >>> result.ids, result.iou, result.iou_mean
    (['a', 'b'], [1.0, 1.0], 1.0)
    >>> result.cor
    [0.8660254037844386, 1.0]
    """
    return _score(refs, preds, ref_name, pred_name)


def _score(refs: list[dict], preds: list[dict], ref_name: str, pred_name: str,
           ref_lines: list[int] | None = None, pred_lines: list[int] | None = None
           ) -> MushroomResult:
    """`score_records`; with the records' line numbers, errors name the line too."""
    _check_references(refs, ref_name)
    hard, soft = _label_fields(preds, pred_name)
    ref_by_id = _by_id(refs, ref_name)
    pred_by_id = _by_id(preds, pred_name)
    _same_ids(ref_by_id, pred_by_id, ref_name, pred_name)
    ids = _official_order(list(ref_by_id))
    pairs = [(ref_by_id[i], pred_by_id[i]) for i in ids]
    pred_name_of = _namer(pred_name, preds, pred_lines)
    ref_name_of = _namer(ref_name, refs, ref_lines)
    pred_hard, pred_soft = [], []
    lengths = [len(r["model_output_text"]) for r, _ in pairs]
    first_bad, converted = _hard_batch(pairs, lengths) if hard else (0, None)
    for k, (r, p) in enumerate(pairs):
        n = lengths[k]
        if hard:
            h = converted[k] if converted is not None and k < first_bad \
                else _checked_hard(p, n, pred_name_of(p))
            so = _checked_soft(p, n, pred_name_of(p)) if soft else derive_soft_labels(h)
        else:  # _label_fields: a file without hard labels has soft labels
            so = _checked_soft(p, n, pred_name_of(p))
            h = derive_hard_labels(so)
        pred_hard.append(h)
        pred_soft.append(so)
    try:
        report = evaluate(
            [r["hard_labels"] for r, _ in pairs], pred_hard,
            text=[r["model_output_text"] for r, _ in pairs], profile="mu_shroom",
            metrics=["iou", "soft_spearman"],
            soft_references=[r["soft_labels"] for r, _ in pairs],
            soft_predictions=pred_soft, include_per_example=True)
    except SpanValidationError as exc:
        raise _located(exc, pairs, (ref_name, pred_name), (ref_name_of, pred_name_of)) \
            from None
    rows = report["per_example"]
    iou = [row["iou"]["score"] for row in rows]
    cor = [row["soft_spearman"]["score"] for row in rows]
    # Quirk of the official Mu-SHROOM scorer: the file score is numpy's mean over the
    # examples in id order. mycelium's own macro means are exact; here the official
    # summation is kept so that the means, not only their printed digits, are the
    # scorer's to the last bit.
    return MushroomResult(ids, iou, cor, float(np.mean(iou)), float(np.mean(cor)))
