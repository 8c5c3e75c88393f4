"""Shared constants of the study tests (imported by conftest and the test modules)."""

from __future__ import annotations

MUSHROOM_ENV = "MYCELIUM_MUSHROOM_DIR"
#: EN has the span past the end of its text and items without hard labels; every FI
#: item has reference spans (so pinpoint's Span Coverage F1 is exactly 1 there).
LANGUAGES = ["EN", "FI"]


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
