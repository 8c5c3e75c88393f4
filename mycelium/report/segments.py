"""Runs of text that share one style: span boundaries snapped to whole user-perceived
characters (grapheme clusters), and which spans cover each run.

A span boundary can fall inside a grapheme cluster (between a letter and its combining
accent, inside an emoji ZWJ sequence or a flag). A styled run that splits a cluster
draws a detached accent or two half-emoji, so every boundary inside a cluster is moved
forward to the cluster's end: **a cluster takes the style of its first code point**.
The offsets themselves are never changed; the views show them in tooltips.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["Span", "Run", "cluster_boundary", "runs", "parse_spans"]

ZWJ = "\u200d"


@dataclass(frozen=True)
class Span:
    """One span as shown: half-open code-point offsets and its type (``label_type``, or
    the field a view was given)."""

    start: int
    end: int
    label: str | None = None


@dataclass(frozen=True)
class Run:
    """Code points ``[start, end)`` of the text and the indices of the spans covering
    each side's first code point of the run."""

    start: int
    end: int
    covers: tuple[tuple[int, ...], ...]


def _extends(ch: str) -> bool:
    """Joins the previous code point into one cluster (Unicode's Extend, SpacingMark,
    ZWJ; variation selectors, emoji modifiers and tags)."""
    cp = ord(ch)
    if ch == ZWJ or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
        return True
    if 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F:
        return True
    return unicodedata.category(ch) in ("Mn", "Me", "Mc")


def _pictographic(ch: str) -> bool:
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or unicodedata.category(ch) == "So"


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _hangul_joins(before: str, ch: str) -> bool:
    """Conjoining jamo: a vowel or final consonant continues the syllable before it."""
    cp, prev = ord(ch), ord(before)
    medial_or_final = 0x1160 <= cp <= 0x11FF or 0xD7B0 <= cp <= 0xD7FF
    hangul = 0x1100 <= prev <= 0x11FF or 0xAC00 <= prev <= 0xD7A3 or 0xD7B0 <= prev <= 0xD7FF
    return medial_or_final and hangul


def _inside(text: str, i: int) -> bool:
    """Whether position ``i`` (0 < i < len(text)) lies inside a grapheme cluster."""
    before, ch = text[i - 1], text[i]
    if before == "\r" and ch == "\n":
        return True
    if _extends(ch) or _hangul_joins(before, ch):
        return True
    if before == ZWJ and _pictographic(ch):
        return True
    if _regional(before) and _regional(ch):
        k = i - 1  # a flag is a pair: break after an even run of regional indicators
        while k > 0 and _regional(text[k - 1]):
            k -= 1
        return (i - k) % 2 == 1
    return False


def cluster_boundary(text: str, i: int) -> int:
    """``i`` clipped to ``[0, len(text)]`` and moved forward out of any grapheme cluster.

    Examples
    --------
    >>> cluster_boundary("cafe\\u0301!", 4)  # between 'e' and its combining acute
    5
    >>> cluster_boundary("a\\U0001F469\\u200d\\U0001F4BBb", 2)  # inside a ZWJ sequence
    4
    """
    n = len(text)
    i = min(max(int(i), 0), n)
    while 0 < i < n and _inside(text, i):
        i += 1
    return i


def runs(text: str, sides: Sequence[Sequence[Span]]) -> list[Run]:
    """The text cut at every (snapped) span boundary of every side, each run with the
    indices of each side's spans covering it. Cost: spans x runs, not characters."""
    n = len(text)
    snapped = [[(cluster_boundary(text, s.start), cluster_boundary(text, s.end))
                for s in side] for side in sides]
    cuts = sorted({0, n} | {b for side in snapped for pair in side for b in pair})
    bounds = np.asarray(cuts, dtype=np.int64)
    covers: list[list[list[int]]] = [[[] for _ in range(len(cuts) - 1)] for _ in sides]
    for k, side in enumerate(snapped):
        for j, (s, e) in enumerate(side):
            lo, hi = np.searchsorted(bounds, [s, e])
            for r in range(int(lo), int(hi)):
                covers[k][r].append(j)
    return [Run(cuts[r], cuts[r + 1], tuple(tuple(c[r]) for c in covers))
            for r in range(len(cuts) - 1)]


def parse_spans(obj, type_field: str = "label_type") -> list[Span]:
    """One example's spans (pairs, ``{start, end[, <type_field>]}`` dicts, JSON, Arrow or
    numpy values; already validated) as `Span` values in canonical order, duplicates
    collapsed (a span set, SPEC section 2); a span's type is read from ``type_field``."""
    if obj is None:
        return []
    if isinstance(obj, str):
        import json

        obj = json.loads(obj)
    if hasattr(obj, "tolist"):
        obj = obj.tolist()
    out = set()
    for span in obj:
        if isinstance(span, dict):
            label = span.get(type_field)
            out.add(Span(int(span["start"]), int(span["end"]),
                         None if label is None else str(label)))
        else:
            out.add(Span(int(span[0]), int(span[1])))
    return sorted(out, key=lambda s: (s.start, s.end, s.label or ""))
