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


def chars(spans):
    """The character set of span pairs."""
    return {i for s, e in spans for i in range(s, e)}


def as_spans(chars_):
    """Sorted characters as merged ``[start, end]`` spans."""
    out = []
    for i in sorted(chars_):
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


def loo_majority(anns: dict, a) -> list:
    """The characters more than half of the annotators other than ``a`` marked."""
    others = [b for b in anns if b != a]
    votes: dict[int, int] = {}
    for b in others:
        for i in chars(anns[b]):
            votes[i] = votes.get(i, 0) + 1
    return as_spans({i for i, v in votes.items() if v > len(others) / 2})
