"""A drop-in for the SHROOM-Visions 2026 kit's scorer (Cor, IoU, Cor lbl), on numpy.

`score_files` reads a gold and a prediction file and returns what the participant kit's
``scorer.py`` computes (the organisers' file, vendored unchanged in
sckwokyboom/Vision-Hallucination-Detector @ 0db49dc, ``scripts/official/
official_scorer.py``; line numbers below are that file's), scored for all items at once
by `mycelium.metrics.typed_soft`. Each of the kit's rules is named in `RULES` and
recorded in the result's signature (``profile:shroom_visions@1|...``):

- ``float_parse:pandas-fast``: numbers read as ``pandas.read_json`` reads them (20-37);
- ``types:strict`` and ``labels:closed``: every predicted span a dict with ``type(x) is
  int/int/float/str`` and one of five labels; one bad span refuses the file (8-18);
- ``gold:cut-to-predicted``: the gold is cut to the predicted ids; extra or repeated
  predicted ids refuse; pairs in sorted id order (142-146, 37);
- ``reference_overlap:sum`` and ``prediction_overlap:last``: the gold vector adds
  overlapping spans, the predicted one is overwritten in list order (62-67);
- ``constant:round8-visions`` and ``spearman:unrounded``: the constant rule on values
  rounded to 8 dp, Spearman on the unrounded ones (69-78);
- ``label_union:case-sensitive`` and ``empty_union:1.0``: Cor lbl, the mean of Cor per
  label over the union of both sides' labels, 1.0 for an empty union (81-98);
- ``iou:all-spans``: IoU over every span, probability 0 included (101-117).

Differences, on purpose: the gold may lack ``raw_annots`` (the kit then crashes; here the
classification lines are left out); gold ids must be unique, and a span with a negative
offset, or a non-finite probability, refuses the file where the kit would index
backwards or compare NaNs (rules ``gold-ids``, ``negative-offset``, ``finite-prob``);
``labels_ignore_case=True`` (off by default, recorded as ``labels:closed-ignore-case``)
reads ``ocr`` as ``OCR``.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._version import __version__
from ..core.exactsum import exact_mean
from ..core.provenance import Dataset
from ..core.signature import protocol_signature, signature_with
from ..io.provenance import dataset_provenance
from ..io.records import primitive_values
from ..io.shroom_visions import (VisionsInputError, VisionsSide, read_visions_side,
                                 visions_side)
from ..metrics.typed_soft import TypedScores, typed_soft_scores

if TYPE_CHECKING:  # pandas is loaded only by per_label
    import pandas as pd

__all__ = ["VisionsResult", "VisionsInputError", "RULES", "visions_signature",
           "score_files", "score_records"]

#: The kit's rules, as recorded in the signature (see the module docstring).
RULES = (("float_parse", "pandas-fast"), ("types", "strict"), ("labels", "closed"),
         ("gold", "cut-to-predicted"), ("reference_overlap", "sum"),
         ("prediction_overlap", "last"), ("constant", "round8-visions"),
         ("spearman", "unrounded"), ("label_union", "case-sensitive"),
         ("empty_union", "1.0"), ("iou", "all-spans"))
PROFILE = "shroom_visions@1"
METRICS = "soft_spearman_visions,soft_spearman_visions_by_label,iou_all_spans"


def visions_signature(*, labels_ignore_case: bool = False,
                      dataset: Dataset | None = None) -> str:
    """The signature of a `score_files` result: the profile, every kit rule, and the
    gold file's provenance.

    Examples
    --------
    >>> sig = visions_signature(labels_ignore_case=True)
    >>> sig.split("|")[1:4]
    ['profile:shroom_visions@1', 'metrics:soft_spearman_visions,soft_spearman_visions_by_label,iou_all_spans', 'float_parse:pandas-fast']
    >>> [f for f in sig.split("|") if f.startswith(("labels:", "label_union:"))]
    ['labels:closed-ignore-case', 'label_union:ignore-case']
    """
    rules = dict(RULES)
    if labels_ignore_case:
        rules["labels"] = "closed-ignore-case"
        rules["label_union"] = "ignore-case"
    fields = [("mycelium", __version__), ("profile", PROFILE), ("metrics", METRICS),
              *rules.items()]
    return signature_with(protocol_signature(fields), dataset=dataset) or ""


@dataclass(frozen=True)
class VisionsResult:
    """Scores of one prediction file against the gold, as the kit computes them.

    Attributes
    ----------
    ids : list
        The scored ids in the kit's order (sorted; numerically if all look like integers).
    cor, iou, cor_lbl : numpy.ndarray
        Per-item Cor, IoU and Cor lbl, in ``ids`` order.
    cor_mean, iou_mean, cor_lbl_mean : float
        Their means, summed as the kit sums them (numpy's mean in id order).
    classification : dict or None
        With ``raw_annots`` in the gold: ``acc``, ``f1``, ``prec``, ``rec`` and the
        ``pred`` / ``ref`` counts of hallucinated items; None without.
    signature : str
        The rules and the gold's provenance (`visions_signature`).
    """

    ids: list
    cor: np.ndarray
    iou: np.ndarray
    cor_lbl: np.ndarray
    cor_mean: float
    iou_mean: float
    cor_lbl_mean: float
    classification: dict | None
    signature: str
    label_names: tuple
    scores: TypedScores

    @property
    def printed(self) -> str:
        """The kit's result lines on standard output (8 dp), with its classification
        lines when the gold has ``raw_annots``."""
        out = (f"Cor    : {self.cor_mean:.8f}\nIoU    : {self.iou_mean:.8f}\n"
               f"Cor lbl: {self.cor_lbl_mean:.8f}\n")
        if self.classification is not None:
            # The kit prints sorted({'acc ', 'prec', 'rec ', 'f1  '}) (scorer.py 159-160).
            for key in ("acc ", "f1  ", "prec", "rec "):
                out += f"{key}   : {self.classification[key.strip()]:.8f}\n"
        return out

    @property
    def written(self) -> str:
        """The kit's OUT file, byte for byte (scorer.py 152-154)."""
        return f"Cor    : {self.cor_mean:.8f}\nCor lbl: {self.cor_lbl_mean:.8f}\n"

    def per_label(self) -> pd.DataFrame:
        """Cor and IoU per label over the items whose label union holds it.

        Returns
        -------
        pandas.DataFrame
            One row per label present on either side (the five labels first, in
            `mycelium.io.shroom_visions.VISIONS_LABELS` order): ``label``, ``Cor`` (the
            exact mean over those items of Cor restricted to the label, as in Cor lbl),
            ``IoU`` (the same for IoU), ``items``, ``spans`` (gold spans of the label)
            and ``pred_spans``.
        """
        import pandas as pd

        s = self.scores
        rows = []
        for code, name in enumerate(self.label_names):
            at = s.pair_label == code
            if not at.any():
                continue
            # Exact means (the kit prints no per-label score): the numbers of the
            # shroom_visions profile's per-label rows on every face, bit for bit.
            rows.append({"label": name, "Cor": exact_mean(s.pair_cor[at]),
                         "IoU": exact_mean(s.pair_iou[at]), "items": int(at.sum()),
                         "spans": int(s.pair_ref_spans[at].sum()),
                         "pred_spans": int(s.pair_pred_spans[at].sum())})
        frame = pd.DataFrame(rows, columns=["label", "Cor", "IoU", "items", "spans",
                                            "pred_spans"])
        frame.attrs["mycelium_signature"] = self.signature
        return frame


def score_files(ref_path: str | os.PathLike[str], pred_path: str | os.PathLike[str], *,
                labels_ignore_case: bool = False) -> VisionsResult:
    """Score a SHROOM-Visions prediction file against the gold, as the kit does.

    Parameters
    ----------
    ref_path : str or path
        The gold JSONL (``id``, ``response``, ``labels``; ``raw_annots`` optional).
    pred_path : str or path
        The predictions (``id``, ``labels``), for all the gold's items or some.
    labels_ignore_case : bool, default False
        Accept a predicted label that is one of the five but for its case (``ocr``), as
        that label; gold labels are mapped the same way. Recorded in the signature.

    Returns
    -------
    VisionsResult

    Raises
    ------
    VisionsInputError
        What the kit refuses, naming the rule (``rule``: ``labels-field``,
        ``span-type``, ``label-set``, ``ids``, ``span-in-text``, ``fields``) and the
        file, line, id and span; and the cases in the module docstring.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> gold = {"id": "a", "response": "Two red buses.", "labels": [
    ...     {"start": 0, "end": 3, "prob": 1.0, "label": "miscounting"},
    ...     {"start": 4, "end": 7, "prob": 0.5, "label": "mischaracterization"}]}
    >>> pred = {"id": "a", "labels": [
    ...     {"start": 0, "end": 3, "prob": 0.8, "label": "miscounting"}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ref, out = pathlib.Path(tmp, "gold.jsonl"), pathlib.Path(tmp, "pred.jsonl")
    ...     _ = ref.write_text(json.dumps(gold) + "\\n", encoding="utf-8")
    ...     _ = out.write_text(json.dumps(pred) + "\\n", encoding="utf-8")
    ...     result = score_files(ref, out)
    >>> print(result.printed, end="")
    Cor    : 0.79772404
    IoU    : 0.50000000
    Cor lbl: 0.50000000
    >>> result.per_label()[["label", "Cor", "IoU", "items"]]
                     label  Cor  IoU  items
    0  mischaracterization  0.0  0.0      1
    1          miscounting  1.0  1.0      1
    """
    gold = read_visions_side(ref_path, role="reference", ignore_case=labels_ignore_case)
    pred = read_visions_side(pred_path, role="prediction", names=list(gold.names),
                             ignore_case=labels_ignore_case)
    dataset = dataset_provenance("shroom_visions", [ref_path], float_parse="pandas-fast")
    return _scored(gold, pred, str(ref_path), str(pred_path), labels_ignore_case, dataset)


def score_records(refs: list[dict], preds: list[dict], *, labels_ignore_case: bool = False,
                  ref_name: str = "reference", pred_name: str = "prediction"
                  ) -> VisionsResult:
    """`score_files` on records already read (numbers as floats already).

    Examples
    --------
    >>> refs = [{"id": "a", "response": "abcd", "labels": []},
    ...         {"id": "b", "response": "abcd", "labels": []}]
    >>> preds = [{"id": "b", "labels": [{"start": 0, "end": 2, "prob": 0.0,
    ...                                  "label": "OCR"}]}]
    >>> r = score_records(refs, preds)   # the gold is cut to id b
    >>> r.ids, r.cor.tolist(), r.iou.tolist(), r.cor_lbl.tolist()
    (['b'], [1.0], [0.0], [1.0])
    """
    return _score(refs, preds, ref_name, pred_name, None, None, labels_ignore_case, None)


def _score(refs, preds, ref_name, pred_name, ref_lines, pred_lines, ignore_case,
           dataset) -> VisionsResult:
    gold = visions_side(refs, role="reference", name=ref_name, lines=ref_lines,
                        ignore_case=ignore_case)
    pred = visions_side(preds, role="prediction", name=pred_name, lines=pred_lines,
                        names=list(gold.names), ignore_case=ignore_case)
    return _scored(gold, pred, ref_name, pred_name, ignore_case, dataset)


def _scored(gold: VisionsSide, pred: VisionsSide, ref_name: str, pred_name: str,
            ignore_case: bool, dataset) -> VisionsResult:
    names = pred.names  # the gold's labels, then none: predictions hold only the five
    ids, gold_at, pred_at = _pairs(gold, pred, ref_name, pred_name)
    if gold.text_lengths is not None:
        lengths = gold.text_lengths[gold_at]
    else:
        texts = gold.texts or []
        lengths = np.array([len(texts[k]) for k in gold_at.tolist()], dtype=np.int64)
    g = _take(gold.spans(), gold_at)
    p = _take(pred.spans(), pred_at)
    _check_ranges(g, lengths, gold, gold_at, ref_name)
    _check_ranges(p, lengths, pred, pred_at, pred_name)
    scores = typed_soft_scores(lengths, g, p, len(names))
    classification = None
    if gold.annotated is not None:
        classification = _classification(gold.annotated[gold_at], p)
    elif gold.raw_annots is not None:
        classification = _classification(_annotated([gold.raw_annots[k]
                                                      for k in gold_at.tolist()]), p)
    return VisionsResult(ids, scores.cor, scores.iou, scores.cor_lbl,
                         float(np.mean(scores.cor)), float(np.mean(scores.iou)),
                         float(np.mean(scores.cor_lbl)), classification,
                         visions_signature(labels_ignore_case=ignore_case, dataset=dataset),
                         tuple(names), scores)


def _pairs(gold: VisionsSide, pred: VisionsSide, ref_name: str, pred_name: str):
    """The predicted ids in the kit's order and the positions of each on both sides."""
    fast = _arrow_pairs(gold.ids, pred.ids, gold.id_array, pred.id_array)
    if fast is not None:
        return fast
    return _checked_pairs(gold, pred, ref_name, pred_name)


def _arrow_pairs(gold_ids: list, pred_ids: list, gold_array=None, pred_array=None):
    """`_pairs` by pyarrow's hashing and sorting, when the ids of both sides are all
    strings or all integers of 64 bits, unique, and the predicted ones all in the gold;
    None otherwise (then `_checked_pairs` says what is wrong). Strings sort as their
    UTF-8 bytes, which is the order of their code points, Python's order. The ids' Arrow
    arrays (`VisionsSide.id_array`) are used when both sides have them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if gold_array is not None and pred_array is not None:
        g, p = gold_array, pred_array
    else:
        try:
            g, p = pa.array(gold_ids), pa.array(pred_ids)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return None
    if g.type != p.type or not (pa.types.is_string(g.type) or pa.types.is_int64(g.type)):
        return None
    if pc.count_distinct(g).as_py() != len(g) or pc.count_distinct(p).as_py() != len(p):
        return None
    where = pc.index_in(p, value_set=g)
    if where.null_count:
        return None
    order = primitive_values(pc.sort_indices(p)).astype(np.int64)
    ids = [pred_ids[k] for k in order.tolist()]
    return ids, primitive_values(where).astype(np.int64)[order], order


def _checked_pairs(gold: VisionsSide, pred: VisionsSide, ref_name: str, pred_name: str):
    where_gold: dict = {}
    for k, i in enumerate(gold.ids):
        if i in where_gold:
            raise VisionsInputError(
                f"{ref_name}, line {gold.lines[k]}: id {i!r} is repeated (first at line "
                f"{gold.lines[where_gold[i]]}); expected unique gold ids (the kit would pair "
                "repeated ids in an arbitrary order).", rule="gold-ids")
        where_gold[i] = k
    where_pred: dict = {}
    for k, i in enumerate(pred.ids):
        if i in where_pred:
            # Quirk of the kit (scorer.py 142-146): a repeated id leaves more predictions
            # than gold items, and its assert refuses the file.
            raise VisionsInputError(
                f"{pred_name}, line {pred.lines[k]}: id {i!r} is repeated (first at line "
                f"{pred.lines[where_pred[i]]}); the kit refuses the file (scorer.py 146); "
                "keep one line per id.", rule="ids")
        if i not in where_gold:
            raise VisionsInputError(
                f"{pred_name}, line {pred.lines[k]}: id {i!r} is not in the gold "
                f"{ref_name}; the kit refuses the file (scorer.py 146); drop the line or "
                "score against the right gold file.", rule="ids")
        where_pred[i] = k
    try:
        ids = sorted(where_pred)
    except TypeError:
        raise VisionsInputError(f"{pred_name}: ids mix numbers and strings; the kit cannot "
                                "sort them (scorer.py 37).", rule="ids") from None
    return (ids, np.array([where_gold[i] for i in ids], dtype=np.int64),
            np.array([where_pred[i] for i in ids], dtype=np.int64))


def _take(spans: tuple, items: np.ndarray) -> tuple:
    """The spans of ``items`` (in that order) as ``(offsets, starts, ends, probs,
    labels)``, list order kept within each item."""
    offsets = spans[0]
    lo, counts = offsets[items], np.diff(offsets)[items]
    new = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    at = np.repeat(lo - new[:-1], counts) + np.arange(int(new[-1]), dtype=np.int64)
    return (new,) + tuple(col[at] for col in spans[1:])


def _check_ranges(spans: tuple, lengths: np.ndarray, side: VisionsSide, items: np.ndarray,
                  name: str) -> None:
    offsets, s, e, p, _ = spans
    item = np.repeat(np.arange(lengths.size), np.diff(offsets))
    written = s < e
    problems = (
        (written & (e > lengths[item]), "span-in-text",
         "ends past the text (len {n}); the kit's vector has no such character and it "
         "crashes (IndexError, scorer.py 63-67); fix the offsets"),
        (written & (s < 0), "negative-offset",
         "starts before 0; the kit would write it from the end of the text (Python's "
         "negative indices), so it is refused; fix the offsets"),
        (~np.isfinite(p), "finite-prob", "has a probability that is not finite; expected a "
         "number"),
    )
    for bad, rule, why in problems:
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            k = int(item[j])
            at = side.lines[int(items[k])]
            span = f"[{int(s[j])}, {int(e[j])})"
            raise VisionsInputError(f"{name}, line {at}: id {side.ids[int(items[k])]!r}, "
                                    f"labels span {j - int(offsets[k])} {span} "
                                    + why.format(n=int(lengths[k])) + ".", rule=rule)


def _annotated(raw_annots: list[dict]) -> np.ndarray:
    """Whether more than half of each item's annotators marked something (a value
    other than ``'|'``), as the kit decides that an item is hallucinated (scorer.py
    120-123)."""
    return np.array([sum(v != "|" for v in r.values()) > len(r) / 2 for r in raw_annots],
                    dtype=bool)


def _classification(refs: np.ndarray, pred: tuple) -> dict:
    """The kit's classification scores (scorer.py 119-136): an item is hallucinated in
    the gold when more than half of its annotators marked something (``refs``,
    `_annotated`), in the prediction when a span covers a character."""
    offsets, s, e = pred[:3]
    covered = np.bincount(np.repeat(np.arange(refs.size), np.diff(offsets)),
                          weights=(s < e), minlength=refs.size) > 0
    tp = int((refs & covered).sum())
    fp = int((~refs & covered).sum())
    fn = int((refs & ~covered).sum())
    # sklearn's precision_recall_fscore_support (binary, zero_division=0) and
    # accuracy_score, on these counts.
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    acc = float(np.mean(refs == covered))
    return {"acc": acc, "f1": f1, "prec": prec, "rec": rec,
            "pred": Counter(covered.tolist()), "ref": Counter(refs.tolist())}
