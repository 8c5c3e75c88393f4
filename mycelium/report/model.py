"""What a view shows, as plain data: the examples (`ExampleView`), a note and the
reference types of a view (`ViewData`). The renderers (``render`` for HTML, ``text`` for
terminals) read it; `mycelium.report.view.SpanView` adds the rendering methods on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..metrics import REGISTRY, names
from .segments import Span

__all__ = ["ExampleView", "ViewData", "DEFAULT_METRICS", "SCORE_METRICS", "types_of",
           "type_counts", "said_counts", "surprises", "MAX_LEGEND_TYPES"]

#: Metrics shown beside each prediction row by default (per example, as `mycelium.evaluate`).
DEFAULT_METRICS = ("iou", "character", "exact_span")
#: Threshold-free metrics of one example, shown beside the scores row when scores are given
#: (by default both; name them in ``metrics`` to choose).
#: Types a legend lists (HTML and terminal); one line sums the rest, so a view of data
#: with thousands of types stays small.
MAX_LEGEND_TYPES = 52
SCORE_METRICS = tuple(n for n in names("score") if REGISTRY[n].metric.UNIT == "char")


@dataclass(frozen=True)
class ExampleView:
    """One example as shown: its text, references, named prediction rows, the row's
    per-example metric values (``{metric: {measure: value}}``), and the character scores
    as pieces ``(start, end, score)`` of non-zero score (``soft``; ``score_name`` says
    ``prob`` or ``score``) with their threshold-free metric values; ``context`` (the
    question, source or prompt behind the text, shown collapsed above it) and ``notes``
    (why a value may surprise, shown under the rows)."""

    text: str
    references: list[Span]
    rows: list[tuple[str, list[Span]]]
    metrics: list[dict | None]
    soft: list[tuple[int, int, float]] | None = None
    title: str = ""
    score_metrics: dict | None = None
    score_name: str = "prob"
    context: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ViewData:
    """Examples to look at, a note above them and the reference types (in first-seen
    order) that colour their spans."""

    examples: list[ExampleView]
    note: str = ""
    types: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.examples)


def types_of(examples: list[ExampleView]) -> list[str]:
    """The span labels of the examples, references and predictions, in first-seen order."""
    seen: dict[str, None] = {}
    for ex in examples:
        for span in ex.references + [s for _, row in ex.rows for s in row]:
            if span.label is not None:
                seen.setdefault(span.label)
    return list(seen)


def type_counts(view: ViewData) -> dict[str, tuple[int, int]]:
    """Per type of ``view.types``, its reference spans and its predicted spans (every
    prediction row's) in the view's examples, whole (a page may draw only part of a long
    example; the legend counts all of it)."""
    counts = {t: [0, 0] for t in view.types}
    for ex in view.examples:
        for side, spans in [(0, ex.references)] + [(1, row) for _, row in ex.rows]:
            for span in spans:
                if span.label in counts:
                    counts[span.label][side] += 1
    return {t: (r, p) for t, (r, p) in counts.items()}


def said_counts(n_ref: int, n_pred: int) -> str:
    """``3 reference, 1 predicted``: a type's spans, as the legends write them."""
    return f"{n_ref:,} reference, {n_pred:,} predicted"


def _shown_value(values: dict | None, metric: str, measure: str) -> float | None:
    measures = (values or {}).get(metric)
    return float(measures[measure]) if isinstance(measures, dict) and measure in measures \
        else None


def surprises(references: list[Span], rows: list[tuple[str, list[Span]]],
              metrics: list[dict | None]) -> tuple[str, ...]:
    """Why a row's values may surprise: with no reference and no predicted span, IoU is
    1.0 (the official Mu-SHROOM rule) while precision, recall and F1 are 0/0, written as
    the ``zero_division`` value."""
    out = []
    for (name, preds), values in zip(rows, metrics):
        if references or preds or not values:
            continue
        iou = _shown_value(values, "iou", "score")
        f1s = [(m, _shown_value(values, m, "f1")) for m in values]
        f1s = [(m, v) for m, v in f1s if v is not None]
        said = []
        if iou is not None:
            said.append(f"iou is {iou:g} (the official Mu-SHROOM rule for an example "
                        "empty on both sides)")
        if f1s:
            said.append(f"{', '.join(m for m, _ in f1s)} precision, recall and f1 are 0/0, "
                        f"written as {f1s[0][1]:g} (zero_division)")
        if said:
            out.append(f"{name}: no reference and no predicted span, so " + "; ".join(said))
    return tuple(out)
