"""The exceptions mycelium raises for bad data (bad types and bad options use the built-ins)."""

from __future__ import annotations

__all__ = ["MyceliumError", "SpanValidationError"]


class MyceliumError(Exception):
    """Base class of every error that is specific to mycelium."""


class SpanValidationError(MyceliumError, ValueError):
    """A span, a span set or a text does not satisfy the span contract.

    The message says what was expected, what was got, where (side, example index,
    span index) and how to fix it. The same facts are kept as attributes so that
    callers can react programmatically.

    Attributes
    ----------
    side : str or None
        ``"references"``, ``"predictions"`` or ``"text"``.
    example : int or None
        Position of the example in the batch (0 for a single example).
    span : int or None
        Position of the span inside the example's span list, as given.
    """

    def __init__(self, message: str, *, side: str | None = None,
                 example: int | None = None, span: int | None = None) -> None:
        super().__init__(message)
        self.side = side
        self.example = example
        self.span = span
