"""How a text's characters are drawn in a terminal: display widths (the ``wcwidth``
library's tables, the ones terminals follow), characters that would move the cursor or
drive the terminal written as visible escapes, and right-to-left text held in logical
order.

A terminal view must never pass a text's control characters through: ``\\r\\n`` would
break the marker columns, ``U+2028`` starts a new line in some viewers, and ``ESC [``
sequences (ANSI) recolour or clear the terminal. Bidirectional controls (``U+202E`` and
its kin) reorder what follows them. All of them are shown, never obeyed.
"""

from __future__ import annotations

import unicodedata

__all__ = ["glyph", "columns", "safe", "right_to_left", "obeyed", "escaped",
           "LTR_OVERRIDE", "POP"]

#: Shown for the characters that lay out a text, one column each.
LAYOUT = {"\n": "\u23ce", "\r": "\u240d", "\t": "\u2192"}
#: Explicit bidirectional formatting characters (Unicode's Bidi_Control property).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
#: LEFT-TO-RIGHT OVERRIDE and POP DIRECTIONAL FORMATTING: a line between them is drawn in
#: the order of its code points by every renderer that applies the bidi algorithm
#: (browsers, so notebooks; bidi-aware terminals); a terminal without bidi already does.
LTR_OVERRIDE, POP = "\u202d", "\u202c"


def wcswidth(text: str) -> int:
    """``wcwidth.wcswidth``, imported on first use (it costs 20 ms of every import)."""
    from wcwidth import wcswidth as width

    return width(text)


def escaped(ch: str) -> str:
    """One code point that must not reach the terminal, as visible text."""
    if ch in LAYOUT:
        return LAYOUT[ch]
    cp = ord(ch)
    if cp < 0x20:
        return chr(0x2400 + cp)  # the Control Pictures block: ␛ for ESC, ␇ for BEL, ...
    if cp == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{cp:02x}" if cp <= 0xFF else f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def obeyed(ch: str) -> bool:
    """A code point a terminal (or a viewer of its output) would act on, not draw."""
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in BIDI_CONTROLS


def glyph(cluster: str) -> str:
    """What the terminal view draws for one grapheme cluster: the cluster itself, or with
    its control, separator and bidi-control characters escaped (``\\n`` as ⏎, ``\\r`` as ␍,
    a tab as →, other C0 controls as their control pictures, ``U+2028`` as ``\\u2028``);
    a cluster that would draw nothing at all (a zero-width space, a lone combining mark)
    is written as the escapes of its code points, so its markers stay visible.

    Examples
    --------
    >>> glyph("\\r\\n"), glyph("\\x1b[31m"), glyph("\\u2028")
    ('␍⏎', '␛[31m', '\\\\u2028')
    >>> glyph("e\\u0301") == "e\\u0301"
    True
    >>> glyph("\\u200b")
    '\\\\u200b'
    """
    if any(obeyed(ch) for ch in cluster):
        return "".join(escaped(ch) if obeyed(ch) else ch for ch in cluster)
    if wcswidth(cluster) <= 0:
        return "".join(escaped(ch) for ch in cluster)
    return cluster


def columns(shown: str) -> int:
    """Terminal columns of drawn text (`glyph`'s output): ``wcwidth``'s count, so wide
    CJK and emoji take two columns, a Devanagari consonant with its spacing vowel sign
    two, combining marks none; never less than one for a drawn cluster.

    Examples
    --------
    >>> columns("a"), columns("\\u6771"), columns("\\u0915\\u093e"), columns("e\\u0301")
    (1, 2, 2, 1)
    """
    return max(wcswidth(shown), 1 if shown else 0)


def safe(label: str) -> str:
    """A name or title with every character a terminal would obey escaped.

    Examples
    --------
    >>> safe("det\\x1b[31mred")
    'det␛[31mred'
    """
    return "".join(escaped(ch) if obeyed(ch) else ch for ch in label)


def right_to_left(text: str) -> bool:
    """Whether ``text`` holds right-to-left letters (bidi classes R and AL: Hebrew,
    Arabic, Syriac, Thaana, N'Ko, ...).

    Examples
    --------
    >>> right_to_left("Paris"), right_to_left("\\u0645\\u0631\\u062d\\u0628\\u0627 2004")
    (False, True)
    """
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)
