"""Units of annotation: score spans over words or sentences instead of characters.

With ``granularity="word"`` or ``"sentence"`` every span is mapped to the units it
touches — a unit counts as marked if any of its characters is inside the span — and
every metric is computed over unit indices instead of character offsets (a span over
units 3..5 becomes ``[3, 6)``). A span touching no unit (only spaces, say) marks
nothing. ``"char"`` (the default) leaves spans unchanged.

Units, precisely
    word
        A maximal run of word characters: Unicode letters (L*), marks (M*, so Hindi
        vowel signs and Arabic diacritics stay inside their word), numbers (N*) and
        connector punctuation such as ``_``. Scripts written without spaces have no
        word boundaries in the text, so each of their characters is one word: Han
        (Chinese characters), Hiragana, Katakana (also half-width), Thai, Lao, Khmer,
        Myanmar and Tibetan — together with the combining marks that follow them (Thai
        tone marks, kana voicing marks, variation selectors). Punctuation, symbols and
        spaces belong to no word.
    sentence
        Text between sentence boundaries, with surrounding whitespace trimmed. A
        boundary follows a run of ``. ! ? … ؟ ।`` (with any closing quotes or brackets)
        when whitespace or the end of the text comes next, follows any run of the
        full-width ``。 ！ ？`` (no space needed: Chinese and Japanese), and every line
        break ends a sentence. There is no abbreviation list: ``"Dr. Smith"`` is two
        sentences.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

import numpy as np

from ..core.pipeline import Prepared, kept_texts
from ..core.settings import GRANULARITIES
from ..core.spans import SpanBatch, canonicalize
from ..metrics import intervals as iv

__all__ = ["GRANULARITIES", "unit_bounds", "to_units", "at_granularity"]


_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA", "THAI", "LAO", "KHMER",
             "MYANMAR", "TIBETAN")


class _WordClasses(dict):
    """str.translate table: 'w' word character, 'c' a one-character word (unspaced
    scripts), 'm' a combining mark (joins the character before it), 'o' other."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        cat = unicodedata.category(ch)
        if cat[0] == "M":
            cls = "m"
        elif cat[0] in "LN" or cat == "Pc":
            name = unicodedata.name(ch, "")
            cls = "c" if cat[0] == "L" and name.startswith(_UNSPACED) else "w"
        else:
            cls = "o"
        self[code] = cls
        return cls


_CLASSES = _WordClasses()
# An unspaced-script character with its marks is one word; marks elsewhere stay inside
# the word they follow (or start one).
_WORD = re.compile(r"cm*|[wm]+")
_CLOSERS = "\"'”’“‘)\\]»«」』）"
_SENTENCE_END = re.compile(
    rf"[.!?…؟।]+[{_CLOSERS}]*(?=\s|$)|[。！？]+[{_CLOSERS}]*|\n")


def unit_bounds(text: str, granularity: str) -> tuple[list[int], list[int]]:
    """Start and end offsets of the units of ``text``, in order.

    Parameters
    ----------
    text : str
        One output text.
    granularity : {"word", "sentence"}
        Words: runs of letters, digits and connector punctuation with their combining
        marks, and each character of an unspaced script (CJK, Thai, ...) alone.
        Sentences: text up to a sentence end (``. ! ? …`` followed by space or the end,
        ``。！？``, a newline, with closing quotes), surrounding space stripped.

    Returns
    -------
    tuple of list of int
        ``(starts, ends)``: half-open code-point offsets of each unit.

    Raises
    ------
    ValueError
        Any other granularity.

    Examples
    --------
    >>> unit_bounds("Hi, Ann! 中文。OK", "word")
    ([0, 4, 9, 10, 12], [2, 7, 10, 11, 14])
    >>> unit_bounds("One. Two?  三。四", "sentence")
    ([0, 5, 11, 13], [4, 9, 13, 14])
    """
    if granularity == "word":
        classes = text.translate(_CLASSES)
        found = [m.span() for m in _WORD.finditer(classes)]
    elif granularity == "sentence":
        found, start = [], 0
        for m in _SENTENCE_END.finditer(text):
            found.append((start, m.end()))
            start = m.end()
        found.append((start, len(text)))
        found = [_strip(text, s, e) for s, e in found]
        found = [(s, e) for s, e in found if s < e]
    else:
        raise ValueError(f"granularity={granularity!r}; expected one of {GRANULARITIES}.")
    return [s for s, _ in found], [e for _, e in found]


def _strip(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def to_units(batch: SpanBatch, texts: list[str], granularity: str
             ) -> tuple[SpanBatch, np.ndarray]:
    """Map character spans to unit-index spans; also return the unit count per example.

    A span marks every unit it overlaps by at least one character; a span touching no
    unit (only spaces or punctuation) and a zero-length span become empty.

    Parameters
    ----------
    batch : SpanBatch
        Character spans, one span set per text.
    texts : list of str
        The text of each example of ``batch``.
    granularity : {"word", "sentence"}
        The unit (`unit_bounds`).

    Returns
    -------
    tuple
        The `mycelium.core.spans.SpanBatch` of unit-index spans ``[first, last + 1)``
        and an int64 array of the number of units per example.

    Examples
    --------
    >>> import numpy as np
    >>> from mycelium.core.spans import SpanBatch
    >>> chars = SpanBatch(np.array([0, 1]), np.array([2]), np.array([6]))  # ", An"
    >>> units, counts = to_units(chars, ["Hi, Ann! Bye"], "word")
    >>> units.to_lists(), counts.tolist()
    ([[(1, 2)]], [3])
    """
    starts: list[int] = []
    ends: list[int] = []
    per_text: list[int] = []
    for text in texts:
        s, e = unit_bounds(text, granularity)
        starts.extend(s)
        ends.extend(e)
        per_text.append(len(s))
    counts = np.array(per_text, dtype=np.int64)
    u_off = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=u_off[1:])
    u_ex = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    ex = batch.example_ids
    us, ue, ss, se = iv.order_keys([u_ex, u_ex, ex, ex],
                                   [np.array(starts, dtype=np.int64),
                                    np.array(ends, dtype=np.int64), batch.starts, batch.ends],
                                   counts.size)
    lo = np.searchsorted(ue, ss, side="right") - u_off[ex]
    hi = np.searchsorted(us, se, side="left") - u_off[ex]
    # A span touching no unit, and a zero-length span (which marks no character), become
    # empty and are dropped like any empty span.
    hi = np.where(batch.starts < batch.ends, np.maximum(hi, lo), lo)
    return SpanBatch(batch.offsets, lo, hi), counts


def at_granularity(prepared: Prepared, text, granularity: str) -> Prepared:
    """A prepared batch of character spans re-expressed in ``granularity`` units: each
    span becomes the unit-index span of the words or sentences it touches, and the text
    lengths become unit counts (`to_units`). Every kept example needs its text.

    Parameters
    ----------
    prepared : Prepared
        The validated character spans (`mycelium.core.pipeline.prepare`).
    text : str, sequence of str or column
        The texts, as given to `mycelium.evaluate`.
    granularity : {"word", "sentence"}
        The unit.

    Returns
    -------
    Prepared
        The same examples with canonical unit-index spans; ``text_lengths`` holds the
        number of units of each kept example.

    Raises
    ------
    ValueError
        ``text`` is None.
    SpanValidationError
        A kept example has no text (the error names the example).

    Examples
    --------
    >>> from mycelium.core.pipeline import prepare
    >>> p = at_granularity(prepare([[0, 7]], [[4, 6]], text="Hi, Ann! Bye"),
    ...                    "Hi, Ann! Bye", "word")
    >>> p.refs.to_lists(), p.preds.to_lists(), p.text_lengths.tolist()
    ([[(0, 2)]], [[(1, 2)]], [3])
    """
    texts = kept_texts(prepared, text, f"granularity={granularity!r} needs the text of "
                       "every example to find its units")
    refs, counts = to_units(prepared.refs, texts, granularity)
    preds, _ = to_units(prepared.preds, texts, granularity)
    return replace(prepared, refs=canonicalize(refs), preds=canonicalize(preds),
                   text_lengths=counts)
