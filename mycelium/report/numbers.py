"""The few numbers shown beside a row of spans, and how they are written."""

from __future__ import annotations

import math

__all__ = ["headline", "fmt"]


def headline(values: dict | None) -> list[tuple[str, float]]:
    """The few numbers shown beside a row: a score, else F1, per metric."""
    out = []
    for metric, measures in (values or {}).items():
        if not isinstance(measures, dict):
            continue
        key = "score" if "score" in measures else "f1" if "f1" in measures else None
        if key is not None:
            label = metric if key == "score" else f"{metric} f1"
            out.append((label, float(measures[key])))
    return out


def fmt(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.3f}"
