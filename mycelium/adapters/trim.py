"""Boundary normalisation before scoring (``evaluate(trim_spans=...)``): whitespace, or
whitespace and punctuation, stripped from both ends of every span of both sides."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from ..core.pipeline import Prepared, kept_texts
from ..core.settings import TRIM_SPANS
from ..core.spans import SpanBatch, canonicalize

__all__ = ["TRIM_SPANS", "trim_prepared", "trim_batch"]

class _Strippable(dict):
    """``ord(c) -> bool`` for one mode, filled on first sight of each character."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.punct = mode == "punctuation"

    def __missing__(self, code: int) -> bool:
        ch = chr(code)
        value = (ch.isspace() and not 0x1C <= code <= 0x1F) or (
            self.punct and unicodedata.category(ch)[0] == "P")
        self[code] = value
        return value


def trim_batch(batch: SpanBatch, texts: list[str], mode: str) -> SpanBatch:
    """Each span of ``batch`` without the strippable characters at its two ends; a span
    of nothing else becomes zero-length (and is dropped by `canonicalize`)."""
    strip = _Strippable(mode)
    starts, ends = batch.starts.copy(), batch.ends.copy()
    offsets = batch.offsets.tolist()
    for k, text in enumerate(texts):
        for j in range(offsets[k], offsets[k + 1]):
            s, e = int(starts[j]), int(ends[j])
            while s < e and strip[ord(text[s])]:
                s += 1
            while e > s and strip[ord(text[e - 1])]:
                e -= 1
            starts[j], ends[j] = s, e
    return canonicalize(SpanBatch(batch.offsets, starts, ends))


def trim_prepared(prepared: Prepared, text, mode: str) -> Prepared:
    """Both sides of a prepared batch trimmed under ``mode`` (every kept example needs
    its text)."""
    texts = kept_texts(prepared, text, f"trim_spans={mode!r} needs the text of every "
                       "example to see the characters at span edges")
    return replace(prepared, refs=trim_batch(prepared.refs, texts, mode),
                   preds=trim_batch(prepared.preds, texts, mode))
