"""The per-example statistics pipeline every face runs: both sides converted, checked
and made canonical (`prepare`), then each metric's sufficient statistics over one shared
workspace (`compute_statistics`).

inputs (`mycelium.core.inputs`) → validated canonical `SpanBatch` per side
(`mycelium.core.spans`) → ``{metric: {statistic: per-example array}}`` → aggregation
(`mycelium.core.aggregate`). Other units (words, sentences) are applied on top of a
prepared batch by `mycelium.views.granularity`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import SpanValidationError
from ..metrics import METRICS, Workspace
from .columns import text_lengths
from .inputs import Side, convert, zero_batch
from .spans import (SpanBatch, canonicalize, empty_span_counts, inclusive_to_half_open,
                    validate)

__all__ = ["Prepared", "prepare", "compute_statistics", "soft_given", "kept_texts",
           "PAIR_METRICS", "OFFSETS", "Told", "empty_spans_told", "warn_empty_spans"]

#: How span offsets are read (SPEC section 2): ``"half-open"`` ``[start, end)``, the
#: default, or ``"inclusive"`` ``[start, end]``, read as ``[start, end + 1)``.
OFFSETS = ("half-open", "inclusive")

#: Metrics that enumerate every overlapping span pair (the others can reuse them).
PAIR_METRICS = ("deteval_1d", "cleval_1d")


class EmptyAt(NamedTuple):
    """Where a zero-length span is, in the user's terms: the side, the example's input
    position, the span's index in it and the span as written (an inclusive end when the
    call read inclusive offsets). Printed as ``references example 3, span 0: [7, 7]``."""

    side: str
    example: int
    span: int
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.side} example {self.example}, span {self.span}: [{self.start}, {self.end}]"


@dataclass(frozen=True)
class Prepared:
    """Both sides of a batch, validated and canonical, with the examples kept."""

    refs: SpanBatch
    preds: SpanBatch
    kept: np.ndarray          # bool per input example
    single: bool
    text_lengths: np.ndarray | None  # per kept example, -1 when unknown
    #: spans listed per kept example on each side *before* zero-length spans and
    #: duplicates were dropped (``response_level`` with ``positive_min_length=0``
    #: reads them); None means the canonical counts.
    listed: tuple[np.ndarray, np.ndarray] | None = None
    #: zero-length spans listed by the kept examples: (references, predictions)
    empty_spans: tuple[int, int] = (0, 0)
    #: where the first of them is (printed ``"references example 3, span 0: [7, 7]"``),
    #: or None
    first_empty: EmptyAt | None = None

    @property
    def n_input(self) -> int:
        return self.kept.size


def prepare(references, predictions, *, text=None, missing="error", offsets="half-open",
            warn_empty: bool = True) -> Prepared:
    """Convert, check and canonicalise both sides (SPEC sections 2, 3 and 8).

    The examples left out by ``missing="drop"`` are recorded in ``kept``; the text
    lengths (when a text is given) are those of the kept examples. ``offsets="inclusive"``
    reads every ``[s, e]`` as ``[s, e + 1)`` before anything is checked. Zero-length
    spans of the kept examples are counted in ``empty_spans`` and, with ``warn_empty``,
    told by one `mycelium.EmptySpanWarning` (faces that prepare a call in several parts
    pass False and warn once themselves, `warn_empty_spans`).
    """
    check_offsets(offsets)
    ref = convert(zero_batch(references, text), "references")
    pred = convert(zero_batch(predictions, text), "predictions")
    _same_form(ref, pred)
    n = ref.batch.n_examples
    lengths = text_lengths(text, single=ref.single, n_examples=n)
    kept = _apply_missing(ref, pred, missing)
    refs, preds = ref.batch, pred.batch
    if offsets == "inclusive":
        refs = inclusive_to_half_open(refs, "references")
        preds = inclusive_to_half_open(preds, "predictions")
    validate(refs, "references", lengths)
    validate(preds, "predictions", lengths)
    if not kept.all():
        refs, preds = refs.take(kept), preds.take(kept)
        lengths = None if lengths is None else lengths[kept]
    empty, first = _empty_spans(refs, preds, kept, offsets)
    if warn_empty and first is not None:
        warn_empty_spans(empty, first)
    return Prepared(canonicalize(refs), canonicalize(preds), kept, ref.single, lengths,
                    listed=(refs.counts, preds.counts), empty_spans=empty,
                    first_empty=first)


def check_offsets(offsets) -> None:
    """Raise ValueError unless ``offsets`` is one of `OFFSETS`."""
    if offsets not in OFFSETS:
        raise ValueError(f"Expected offsets='half-open' or 'inclusive', got {offsets!r}; "
                         "fix by passing 'inclusive' for data whose spans include their "
                         "end character ([s, e] read as [s, e + 1)), else leave the default "
                         "'half-open'.")


def _empty_spans(refs: SpanBatch, preds: SpanBatch, kept: np.ndarray, offsets: str
                 ) -> tuple[tuple[int, int], EmptyAt | None]:
    """The zero-length spans of each side and where the first is, in the user's terms
    (input example position, span index, the span as written)."""
    counts, first = [], None
    positions = np.flatnonzero(kept)
    for batch, side in ((refs, "references"), (preds, "predictions")):
        n, i = empty_span_counts(batch)
        counts.append(n)
        if first is None and i is not None:
            k = int(np.searchsorted(batch.offsets, i, side="right") - 1)
            start, end = int(batch.starts[i]), int(batch.ends[i])
            written = end - 1 if offsets == "inclusive" else end  # never: e + 1 > s
            first = EmptyAt(side, int(positions[k]), i - int(batch.offsets[k]), start,
                            written)
    return (counts[0], counts[1]), first


@dataclass
class Told:
    """The zero-length spans told inside an `empty_spans_told` block: how many per side,
    and where the first one is. A ``hold`` block keeps the warnings of its parts
    (`warn_empty_spans`) for its face to tell once (`Told.tell`)."""

    hold: bool = False
    #: the block this one is inside: its counts include this one's when it closes
    outer: Told | None = None
    #: what each part told, in order: (references, predictions, first)
    parts: list = field(default_factory=list)

    @property
    def references(self) -> int:
        return sum(p[0] for p in self.parts)

    @property
    def predictions(self) -> int:
        return sum(p[1] for p in self.parts)

    @property
    def first(self) -> EmptyAt | str | None:
        """Where the first part's first zero-length span is (None before any part)."""
        return self.parts[0][2] if self.parts else None

    @property
    def holding(self) -> bool:
        """Whether a warning told here is held: this block or one around it holds."""
        return self.hold or (self.outer is not None and self.outer.holding)

    def add(self, counts: tuple[int, int], first: EmptyAt | str | None) -> None:
        self.parts.append((int(counts[0]), int(counts[1]), first))

    @property
    def counts(self) -> dict[str, int]:
        """``{"references": n, "predictions": m}``, as ``meta["empty_spans"]``."""
        return {"references": self.references, "predictions": self.predictions}

    def tell(self, first: EmptyAt | str | None = None, within: tuple[str, ...] = (), *,
             parts: str = "sum") -> None:
        """The one warning of a ``hold`` block's face, if its parts told any, the first
        span at ``first`` (default: the first its parts named). ``parts`` says how the
        parts' counts make the call's: ``"sum"`` (parts of disjoint rows: groups,
        batches), ``"detectors"`` (several detectors' predictions against the same
        references: the references once, every detector's predictions), ``"first"``
        (the same spans read again: the first part's) or ``"references"`` (the
        references alone: no predictions were given, the references stood in)."""
        if not self.parts:
            return
        if parts == "sum":
            counts = (self.references, self.predictions)
        elif parts == "detectors":
            counts = (max(p[0] for p in self.parts), sum(p[1] for p in self.parts))
        elif parts == "first":
            counts = self.parts[0][:2]
        elif parts == "references":
            counts = (max(p[0] for p in self.parts), 0)
        else:
            raise ValueError(f"internal: parts={parts!r}")
        if first is None:
            first = self.first if self.first is not None else "an unknown place"
        if counts[0] or counts[1]:
            warn_empty_spans(counts, first, within)


#: The zero-length spans told so far in the face call being made (`empty_spans_told`).
_TOLD: ContextVar[Told | None] = ContextVar("mycelium_empty_spans", default=None)


@contextmanager
def empty_spans_told(hold: bool = False) -> Iterator[Told]:
    """The zero-length spans told inside the block (`Told`), by every `warn_empty_spans`
    of the block, whether the warning is shown, ignored or raised. A frame face has no
    ``meta`` and keeps these counts beside its signature instead (pandas
    ``attrs["mycelium_empty_spans"]``, `mycelium.frames.told`). With ``hold``, the
    warnings are counted but not raised: a face made of several calls (one per group or
    detector) tells them once, with ``Told.tell``.

    Examples
    --------
    >>> import warnings, mycelium
    >>> with empty_spans_told() as told, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _ = mycelium.evaluate([[[7, 7]], [[1, 3]]], [[[8, 8]], [[1, 2], [5, 5]]])
    >>> told.counts, str(told.first)
    ({'references': 1, 'predictions': 2}, 'references example 0, span 0: [7, 7]')
    """
    told = Told(hold=hold, outer=_TOLD.get())
    token = _TOLD.set(told)
    try:
        yield told
    finally:
        _TOLD.reset(token)
    # what a block told counts in the blocks around it (a held one, once it tells it)
    if told.outer is not None and not hold and (told.references or told.predictions):
        told.outer.add((told.references, told.predictions), told.first)


def warn_empty_spans(counts: tuple[int, int], first: EmptyAt | str,
                     within: tuple[str, ...] = ()) -> None:
    """One `mycelium.EmptySpanWarning`, pointing at the user's line (past the frames of
    the packages ``within``: `mycelium.core.aggregate.outside_mycelium`); its counts
    are added to the open `empty_spans_told` block, if any."""
    import warnings

    from ..errors import EmptySpanWarning
    from .aggregate import outside_mycelium

    told = _TOLD.get()
    if told is not None:
        told.add(counts, first)
        if told.holding:
            return

    warnings.warn(EmptySpanWarning(counts[0], counts[1], str(first)),
                  stacklevel=outside_mycelium(within))


def _same_form(ref: Side, pred: Side) -> None:
    if ref.single != pred.single:
        forms = {True: "one example (a list of spans)", False: "a batch (a list of span lists)"}
        raise ValueError(
            f"references are {forms[ref.single]} but predictions are {forms[pred.single]}; "
            "pass both sides in the same form (wrap a single example as [spans] to make it "
            "a batch of one).")
    nr, np_ = ref.batch.n_examples, pred.batch.n_examples
    if nr != np_:
        raise ValueError(f"references have {nr} examples but predictions have {np_}; both "
                         "sides must have one span set per example, in the same order.")


def _apply_missing(ref: Side, pred: Side, missing: str) -> np.ndarray:
    """Examples kept under the ``missing`` policy; raise for nulls under ``"error"``."""
    if missing == "error":
        for side, name in ((ref, "references"), (pred, "predictions")):
            if side.nulls.any():
                k = int(np.flatnonzero(side.nulls)[0])
                raise SpanValidationError(
                    f"{name} example {k} is null (None/NaN) instead of a span list; pass "
                    "missing='empty' to score it as an example without spans, or "
                    "missing='drop' to leave it out (it is then counted in "
                    "meta['dropped']).", side=name, example=k,
                    problem="is null (None/NaN) instead of a span list", fix="missing")
    if missing == "drop":
        return ~(ref.nulls | pred.nulls)
    return np.ones(ref.batch.n_examples, dtype=bool)


#: Examples whose statistics are computed together: the kernels' arrays of a block (a few
#: tens of thousands of spans and pairs) stay in cache, where the same passes over the
#: millions of a large batch cost more per value; statistics are per example, so the
#: blocks' arrays joined are the whole batch's, value for value.
STATISTICS_BLOCK = 1 << 14


def compute_statistics(refs: SpanBatch, preds: SpanBatch, metrics, params
                       ) -> dict[str, dict[str, np.ndarray]]:
    """Per-example statistics of each span metric, over one shared `Workspace` per block
    of `STATISTICS_BLOCK` examples."""
    n, block = refs.n_examples, STATISTICS_BLOCK
    if n <= block:
        return _statistics(refs, preds, metrics, params)
    parts = [_statistics(refs.rows(a, min(n, a + block)), preds.rows(a, min(n, a + block)),
                         metrics, params) for a in range(0, n, block)]
    return {m: {k: np.concatenate([p[m][k] for p in parts]) for k in parts[0][m]}
            for m in parts[0]}


def _statistics(refs: SpanBatch, preds: SpanBatch, metrics, params):
    ws = Workspace(refs, preds, share_pairs=any(m in PAIR_METRICS for m in metrics))
    return {m: METRICS[m].compute(ws, params.get(m, {})) for m in metrics if m in METRICS}


def soft_given(soft_references, soft_predictions) -> bool:
    if (soft_references is None) != (soft_predictions is None):
        given = "soft_references" if soft_references is not None else "soft_predictions"
        raise ValueError(f"{given} was given alone; soft_spearman needs both "
                         "soft_references and soft_predictions.")
    return soft_references is not None


def kept_texts(prepared: Prepared, text, need: str) -> list[str]:
    """The texts of the examples ``prepared`` kept, for an option that reads them;
    ``need`` says which and why (``"granularity='word' needs ..."``, for the messages).

    Raises
    ------
    ValueError
        No text was given.
    SpanValidationError
        A kept example's text is not a str (at its input position, ``fix="text"``).
    """
    from .inputs import text_values

    if text is None:
        raise ValueError(f"{need}; pass text=...")
    values = text_values(text, single=prepared.single)
    for k in np.flatnonzero(prepared.kept).tolist():
        if not isinstance(values[k], str):
            problem = f"is {values[k]!r}, not a str; {need}"
            raise SpanValidationError(f"text example {k}: {problem}; fix by giving that "
                                      "example a str in text=.", side="text", example=k,
                                      problem=problem + ".", fix="text")
    return [t for t, kept in zip(values, prepared.kept) if kept]
