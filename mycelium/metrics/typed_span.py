"""``typed_span``: the four matching schemes of NER evaluation over typed spans.

SemEval-2013 task 9.1 (and nervaluate) classify every span of an example as one of five
outcomes; a scheme decides what counts as a match.

Schemes (``params={"typed_span": {"scheme": ...}}``)
    ``strict``   same boundaries and same type;
    ``exact``    same boundaries, any type;
    ``partial``  same boundaries is correct, any other overlap is partial (half credit);
    ``type``     any overlap with the same type is correct (overlap with another type
                 is incorrect).

Statistics (per example)
    ``correct``, ``incorrect``, ``partial`` (predictions matched to a reference),
    ``missed`` (references left unmatched), ``spurious`` (predictions left unmatched).
    possible = correct + incorrect + partial + missed (the reference spans),
    actual = correct + incorrect + partial + spurious (the predicted spans).

Measures
    precision = (correct + partial / 2) / actual, recall = (correct + partial / 2) /
    possible (``partial`` is 0 outside the ``partial`` scheme), F1 their harmonic mean.
    The ratios are stated in whole numbers: ``(2 correct + partial) / (2 actual)``.

The matching rule
    Spans are half-open ``[start, end)``; two spans overlap when they share a character.
    Each side is a set: exact duplicates of ``(start, end, type)`` count once and
    zero-length spans are dropped. Both sides are put in canonical order, by
    ``(start, end, type)``, and then predictions are matched one at a time in that order,
    each taking at most one still-unmatched reference:

    - ``strict``/``exact``: the first unmatched reference with the same boundaries (and,
      for ``strict``, the same type) makes the prediction correct; failing that, the
      first unmatched overlapping reference makes it incorrect;
    - ``partial``: the first unmatched reference with the same boundaries makes it
      correct; failing that, the first unmatched overlapping reference makes it partial;
    - ``type``: among the unmatched overlapping references of the same type, the one whose
      boundaries are closest (least ``|Δstart| + |Δend|``, the first on a tie) makes it
      correct; failing that, the first unmatched overlapping reference of another type
      makes it incorrect.

    A prediction that takes no reference is spurious; a reference no prediction took is
    missed. The result depends on the spans only, never on the order they were listed in.

Difference from nervaluate 1.2.1
    nervaluate runs one pass over the spans **in the order they are listed** (its ends
    are inclusive: ``end - 1`` here), so on overlapping spans its counts change when a
    list is reordered (under ``strict``, references ``[0, 4)``, ``[9, 10)`` of type E and
    predictions ``[4, 10)`` of type I, ``[9, 10)`` of type E: listed in that order
    ``[4, 10)`` takes ``[9, 10)``, 0 correct; listed the other way round, 1 correct;
    here always 1), and it counts listed duplicates twice. On inputs whose spans
    are disjoint within each side, listed in ``(start, end)`` order, the two agree (a
    hypothesis test checks it, all four schemes). Quirk of nervaluate: an overlap counts
    only if it covers at least ``min_overlap_percentage`` (1 by default, at least 1) per
    cent of the reference span, so a one-character overlap with a reference longer than
    100 characters is no overlap there; here any shared character is an overlap.

Examples
--------
A prediction with the right boundaries but the wrong type: incorrect under ``strict``,
correct under ``exact``:

>>> import numpy as np
>>> refs = TypedSpans.of([[(0, 5, "Intrinsic"), (10, 20, "Extrinsic")]])
>>> preds = TypedSpans.of([[(0, 5, "Extrinsic"), (12, 15, "Extrinsic")]])
>>> st = typed_statistics(refs, preds, "strict")
>>> {k: int(v[0]) for k, v in st.items()}
{'correct': 0, 'incorrect': 2, 'partial': 0, 'missed': 0, 'spurious': 0}
>>> {k: int(v[0]) for k, v in typed_statistics(refs, preds, "exact").items()}
{'correct': 1, 'incorrect': 1, 'partial': 0, 'missed': 0, 'spurious': 0}
>>> {k: int(v[0]) for k, v in typed_statistics(refs, preds, "partial").items()}
{'correct': 1, 'incorrect': 0, 'partial': 1, 'missed': 0, 'spurious': 0}
>>> {k: int(v[0]) for k, v in typed_statistics(refs, preds, "type").items()}
{'correct': 1, 'incorrect': 1, 'partial': 0, 'missed': 0, 'spurious': 0}
>>> measures(typed_statistics(refs, preds, "partial"), "partial")
{'precision': 0.75, 'recall': 0.75, 'f1': 0.75}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .base import Metric, Param, Ratios, Stats, named

__all__ = ["SCHEMES", "STATISTICS", "TypedSpans", "typed_statistics", "ratios", "measures",
           "METRIC"]

#: The matching schemes, in SemEval-2013's order.
SCHEMES = ("strict", "exact", "partial", "type")
#: The five outcome counts per example.
STATISTICS = ("correct", "incorrect", "partial", "missed", "spurious")


@dataclass(frozen=True)
class TypedSpans:
    """One side of a batch of typed spans: example k owns spans ``offsets[k]:offsets[k+1]``
    of ``starts``, ``ends`` (int64, half-open) and ``types`` (an object array of the type
    values, compared with ``==``), in any order."""

    offsets: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    types: np.ndarray

    @property
    def n_examples(self) -> int:
        return int(self.offsets.size - 1)

    @classmethod
    def of(cls, examples: Iterable[Sequence[tuple[int, int, Any]]]) -> "TypedSpans":
        """From ``[[(start, end, type), ...], ...]``, one list per example.

        Examples
        --------
        >>> TypedSpans.of([[(0, 4, "A")], []]).offsets.tolist()
        [0, 1, 1]
        """
        offsets, starts, ends, types = [0], [], [], []
        for k, spans in enumerate(examples):
            for j, span in enumerate(spans):
                if len(span) != 3:
                    raise ValueError(f"Expected a (start, end, type) triple, got {span!r}, "
                                     f"at example {k}, span {j}; fix by giving each span "
                                     "its type.")
                starts.append(int(span[0]))
                ends.append(int(span[1]))
                types.append(span[2])
            offsets.append(len(starts))
        return cls(np.asarray(offsets, dtype=np.int64), np.asarray(starts, dtype=np.int64),
                   np.asarray(ends, dtype=np.int64), _objects(types))


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _canonical(side: TypedSpans, k: int) -> list[tuple[int, int, Any]]:
    """Example k's spans as a sorted set of ``(start, end, type)``, zero-length dropped.
    Types of mixed kinds sort by their kind's name first, so sorting never fails."""
    a, b = int(side.offsets[k]), int(side.offsets[k + 1])
    spans = {(int(s), int(e), t) for s, e, t in
             zip(side.starts[a:b], side.ends[a:b], side.types[a:b]) if e > s}
    return sorted(spans, key=lambda x: (x[0], x[1], type(x[2]).__name__, x[2]))


def _overlaps(ref, pred) -> bool:
    return ref[0] < pred[1] and pred[0] < ref[1]


def _match(refs: list, preds: list, scheme: str) -> tuple[int, int, int, int, int]:
    """The five counts of one example (the rule of the module docstring)."""
    taken = [False] * len(refs)
    hit: list = [None] * len(preds)  # per prediction: "correct", "other" or None
    if scheme != "type":
        # First identical spans: they overlap nothing else when each side is disjoint,
        # so this pass changes nothing there and keeps an identical pair whole otherwise.
        for j, (ps, pe, pt) in enumerate(preds):
            for i, (rs, re_, rt) in enumerate(refs):
                if not taken[i] and rs == ps and re_ == pe and (scheme != "strict"
                                                                or rt == pt):
                    taken[i], hit[j] = True, "correct"
                    break
    for j, pred in enumerate(preds):
        if hit[j] is not None:
            continue
        best, chosen, other = None, -1, -1
        for i, ref in enumerate(refs):
            if taken[i] or not _overlaps(ref, pred):
                continue
            if scheme == "type" and ref[2] == pred[2]:
                distance = abs(ref[0] - pred[0]) + abs(ref[1] - pred[1])
                if best is None or distance < best:
                    chosen, best = i, distance
            elif other < 0:
                other = i
        if chosen >= 0:
            taken[chosen], hit[j] = True, "correct"
        elif other >= 0:
            taken[other], hit[j] = True, "other"
    correct = hit.count("correct")
    matched = hit.count("other")
    missed = len(refs) - sum(taken)
    spurious = hit.count(None)
    if scheme == "partial":
        return correct, 0, matched, missed, spurious
    return correct, matched, 0, missed, spurious


def typed_statistics(refs: TypedSpans, preds: TypedSpans, scheme: str = "strict"
                     ) -> dict[str, np.ndarray]:
    """The five counts per example under ``scheme`` (see the module docstring).

    Parameters
    ----------
    refs, preds : TypedSpans
        The two sides, with the same number of examples.
    scheme : {"strict", "exact", "partial", "type"}

    Returns
    -------
    dict
        ``{statistic: int64 array over examples}`` for each of `STATISTICS`.

    Raises
    ------
    ValueError
        An unknown scheme, or sides of different sizes.

    Examples
    --------
    >>> refs = TypedSpans.of([[(0, 10, "U")], []])
    >>> preds = TypedSpans.of([[(2, 8, "U")], [(1, 3, "Q")]])
    >>> st = typed_statistics(refs, preds, "type")
    >>> st["correct"].tolist(), st["spurious"].tolist()
    ([1, 0], [0, 1])
    """
    if scheme not in SCHEMES:
        raise ValueError(f"Expected a scheme in {', '.join(map(repr, SCHEMES))}, got "
                         f"{scheme!r}, at params['typed_span']['scheme']; fix by passing "
                         "one of them.")
    if refs.n_examples != preds.n_examples:
        raise ValueError(f"Expected as many examples on both sides, got {refs.n_examples} "
                         f"references and {preds.n_examples} predictions; fix by giving "
                         "one span list per example on each side.")
    # One example at a time in Python: the greedy rule is sequential within an example
    # (which references are still free depends on the earlier predictions).
    out = np.zeros((len(STATISTICS), refs.n_examples), dtype=np.int64)
    for k in range(refs.n_examples):
        out[:, k] = _match(_canonical(refs, k), _canonical(preds, k), scheme)
    return dict(zip(STATISTICS, out))


def ratios(st: Stats, params: Mapping[str, Any]) -> Ratios:
    """Precision and recall as whole-number ratios: partial credit is half, so both sides
    are doubled (``partial`` is 0 outside the ``partial`` scheme)."""
    c, i, p = (np.asarray(st[k]) for k in ("correct", "incorrect", "partial"))
    m, s = np.asarray(st["missed"]), np.asarray(st["spurious"])
    num = 2 * c + p
    return {"precision": (num, 2 * (c + i + p + s)), "recall": (num, 2 * (c + i + p + m))}


def measures(st: Stats, scheme: str = "strict", *, average: str = "micro",
             zero_division: float = 0.0) -> dict[str, float]:
    """Precision, recall and F1 of per-example statistics, micro (of the summed counts)
    or macro (the mean of the per-example values); an undefined precision or recall
    (no span on its side) is ``zero_division``, and F1 is 0 when both are 0.

    Examples
    --------
    >>> st = {"correct": np.array([1, 0]), "incorrect": np.array([0, 0]),
    ...       "partial": np.array([0, 0]), "missed": np.array([1, 0]),
    ...       "spurious": np.array([0, 2])}
    >>> measures(st)
    {'precision': 0.3333333333333333, 'recall': 0.5, 'f1': 0.4}
    >>> measures(st, average="macro")
    {'precision': 0.5, 'recall': 0.25, 'f1': 0.3333333333333333}
    """
    if average not in ("micro", "macro"):
        raise ValueError(f"Expected average 'micro' or 'macro', got {average!r}; fix by "
                         "passing one of them.")
    if average == "micro":
        st = {k: np.asarray([int(np.asarray(v).sum())]) for k, v in st.items()}
    r = ratios(st, {"scheme": scheme})
    p, rc = (_divide(*r[k], zero_division) for k in ("precision", "recall"))
    total = p + rc
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(total > 0, 2 * p * rc / np.where(total > 0, total, 1), 0.0)
    f1 = np.where(np.isnan(total), np.nan, f1)
    return {"precision": float(np.mean(p)), "recall": float(np.mean(rc)),
            "f1": float(np.mean(f1))}


def _divide(num, den, zero_division: float) -> np.ndarray:
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.full(num.shape, float(zero_division)), where=den > 0)


def _no_types(ws, params) -> dict[str, np.ndarray]:
    raise ValueError("Expected typed spans for typed_span, got untyped span arrays; fix by "
                     "scoring with mycelium.evaluate(..., metrics=['typed_span'], "
                     "type_field=...) (references and predictions carrying the field).")


#: The metric's definition: its statistics, measures, ratios and parameter. Its
#: statistics need each span's type, which the untyped `Workspace` does not carry, so it
#: is not listed in `METRICS` (nor in the default set) but in `TYPED_METRICS`:
#: `mycelium.evaluate` computes them with ``type_field=``
#: (`mycelium.views.typology.typed_span_for`), and aggregates them like any metric's.
METRIC = Metric(
    name="typed_span",
    statistics=STATISTICS,
    counts=STATISTICS,
    measures=("precision", "recall", "f1"),
    compute=_no_types,
    ratios=ratios,
    params=(Param("scheme", "strict", named, "a typed matching scheme", choices=SCHEMES),),
    summary="Typed span precision, recall and F1 (SemEval-2013 / nervaluate schemes)",
)
