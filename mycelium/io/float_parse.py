"""How JSON numbers become floats: exactly, or as pandas' fast parser reads them.

The official Mu-SHROOM scorer reads its files with ``pandas.read_json`` and the default
``precise_float=False``. That parser (pandas' vendored ujson decoder,
``decode_numeric`` in ``pandas/_libs/src/vendored/ujson/lib/ultrajsondec.c``; the same in
pandas 2.x and 3.1) does not round correctly. For a token ``[-]I[.F][(e|E)[+|-]X]`` it
computes, in IEEE double arithmetic:

- ``I``, the integer digits, accumulated in an unsigned 64-bit integer (a value past
  2**64, or a negative one past 2**63, is an error, except that some 20-digit values wrap
  around without one);
- ``f``, the *first 15* fraction digits as an integer (the rest are ignored, leading zeros
  counting as digits), so ``0.8812335261248792`` and ``0.881233526124879`` are one value;
- ``((double)I + f * 10^-d) * sign``, where ``d`` is the number of fraction digits kept and
  ``10^-d`` the double nearest to it (``0.1``, ``0.01``, ...), so ``0.3`` becomes
  ``0.30000000000000004`` and ``0.5000000000000001`` becomes ``0.5``;
- with an exponent, that value times ``pow(10.0, X)`` (the C library's ``pow``, the one
  Python's ``10.0 ** X`` calls; it overflows to infinity, and ``0e400`` is NaN).

`pandas_fast_float` is that rule for one token (the ``parse_float`` hook of `json.loads`)
and `pandas_fast_values` the same rule for many tokens of a byte buffer at once (numpy);
both are tested bit for bit against ``pandas.read_json`` on millions of random decimal
strings and on every probability of 187 real Mu-SHROOM submissions
(``tests/io/test_float_parse.py``). ``"exact"`` is the correctly rounded reading of the
`json` module and of ``pyarrow.json``. Integers are read as integers by both rules.
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np

from ..core.profiles import FLOAT_PARSES, get_profile

__all__ = ["FLOAT_PARSES", "FloatParseError", "pandas_fast_float", "pandas_fast_values",
           "parse_float_hook", "check_float_parse", "resolve_float_parse",
           "key_value_starts"]


class FloatParseError(ValueError):
    """A number the fast parser rejects (its integer part overflows 64 bits)."""


#: ``10^-d`` for the d fraction digits kept: the doubles nearest to 1.0, 0.1, ... 1e-15
#: (the C table's literals; Python's literals round the same way).
_POW10 = tuple(float(f"1e-{d}") for d in range(16))
_KEPT = 15  # JSON_DOUBLE_MAX_DECIMALS of pandas' ujson: fraction digits kept
_U64 = (1 << 64) - 1
_I64_MIN_MAGNITUDE = 1 << 63
_NUMBER = re.compile(r"(-?)([0-9]+)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]*))?")


def check_float_parse(value: object, where: str = "float_parse") -> str:
    """``value`` if it names a float-parsing rule, else a ValueError listing them.

    Examples
    --------
    >>> check_float_parse("exact")
    'exact'
    """
    if not isinstance(value, str) or value not in FLOAT_PARSES:
        raise ValueError(f"Expected float_parse one of {', '.join(map(repr, FLOAT_PARSES))}, "
                         f"got {value!r}, at {where}; fix by passing 'pandas-fast' (the "
                         "official Mu-SHROOM scorer's reading) or 'exact'.")
    return value


def resolve_float_parse(value: str | None, profile: str = "mu_shroom") -> str:
    """``value``, checked; None means the rule of the built-in ``profile``.

    Examples
    --------
    >>> resolve_float_parse(None), resolve_float_parse("exact")
    ('pandas-fast', 'exact')
    """
    if value is None:
        rule = get_profile(profile)
        return rule.float_parse if rule is not None else "exact"
    return check_float_parse(value)


def parse_float_hook(float_parse: str) -> Callable[[str], float] | None:
    """The ``parse_float`` argument of `json.loads` for a rule (None: exact).

    Examples
    --------
    >>> import json
    >>> json.loads("[0.3]", parse_float=parse_float_hook("pandas-fast"))
    [0.30000000000000004]
    >>> json.loads("[0.3]", parse_float=parse_float_hook("exact"))
    [0.3]
    """
    return pandas_fast_float if check_float_parse(float_parse) == "pandas-fast" else None


def pandas_fast_float(text: str) -> float:
    """The float ``pandas.read_json(..., precise_float=False)`` reads for a JSON number.

    Parameters
    ----------
    text : str
        One number token, e.g. ``"0.8812335261248792"`` or ``"-1.5E-3"`` (leading zeros
        and an empty exponent are read as pandas reads them).

    Returns
    -------
    float
        The value, bit for bit pandas' (an integer token gives its value as a float).

    Raises
    ------
    FloatParseError
        The integer part overflows (pandas: ``ValueError: Value is too big!``), or
        ``text`` is not a number token.

    Notes
    -----
    With ``I`` the integer digits, ``f`` the first 15 fraction digits as an integer,
    ``d`` their count and ``X`` the exponent: ``((double)I + f * 10^-d) * sign *
    pow(10.0, X)``, each operation rounded to double (see the module docstring).

    Examples
    --------
    >>> pandas_fast_float("0.3"), float("0.3")
    (0.30000000000000004, 0.3)
    >>> pandas_fast_float("0.8812335261248792") == pandas_fast_float("0.881233526124879")
    True
    >>> pandas_fast_float("0.5000000000000001")
    0.5
    """
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise FloatParseError(f"Expected a JSON number, got {text!r}, at pandas_fast_float; "
                              "fix by passing one number token.")
    sign, whole, fraction, exp_sign, exp_digits = match.groups()
    negative = sign == "-"
    value = float(_integer_part(whole, negative, text))
    if fraction:
        kept = fraction[:_KEPT]
        value = value + float(int(kept)) * _POW10[len(kept)]
    if negative:
        value = -value
    if fraction is None and exp_digits is None:
        return value + 0.0  # an integer token is an integer: no -0.0
    if exp_digits is not None:
        value = value * _pow10(_exponent(exp_digits, exp_sign == "-"))
    return value


def _integer_part(digits: str, negative: bool, text: str) -> int:
    """The integer digits as ujson accumulates them: unsigned 64-bit, checked per digit."""
    if len(digits) <= 19:  # below 2**64: no wrap-around, one check suffices
        value = int(digits)
        if negative and value > _I64_MIN_MAGNITUDE:
            raise _overflow(text)
        return value
    value = 0
    for ch in digits:
        previous, value = value, (value * 10 + ord(ch) - 48) & _U64
        if (not negative and previous > value) or (negative and value > _I64_MIN_MAGNITUDE):
            raise _overflow(text)
    return value


def _overflow(text: str) -> FloatParseError:
    return FloatParseError(f"Expected a number whose integer part fits in 64 bits, got "
                           f"{text!r}; pandas.read_json (the official Mu-SHROOM reader) "
                           "fails on it too; fix by writing the value as a float with an "
                           "exponent.")


def _exponent(digits: str, negative: bool) -> float:
    value = 0.0
    for ch in digits:  # accumulated in double, as ujson does
        value = value * 10.0 + (ord(ch) - 48)
    return -value if negative else value


def _pow10(exponent: float) -> float:
    # Python's float power calls the C library's pow(), as ujson does; it raises where C
    # returns infinity.
    try:
        return 10.0 ** exponent
    except OverflowError:
        return float("inf")


# ----------------------------------------------------------------- many tokens at once

_WIDTH = 32  # bytes looked at per token; longer tokens take pandas_fast_float
_CLASS = np.full(256, 4, dtype=np.uint8)  # 0 digit, 1 '.', 2 'e'/'E', 3 '+'/'-', 4 other
_CLASS[48:58] = 0
_CLASS[ord(".")] = 1
_CLASS[[ord("e"), ord("E")]] = 2
_CLASS[[ord("+"), ord("-")]] = 3
_POW10_ARRAY = np.array(_POW10)


def pandas_fast_values(buffer: np.ndarray, starts: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """`pandas_fast_float` of every number token starting at ``starts`` in ``buffer``.

    Parameters
    ----------
    buffer : numpy.ndarray of uint8
        The bytes holding the tokens (e.g. a whole JSON-lines file).
    starts : numpy.ndarray of int64
        Where each token starts (its ``-`` or first digit).

    Returns
    -------
    values : numpy.ndarray of float64
        The values, bit for bit `pandas_fast_float`'s.
    ends : numpy.ndarray of int64
        Where each token ends (one past its last byte).

    Raises
    ------
    FloatParseError
        A token's integer part overflows, or a start is not at a number.

    Examples
    --------
    >>> import numpy as np
    >>> buf = np.frombuffer(b'[0.3, 1e-5, -2.50]', dtype=np.uint8)
    >>> values, ends = pandas_fast_values(buf, np.array([1, 6, 12]))
    >>> values.tolist(), ends.tolist()
    ([0.30000000000000004, 1e-05, -2.5], [4, 10, 17])
    """
    starts = np.asarray(starts, dtype=np.int64)
    window = _window(buffer, starts)
    shape = _shape(window)
    neg, int_end, has_dot, frac_end, has_exp, exp_neg, exp_start, end, slow = shape
    kept = np.minimum(frac_end - int_end - 1, _KEPT) * has_dot
    whole = _digits(window, neg.astype(np.int64), np.where(slow, 0, int_end - neg))
    fraction = _digits(window, int_end + 1, np.where(slow, 0, kept))
    exponent = _digits(window, exp_start, np.where(slow | ~has_exp, 0, end - exp_start))
    values = whole.astype(np.float64) + fraction.astype(np.float64) * _POW10_ARRAY[kept]
    values = np.where(neg, -values, values)
    plain = ~has_dot & ~has_exp
    values[plain] += 0.0  # an integer token is an integer: no -0.0
    if has_exp.any():
        _scale(values, exponent.astype(np.float64), has_exp & ~slow, exp_neg)
    for i in np.flatnonzero(slow).tolist():
        values[i], end[i] = _one(buffer, int(starts[i]))
    return values, starts + end


def _window(buffer: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The first `_WIDTH` bytes of each token (a space past the buffer's end)."""
    at = starts[:, None] + np.arange(_WIDTH)
    past = at >= buffer.size
    window = buffer[np.minimum(at, buffer.size - 1)] if buffer.size else \
        np.zeros(at.shape, dtype=np.uint8)
    window[past] = 32
    return window


def _first(other: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Per row, the first column >= ``after`` where ``other`` holds (`_WIDTH` if none)."""
    hit = other & (np.arange(_WIDTH) >= after[:, None])
    return np.where(hit.any(axis=1), hit.argmax(axis=1), _WIDTH)


def _shape(window: np.ndarray):
    """Where each token's parts are, as ujson scans them."""
    rows = np.arange(window.shape[0])
    kind = _CLASS[window]
    not_digit = kind != 0
    neg = window[:, 0] == ord("-")
    int_end = _first(not_digit, neg.astype(np.int64))
    at = window[rows, np.minimum(int_end, _WIDTH - 1)]
    has_dot = (at == ord(".")) & (int_end < _WIDTH)
    frac_end = np.where(has_dot, _first(not_digit, int_end + 1), int_end)
    at = window[rows, np.minimum(frac_end, _WIDTH - 1)]
    has_exp = ((at == ord("e")) | (at == ord("E"))) & (frac_end < _WIDTH)
    sign = window[rows, np.minimum(frac_end + 1, _WIDTH - 1)]
    signed = has_exp & ((sign == ord("+")) | (sign == ord("-")))
    exp_neg = signed & (sign == ord("-"))
    exp_start = frac_end + 1 + signed
    end = np.where(has_exp, _first(not_digit, exp_start), frac_end)
    # A token longer than the window, or a part too long for 16 digits, or no digit at
    # all, is read by the one-token rule.
    slow = (end >= _WIDTH) | (int_end - neg > 16) | (end - exp_start > 16) \
        | (int_end == neg)
    return neg, int_end, has_dot, frac_end, has_exp, exp_neg, exp_start, end, slow


def _digits(window: np.ndarray, start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The integer value of ``count`` (<= 16) digits from ``start``, per row (uint64).

    The digits are right-aligned in 16 bytes padded with '0' and converted 8 at a time
    with the shift-and-multiply steps of a SIMD-within-a-register decimal parse."""
    columns = np.arange(16)
    skip = 16 - count[:, None]
    source = np.clip(start[:, None] + columns - skip, 0, _WIDTH - 1)
    field = np.where(columns >= skip, np.take_along_axis(window, source, axis=1),
                     np.uint8(48))
    x = np.ascontiguousarray(field).view("<u8") - np.uint64(0x3030303030303030)
    x = (x * np.uint64(10) + (x >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x * np.uint64(100) + (x >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    x = (x * np.uint64(10000) + (x >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    return x[:, 0] * np.uint64(100_000_000) + x[:, 1]


def _scale(values: np.ndarray, exponent: np.ndarray, rows: np.ndarray,
           negative: np.ndarray) -> None:
    """``values[rows] *= pow(10, ±exponent)``, pow taken once per distinct exponent."""
    signed = np.where(negative, -exponent, exponent)[rows]
    distinct, inverse = np.unique(signed, return_inverse=True)
    powers = np.array([_pow10(x) for x in distinct.tolist()], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and 0 * inf = nan, as in C
        values[rows] = values[rows] * powers[inverse]


def _one(buffer: np.ndarray, start: int) -> tuple[float, int]:
    """A token read alone: (value, length)."""
    end = start
    while end < buffer.size and _CLASS[buffer[end]] != 4:
        end += 1
    text = bytes(buffer[start:end]).decode("ascii")
    return pandas_fast_float(text), end - start


# ------------------------------------------------------------------- finding tokens

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[32, 9, 10, 13]] = True


def key_value_starts(data: bytes, key: str) -> np.ndarray:
    """Where the value of every ``"<key>":`` member starts in JSON text ``data``.

    The key must be written plainly (no escapes); whitespace around the colon is
    skipped. A key that ends inside another string (``"x\\"<key>":``) is found too, so a
    caller checks the values found against a JSON reader's (count and values).

    Examples
    --------
    >>> data = b'{"prob": 0.5, "x": "prob", "y": [{"prob" :1}]}'
    >>> starts = key_value_starts(data, "prob")
    >>> [data[s:s + 3] for s in starts.tolist()]
    [b'0.5', b'1}]']
    """
    buffer = np.frombuffer(data, dtype=np.uint8)
    pattern = np.frombuffer(f'"{key}"'.encode(), dtype=np.uint8)
    if buffer.size < pattern.size + 1:
        return np.zeros(0, dtype=np.int64)
    hits = np.flatnonzero(buffer[: buffer.size - pattern.size + 1] == pattern[0])
    for k in range(1, pattern.size):
        hits = hits[buffer[hits + k] == pattern[k]]
    at = _skip_space(buffer, hits + pattern.size)
    inside = at < buffer.size
    hits, at = hits[inside], at[inside]
    at = at[buffer[at] == ord(":")]  # a key, not a string value
    return _skip_space(buffer, at + 1)


def _skip_space(buffer: np.ndarray, at: np.ndarray) -> np.ndarray:
    at = at.astype(np.int64)
    moving = np.flatnonzero(at < buffer.size)
    while moving.size:
        moving = moving[_SPACE[buffer[at[moving]]]]
        at[moving] += 1
        moving = moving[at[moving] < buffer.size]
    return at
