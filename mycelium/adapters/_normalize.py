"""Normalising tokenizers: the text as a tokenizer's normaliser sees it, and for each
normalised character the original characters it came from (SPEC section 9, "Normalising
tokenizers")."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from typing import Callable

__all__ = ["PRESETS", "Normalized", "normalizer", "normalize_text"]

_METASPACE = "\u2581"  # sentencepiece's '▁': its normaliser writes spaces this way
_ANCHOR = 3  # characters that must agree again after a difference
_REACH = 32  # how far (both sides together) a difference is looked across


def _lower_nfd_unmarked(text: str) -> str:
    # BERT's uncased normaliser (google-research/bert tokenization.py and HF tokenizers'
    # BertNormalizer): characters of category C* other than tab, newline and return are
    # dropped with NUL and U+FFFD; each character is lowercased on its own (so a final
    # sigma stays 'σ'), decomposed (NFD), and its nonspacing marks (Mn) removed.
    out = []
    for ch in text:
        if ch in "\t\n\r":
            out.append(ch)
        elif ch == "\ufffd" or unicodedata.category(ch)[0] == "C":
            continue
        else:
            out.append(ch.lower())
    return "".join(c for c in unicodedata.normalize("NFD", "".join(out))
                   if unicodedata.category(c) != "Mn")


PRESETS: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "nfkc": lambda s: unicodedata.normalize("NFKC", s),
    "nfkc_lower": lambda s: unicodedata.normalize("NFKC", s).lower(),
    "bert_uncased": _lower_nfd_unmarked,
}


def normalizer(normalize) -> Callable[[str], str] | None:
    """The normalising function ``normalize=`` names: ``None``, a preset's name or a
    callable ``str -> str``."""
    if normalize is None or callable(normalize):
        return normalize
    if isinstance(normalize, str) and normalize in PRESETS:
        return PRESETS[normalize]
    raise ValueError(f"Expected normalize as None, a callable str -> str or one of "
                     f"{', '.join(PRESETS)}, got {normalize!r}; fix by passing the "
                     "tokenizer's own normaliser or one of those names.")


@dataclass(frozen=True)
class Normalized:
    """The normalised text and where each of its characters came from.

    ``text[i]`` came from original characters ``lo[i]:hi[i]`` (``lo[i] == hi[i]`` for a
    character the normaliser inserted); ``changed`` counts original characters the
    normaliser changed or dropped.
    """

    text: str
    lo: list[int]
    hi: list[int]
    changed: int
    n: int  # length of the original text

    def dropped(self) -> set[int]:
        """The original characters no normalised character came from."""
        seen = bytearray(self.n)
        for s, e in zip(self.lo, self.hi):
            seen[s:e] = b"\x01" * (e - s)
        return {i for i in range(self.n) if not seen[i]}

    def at(self, i: int) -> int:
        """The original position of normalised position ``i`` (``0 <= i <= len``)."""
        return self.lo[i] if i < len(self.lo) else self.n

    def end(self, j: int) -> int:
        """The original end of a normalised range ending at ``j`` (exclusive, > 0)."""
        return self.hi[j - 1]


def _called(fn, text: str) -> str:
    out = fn(text)
    if not isinstance(out, str):
        raise TypeError(f"Expected normalize to return a str, got {type(out).__name__} "
                        f"for {text[:20]!r}; fix by passing a function str -> str (a "
                        "tokenizer's normaliser such as normalize_str).")
    return out


def normalize_text(text: str, fn: Callable[[str], str]) -> Normalized:
    """``text`` normalised by ``fn``, each normalised character mapped back.

    Character by character when that gives the same string as normalising the whole
    text; otherwise the characters' own normalisations are aligned with the whole's
    (`_aligned`). A '▁' the normaliser writes for whitespace (sentencepiece) is read as a
    space.
    """
    whole = _called(fn, text)
    cache: dict[str, str] = {}
    pieces = []
    for ch in text:
        piece = cache.get(ch)
        if piece is None:
            piece = cache[ch] = _called(fn, ch)
        pieces.append(piece)
    if "".join(pieces) == whole:
        lo, hi = [], []
        for i, piece in enumerate(pieces):
            lo += [i] * len(piece)
            hi += [i + 1] * len(piece)
        changed = sum(1 for ch, piece in zip(text, pieces) if piece != ch)
        return Normalized(_spaces(whole, lo, hi, text), lo, hi, changed, len(text))
    return _aligned(text, whole, _without_prefix(fn, pieces))


def _without_prefix(fn, pieces: list[str]) -> list[str]:
    # A prefix the normaliser puts before every input (sentencepiece's dummy '▁') is
    # taken off each character's own normalisation: the whole text has it once.
    prefix = os.path.commonprefix([_called(fn, "a"), _called(fn, "b")])
    if not prefix:
        return pieces
    return [p[len(prefix):] if p.startswith(prefix) else p for p in pieces]


def _aligned(text: str, whole: str, pieces: list[str]) -> Normalized:
    """Map ``whole`` back through the characters' own normalisations (``pieces``): equal
    characters pair off; whitespace on one side only is inserted or dropped; any other
    difference (a composition, a character inserted or dropped) runs to where
    ``_ANCHOR`` characters agree again, and every character of ``whole`` in it covers
    all the original characters in it."""
    a = "".join(pieces)
    owner = [i for i, piece in enumerate(pieces) for _ in piece]
    same = [False] * len(a)
    lo: list[int] = []
    hi: list[int] = []
    i = j = 0
    while j < len(whole):
        if i < len(a) and a[i] == whole[j]:
            same[i] = True
            lo.append(owner[i])
            hi.append(owner[i] + 1)
            i += 1
            j += 1
            continue
        if _blank(whole[j]):
            di, dj = 0, 1  # whitespace the normaliser wrote (a dummy prefix, a collapse)
        elif i < len(a) and a[i].isspace():
            di, dj = 1, 0  # whitespace it dropped
        else:
            di, dj = _reanchor(a, i, whole, j)
        if di:
            s, e = owner[i], owner[i + di - 1] + 1
        else:  # inserted: it stands for the characters dropped between its neighbours
            s = owner[i - 1] + 1 if i else 0
            e = owner[i] if i < len(a) else len(text)
            s = min(s, e)  # inside one character's normalisation: nothing dropped
        lo += [s] * dj
        hi += [e] * dj
        i += di
        j += dj
    # an original character counts as changed unless its normalisation is itself,
    # every character of which paired off with an equal one
    kept = [pieces[k] == ch for k, ch in enumerate(text)]
    for k, o in enumerate(owner):
        if not same[k]:
            kept[o] = False
    return Normalized(_spaces(whole, lo, hi, text), lo, hi, kept.count(False), len(text))


def _reanchor(a: str, i: int, b: str, j: int) -> tuple[int, int]:
    """The smallest step ``(di, dj)`` (fewest characters in all) after which ``a`` and
    ``b`` agree again for ``_ANCHOR`` characters, or to both their ends, whitespace on
    either side left out (the walk takes it as inserted or dropped). When none is
    within ``_REACH``: one character against one."""
    la, lb = len(a), len(b)
    for d in range(1, _REACH + 1):
        for di in range(0, d + 1):
            dj = d - di
            x, y = i + di, j + dj
            if x > la or y > lb:
                continue
            k = 0
            while k < _ANCHOR:
                while x < la and _blank(a[x]):
                    x += 1
                while y < lb and _blank(b[y]):
                    y += 1
                if x == la or y == lb or a[x] != b[y]:
                    break
                k, x, y = k + 1, x + 1, y + 1
            if k == _ANCHOR or (x == la and y == lb):
                return di, dj
    return (1 if i < la else 0), 1


def _blank(ch: str) -> bool:
    return ch == _METASPACE or ch.isspace()


def _spaces(whole: str, lo: list[int], hi: list[int], text: str) -> str:
    """``whole`` with each '▁' that no original '▁' produced read as a space."""
    if _METASPACE not in whole:
        return whole
    if _METASPACE not in text:
        return whole.replace(_METASPACE, " ")
    return "".join(" " if ch == _METASPACE and _METASPACE not in text[lo[k]:hi[k]] else ch
                   for k, ch in enumerate(whole))
