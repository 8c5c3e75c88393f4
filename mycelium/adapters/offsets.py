"""``convert_offsets``: offsets counted in UTF-8 bytes (Rust, many C tools) or UTF-16
units (JavaScript, Java) to code points (Python, mycelium) and back."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import SpanValidationError
from ._checks import check_text, one_example_spans, span_pair

__all__ = ["convert_offsets", "UNITS"]

UNITS = ("codepoint", "utf8", "utf16")
SNAPS = (None, "outward", "inward")


def _boundaries(text: str, unit: str) -> np.ndarray:
    """``b[i]`` = offset in ``unit`` of code point ``i`` (``b[len(text)]`` = the total).

    A lone surrogate (text decoded with ``errors="surrogateescape"``, or a JSON
    ``"\\ud800"`` escape) is one code point and one UTF-16 unit, as in JavaScript; UTF-8
    cannot encode it, so byte offsets of such a text do not exist."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if unit == "codepoint":
        widths = np.ones(len(cps), dtype=np.int64)
    elif unit == "utf8":
        _no_surrogates(text, cps)
        widths = 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
    else:
        widths = 1 + (cps >= 0x10000)
    out = np.zeros(len(cps) + 1, dtype=np.int64)
    np.cumsum(widths, out=out[1:])
    return out


def _no_surrogates(text: str, cps: np.ndarray) -> None:
    lone = np.flatnonzero((cps >= 0xD800) & (cps <= 0xDFFF))
    if lone.size:
        i = int(lone[0])
        raise SpanValidationError(
            f"Expected a text UTF-8 can encode, got the lone surrogate {text[i]!r} at code "
            f"point {i}, at text; fix by decoding the text as the tool that counted the "
            "offsets did (a surrogate from errors='surrogateescape' stands for a byte that "
            "was not UTF-8), or by converting offsets in 'codepoint' or 'utf16' units.",
            side="text")


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"Expected {name} one of {', '.join(map(repr, choices))}, got "
                         f"{value!r}; fix by passing one of them.")


def convert_offsets(spans, text: str, *, unit: str = "utf8", to: str = "codepoint",
                    snap: str | None = None) -> list:
    """Convert half-open ``(start, end)`` offsets of ``text`` from one unit to another.

    Parameters
    ----------
    spans : sequence of (int, int) or of dict
        Half-open offsets (spans or token offsets) counted in ``unit``; a dict span
        (``{"start", "end", ...}``) comes back as a dict with its other keys kept.
    text : str
        The text the offsets refer to.
    unit : {"utf8", "utf16", "codepoint"}, default "utf8"
        What ``spans`` count: UTF-8 bytes, UTF-16 code units or code points.
    to : {"codepoint", "utf8", "utf16"}, default "codepoint"
        What the result counts (``unit="codepoint", to="utf8"`` is the way back).
    snap : {None, "outward", "inward"}, default None
        An offset inside a character (the middle of a multibyte UTF-8 sequence, between
        the two halves of a UTF-16 surrogate pair) is an error, unless ``"outward"``
        (the span grows to whole characters) or ``"inward"`` (it shrinks to the whole
        characters it holds; a span inside one character becomes empty at the start of
        the next).

    Returns
    -------
    list of (int, int) or of dict
        The same spans in ``to`` units, in the same order and form.

    Raises
    ------
    SpanValidationError
        For an offset inside a character (without ``snap``), past the end of the text,
        negative, not a whole number (``0.5``, ``True``, ``"3"``), or a start after its
        end, and for a span that is not a pair or lacks ``start``/``end``; the message
        names the span. Also for UTF-8 offsets of a text holding a lone surrogate (UTF-8
        cannot encode it).
    TypeError
        For a ``text`` that is not a str, ``spans`` that are not a list of spans (a str,
        None), or a batch of span lists where one example's spans are expected.
    ValueError
        For an unknown ``unit``, ``to`` or ``snap``.

    Examples
    --------
    >>> import mycelium
    >>> text = "Café 😀!"
    >>> mycelium.convert_offsets([(0, 5), (6, 10)], text, unit="utf8")
    [(0, 4), (5, 6)]
    >>> mycelium.convert_offsets([(0, 4), (5, 6)], text, unit="codepoint", to="utf16")
    [(0, 4), (5, 7)]
    >>> mycelium.convert_offsets([(4, 5)], text, unit="utf8", snap="outward")
    [(3, 4)]
    """
    _check_choice("unit", unit, UNITS)
    _check_choice("to", to, UNITS)
    _check_choice("snap", snap, SNAPS)
    text = check_text(text)
    spans = one_example_spans(spans)
    pairs = [span_pair(x, k) for k, x in enumerate(spans)]
    if not pairs:
        return []
    src = _boundaries(text, unit)
    dst = src if to == unit else _boundaries(text, to)
    _check_range(pairs, int(src[-1]), unit)
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    starts = _to_codepoints(arr[:, 0], src, snap, "start", arr, unit, text)
    ends = _to_codepoints(arr[:, 1], src, snap, "end", arr, unit, text)
    if snap == "inward":
        ends = np.maximum(ends, starts)
    out = list(zip(dst[starts].tolist(), dst[ends].tolist()))
    return [{**x, "start": s, "end": e} if isinstance(x, Mapping) else (s, e)
            for x, (s, e) in zip(spans, out)]


def _check_range(pairs: list[tuple[int, int]], total: int, unit: str) -> None:
    """Every span within the text (checked on Python ints: any size is an error, not an
    overflow)."""
    for k, (s, e) in enumerate(pairs):
        if not 0 <= s <= e <= total:
            raise SpanValidationError(
                f"Expected 0 <= start <= end <= {total} ({unit} units of the text), got "
                f"({s}, {e}), at span {k}; fix by passing offsets of this text in {unit} "
                "units (or the unit they are counted in).", span=k)


def _to_codepoints(off, bounds, snap, side, arr, unit, text) -> np.ndarray:
    idx = np.searchsorted(bounds, off, side="left")
    inside = bounds[idx] != off
    if not inside.any():
        return idx
    if snap is None:
        k = int(np.flatnonzero(inside)[0])
        cp = int(idx[k]) - 1
        raise SpanValidationError(
            f"Expected offsets on character boundaries, got {side} {int(off[k])} inside "
            f"the character {text[cp]!r} (code point {cp}, {unit} units "
            f"{int(bounds[cp])}..{int(bounds[cp + 1])}), at span {k} {tuple(arr[k].tolist())}; "
            "fix by passing offsets in the unit they are counted in, or "
            "snap='outward' / snap='inward'.", span=k)
    # searchsorted gave the next boundary (ceil); outward starts and inward ends floor
    floor = (snap == "outward") == (side == "start")
    return np.where(inside & floor, idx - 1, idx)
