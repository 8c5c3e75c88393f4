"""Typed soft labels scored as the SHROOM-Visions kit scores them, many items at once.

An item has a reference and a prediction list of soft spans ``{start, end, prob, label}``
over a text. Its three scores (SPEC section 10.1):

- **Cor**: Spearman between per-character vectors, the reference *summing* the
  probabilities of overlapping spans (in list order), the prediction *overwritten* by
  its spans in list order (last writer wins), under the kit's constant rule
  (`mycelium.metrics.soft_runs.CONSTANT_RULES`, ``"shroom_visions"``);
- **Cor lbl**: the mean, over the union of both sides' labels, of Cor with both sides
  restricted to one label; 1.0 when the union is empty;
- **IoU**: of the sets of characters under any span, whatever its probability; 1.0 when
  both sets are empty.

Everything runs over flat arrays (``offsets, starts, ends, probs, labels``: item k owns
spans ``offsets[k]:offsets[k+1]`` in list order; labels are integer codes): the
per-label scores are the same computation on (item, label) sub-items. Spans must be
validated by the caller: ``0 <= start`` and ``end <= len(text)`` whenever
``start < end`` (an empty or reversed span writes nothing, but its label counts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .soft_runs import cor_of_runs, distinct, last_writer_runs
from .soft_spearman import average_ranks

__all__ = ["TypedScores", "typed_soft_scores", "summed_runs", "visions_cor", "set_iou"]


@dataclass(frozen=True)
class TypedScores:
    """Per-item scores and the per-(item, label) scores they are made of.

    ``cor``, ``cor_lbl``, ``iou``: one value per item. ``pair_item``, ``pair_label``:
    the (item, label code) pairs of the label unions, sorted; ``pair_cor``,
    ``pair_iou``: Cor and IoU restricted to that label; ``pair_ref_spans``,
    ``pair_pred_spans``: how many spans of that label each side has on that item.
    """

    cor: np.ndarray
    cor_lbl: np.ndarray
    iou: np.ndarray
    pair_item: np.ndarray
    pair_label: np.ndarray
    pair_cor: np.ndarray
    pair_iou: np.ndarray
    pair_ref_spans: np.ndarray
    pair_pred_spans: np.ndarray


def typed_soft_scores(lengths, ref: tuple, pred: tuple, n_labels: int) -> TypedScores:
    """Cor, Cor lbl and IoU of every item (see the module docstring).

    ``ref`` and ``pred`` are ``(offsets, starts, ends, probs, labels)``, labels being
    codes in ``[0, n_labels)``.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    ref = _arrays(ref)
    pred = _arrays(pred)
    cor = _cor(lengths, ref, pred)
    iou = set_iou(lengths.size, ref[:3], pred[:3])
    m, L = lengths.size, max(int(n_labels), 1)
    key_r = _items(ref[0]) * L + ref[4]
    key_p = _items(pred[0]) * L + pred[4]
    pairs = distinct(np.sort(np.concatenate([key_r, key_p]), kind="stable"))  # runs: see soft_runs
    pair_item, pair_label = pairs // L, pairs % L
    sub_r, count_r = _by_pair(ref, np.searchsorted(pairs, key_r), pairs.size)
    sub_p, count_p = _by_pair(pred, np.searchsorted(pairs, key_p), pairs.size)
    sub_len = lengths[pair_item]
    pair_cor = _cor(sub_len, sub_r, sub_p)
    pair_iou = set_iou(pairs.size, sub_r[:3], sub_p[:3])
    return TypedScores(cor, _label_means(pair_cor, pair_item, m), iou, pair_item,
                       pair_label, pair_cor, pair_iou, count_r, count_p)


def _arrays(side: tuple) -> tuple[np.ndarray, ...]:
    offsets, starts, ends, probs, labels = side
    return (np.asarray(offsets, dtype=np.int64), np.asarray(starts, dtype=np.int64),
            np.asarray(ends, dtype=np.int64), np.asarray(probs, dtype=np.float64),
            np.asarray(labels, dtype=np.int64))


def _items(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))


def _cor(lengths, ref, pred) -> np.ndarray:
    return cor_of_runs(lengths, summed_runs(lengths, *ref[:4]),
                       last_writer_runs(lengths, *pred[:4]), slow=visions_cor,
                       constant="shroom_visions")


def _by_pair(side, pair, n_pairs: int):
    """The spans regrouped as sub-items, one per pair, keeping list order within each."""
    order = np.argsort(pair, kind="stable")
    counts = np.bincount(pair, minlength=n_pairs).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)))
    return (offsets,) + tuple(col[order] for col in side[1:]), counts


def _label_means(pair_cor, pair_item, m: int) -> np.ndarray:
    """Per item, the sum of its pairs' Cor in label order, one at a time, over their
    count; 1.0 for an item without labels.

    Quirk of the SHROOM-Visions kit scorer (scorer.py 88-95): it adds the per-label
    scores with Python's ``sum`` in the iteration order of a set of strings, which
    depends on the interpreter's hash seed; the kit's own result may differ from run to
    run in the last bits (never in the 8 printed decimals but for a tie at the 8th)."""
    counts = np.bincount(pair_item, minlength=m)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(pair_item.size) - first[pair_item]
    total = np.zeros(m)
    for r in range(int(counts.max()) if m else 0):
        at = rank == r
        total[pair_item[at]] += pair_cor[at]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, total / np.maximum(counts, 1), 1.0)


def summed_runs(lengths, offsets, starts, ends, probs):
    """Runs ``(item, start, end, value)`` of the vectors that *add* each span's
    probability over its characters, sorted by (item, start) and not overlapping.

    Quirk of the SHROOM-Visions kit scorer (scorer.py 62-64): the reference vector sums
    overlapping spans, in list order (``ref_vec[idx] += prob``). The sums are taken in
    that order here too, so near-ties (``0.1 + 0.2 + 0.3`` against ``0.3 + 0.2 + 0.1``)
    come out as the kit's, bit for bit."""
    lengths = np.asarray(lengths, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    ex = _items(offsets)
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    p = np.asarray(probs, dtype=np.float64)
    keep = s < e  # an empty or reversed span adds nothing
    ex, s, e, p = ex[keep], s[keep], e[keep], p[keep]
    if s.size == 0:
        return ex, s, e, p
    width = int(lengths.max()) + 1
    ks, ke = ex * width + s, ex * width + e
    bounds = distinct(np.sort(np.concatenate([ks, ke]), kind="stable"))
    lo, hi = np.searchsorted(bounds, ks), np.searchsorted(bounds, ke)
    count = hi - lo
    span = np.repeat(np.arange(s.size, dtype=np.int64), count)  # list order per item
    piece = lo[span] + np.arange(span.size) - (np.cumsum(count) - count)[span]
    order = np.argsort(piece, kind="stable")
    piece, span = piece[order], span[order]
    head = np.ones(piece.size, dtype=bool)
    head[1:] = piece[1:] != piece[:-1]
    heads = np.flatnonzero(head)
    depth = np.diff(np.append(heads, piece.size))
    rank = np.arange(piece.size) - np.repeat(heads, depth)
    total = np.zeros(bounds.size)
    for r in range(int(depth.max())):  # the r-th span (in list order) over each piece
        at = rank == r
        total[piece[at]] += p[span[at]]
    covered = piece[heads]
    owner = bounds[covered] // width
    return (owner, bounds[covered] - owner * width, bounds[covered + 1] - owner * width,
            total[covered])


def visions_cor(a: np.ndarray, b: np.ndarray) -> float:
    """The kit's Cor of two per-character vectors (reference ``a``, prediction ``b``).

    Examples
    --------
    >>> import numpy as np
    >>> visions_cor(np.array([0.0, 0.5, 0.5]), np.array([0.1, 0.9, 0.4]))
    0.8660254037844387
    >>> visions_cor(np.zeros(3), np.full(3, 0.7))  # constant rule: gold zero, pred not
    0.0
    >>> visions_cor(np.full(3, 0.4), np.full(3, 0.7))  # both nonzero constants
    1.0
    """
    # Quirk of the SHROOM-Visions kit scorer (scorer.py 69-76): constancy on Python
    # round(x, 8); the cardinalities of the rounded sets are compared, and two
    # constant vectors score by whether each is zero. (Rounding the distinct values
    # only gives the same sets, much faster.)
    ra = {round(x, 8) for x in np.unique(a).tolist()}
    rb = {round(x, 8) for x in np.unique(b).tolist()}
    if len(ra) == 1 or len(rb) == 1:
        if len(ra) != len(rb):
            return 0.0
        if ra == {0.0}:
            return float(rb == {0.0})
        return float(rb != {0.0})
    if a.size == 0:
        return float("nan")  # spearmanr of two empty vectors
    # scipy's spearmanr: the ranks as two columns, corrcoef's [1, 0] entry.
    ranks = np.column_stack([average_ranks(a), average_ranks(b)])
    return float(np.corrcoef(ranks, rowvar=False)[1, 0])


def set_iou(m: int, ref: tuple, pred: tuple) -> np.ndarray:
    """IoU of the sets of characters under the spans of each side, per item; 1.0 when
    both are empty. ``ref`` and ``pred`` are ``(offsets, starts, ends)``; spans with
    ``start >= end`` cover nothing, and a span's probability does not matter.

    Examples
    --------
    >>> import numpy as np
    >>> set_iou(2, (np.array([0, 2, 2]), np.array([0, 5]), np.array([4, 9])),
    ...            (np.array([0, 1, 1]), np.array([2]), np.array([6])))
    array([0.33333333, 1.        ])
    """
    sides = []
    for offsets, starts, ends in (ref, pred):
        ex = _items(np.asarray(offsets, dtype=np.int64))
        s, e = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
        keep = s < e
        sides.append((ex[keep], s[keep], e[keep]))
    width = int(max([1] + [int(x[2].max()) for x in sides if x[2].size])) + 1
    pos, d_r, d_p = [], [], []
    for k, (ex, s, e) in enumerate(sides):
        pos += [ex * width + s, ex * width + e]
        one = np.ones(s.size, dtype=np.int64)
        zero = np.zeros(s.size, dtype=np.int64)
        d_r += [one, -one] if k == 0 else [zero, zero]
        d_p += [zero, zero] if k == 0 else [one, -one]
    at = np.concatenate(pos)
    order = np.argsort(at, kind="stable")
    at = at[order]
    in_r = np.cumsum(np.concatenate(d_r)[order])[:-1] > 0
    in_p = np.cumsum(np.concatenate(d_p)[order])[:-1] > 0
    seg = np.diff(at)
    item = at[:-1] // width
    inter = np.bincount(item, weights=seg * (in_r & in_p), minlength=m)[:m]
    union = np.bincount(item, weights=seg * (in_r | in_p), minlength=m)[:m]
    with np.errstate(invalid="ignore", divide="ignore"):
        # Quirk of the SHROOM-Visions kit scorer (scorer.py 115): 1.0 when both are empty.
        return np.where(union == 0, 1.0, inter / np.where(union == 0, 1.0, union))

