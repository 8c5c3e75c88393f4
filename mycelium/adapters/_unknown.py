"""Unknown tokens ('[UNK]', '<unk>', a tokenizer's own): the stretch of text they stand
for, shared out among several in a row one character cluster each (SPEC section 9)."""

from __future__ import annotations

import unicodedata

__all__ = ["UNKNOWN_TOKENS", "alone", "clusters", "words", "share_out"]

UNKNOWN_TOKENS = frozenset({"[UNK]", "<unk>"})

_ZWJ = "\u200d"


def _extends(ch: str) -> bool:
    """Whether ``ch`` continues the cluster before it: a mark (Mn, Mc, Me: combining
    accents, vowel signs, variation selectors, the keycap), an emoji skin tone, a tag
    character (subdivision flags)."""
    cp = ord(ch)
    return (0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F
            or unicodedata.category(ch)[0] == "M")


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def clusters(nt: str, a: int, b: int) -> list[tuple[int, int]]:
    """The character clusters of ``nt[a:b]`` that are not whitespace (``nt`` has its
    White_Space written as ' '): a character with the marks, skin tones and tags that
    follow it, joined through U+200D to the next, and regional indicators in pairs (a
    flag). A simplification of Unicode's extended grapheme clusters that keeps every
    emoji sequence and combining sequence whole."""
    out: list[tuple[int, int]] = []
    i = a
    while i < b:
        if nt[i] == " ":
            i += 1
            continue
        j = i + 1
        if _regional(nt[i]) and j < b and _regional(nt[j]):
            j += 1
        while j < b:
            if _extends(nt[j]):
                j += 1
            elif nt[j] == _ZWJ:
                j += 2 if j + 1 < b and nt[j + 1] != " " else 1
            else:
                break
        out.append((i, min(j, b)))
        i = j
    return out


_IDEOGRAPHS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF),
               (0x2A700, 0x2CEAF), (0x2F800, 0x2FA1F))


def alone(ch: str) -> bool:
    """A character that is a word of its own: a CJK ideograph or punctuation (as BERT's
    pre-tokenizer cuts words: google-research/bert tokenization.py, _is_chinese_char
    and _is_punctuation)."""
    cp = ord(ch)
    if any(lo <= cp <= hi for lo, hi in _IDEOGRAPHS):
        return True
    return (33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126
            or unicodedata.category(ch)[0] == "P")


def words(nt: str, a: int, b: int) -> list[list[tuple[int, int]]]:
    """The words of ``nt[a:b]`` as lists of its clusters: runs of non-whitespace
    characters, each CJK ideograph and each punctuation character a word of its own."""
    out: list[list[tuple[int, int]]] = []
    prev = None
    for part in clusters(nt, a, b):
        own = alone(nt[part[0]])
        if out and prev is not None and prev[0][1] == part[0] and not own and not prev[1]:
            out[-1].append(part)
        else:
            out.append([part])
        prev = (part, own)
    return out


def share_out(nt: str, count: int, a: int, b: int) -> list[tuple[int, int, int, int] | None]:
    """What each of ``count`` unknown tokens in a row covers of the stretch ``[a, b)``:
    ``(lo, hi, nlo, nhi)`` (tiling range, then first to last non-whitespace character) or
    None for one left with nothing.

    In order, each takes one word (`words`), or one character cluster of it while more
    tokens than words are left (a tokenizer writing one unknown token per character),
    and the last that gets anything takes the rest; with single-cluster words that is
    one cluster each. Tiling: the first range starts at ``a``, each next where the one
    before ends, the last ends at ``b``.
    """
    parts = words(nt, a, b)
    out: list[tuple[int, int, int, int] | None] = [None] * count
    start, w, c = a, 0, 0  # the next word, and the next cluster in it
    for j in range(count):
        if w == len(parts):
            break
        if j == count - 1:
            first, last = parts[w][c], parts[-1][-1]
            w = len(parts)
        elif count - j > len(parts) - w and c + 1 < len(parts[w]):
            first = last = parts[w][c]
            c += 1
        else:
            first, last = parts[w][c], parts[w][-1]
            w, c = w + 1, 0
        end = b if w == len(parts) else last[1]
        out[j] = (start, end, first[0], last[1])
        start = end
    return out
