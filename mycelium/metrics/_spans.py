"""What the kernels read of one side of a batch: the arrays of a canonical span batch.

The kernels sit below the core and never import it: `mycelium.core.spans.SpanBatch` is
the one type that satisfies `SpanArrays` (a structural type, so the arrow between the two
layers points from the core down to the kernels only).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = ["SpanArrays"]


class SpanArrays(Protocol):
    """One side of a batch: example k owns spans ``offsets[k]:offsets[k+1]`` of the int64
    arrays ``starts`` and ``ends`` (half-open code-point offsets); ``canonical`` once each
    example's spans are validated, sorted by ``(start, end)`` and without duplicates."""

    @property
    def offsets(self) -> np.ndarray: ...

    @property
    def starts(self) -> np.ndarray: ...

    @property
    def ends(self) -> np.ndarray: ...

    @property
    def canonical(self) -> bool: ...

    def __init__(self, offsets: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 canonical: bool = False) -> None: ...

    @property
    def n_examples(self) -> int: ...

    @property
    def n_spans(self) -> int: ...

    @property
    def counts(self) -> np.ndarray: ...

    @property
    def example_ids(self) -> np.ndarray: ...

    @property
    def lengths(self) -> np.ndarray: ...

    @property
    def weights(self) -> np.ndarray:
        """How many times each span was listed before duplicates collapsed (ones when
        each was listed once): what ``character`` with ``overlaps="pairwise"`` counts."""
        ...

    def take(self, keep: np.ndarray) -> "SpanArrays":
        """The examples selected by the boolean mask ``keep``, in order."""
        ...
