"""What a view shows, as plain data: the examples (`ExampleView`), a note and the
reference types of a view (`ViewData`). The renderers (``render`` for HTML, ``text`` for
terminals) read it; `mycelium.report.view.SpanView` adds the rendering methods on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .segments import Span

__all__ = ["ExampleView", "ViewData", "DEFAULT_METRICS", "SCORE_METRICS", "types_of"]

#: Metrics shown beside each prediction row by default (per example, as `mycelium.evaluate`).
DEFAULT_METRICS = ("iou", "character", "exact_span")
#: Threshold-free metrics of one example, shown beside the scores row when scores are given
#: (by default both; name them in ``metrics`` to choose).
SCORE_METRICS = ("char_auroc", "char_ap")


@dataclass(frozen=True)
class ExampleView:
    """One example as shown: its text, references, named prediction rows, the row's
    per-example metric values (``{metric: {measure: value}}``), and the character scores
    as pieces ``(start, end, score)`` of non-zero score (``soft``; ``score_name`` says
    ``prob`` or ``score``) with their threshold-free metric values."""

    text: str
    references: list[Span]
    rows: list[tuple[str, list[Span]]]
    metrics: list[dict | None]
    soft: list[tuple[int, int, float]] | None = None
    title: str = ""
    score_metrics: dict | None = None
    score_name: str = "prob"


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
