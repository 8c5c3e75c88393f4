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

That is the arithmetic of pandas' x86-64 builds, which do not fuse the multiply and the
add (a build that did, as compilers may on ARM, would round once less).

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
from numpy.lib.stride_tricks import sliding_window_view

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

_WIDTH = 24  # bytes looked at per token; longer tokens take pandas_fast_float
_FIELD = 16  # digits converted at once
_ROWS = 1 << 14  # tokens parsed at once
_NUMBER_BYTE = np.zeros(256, dtype=bool)  # the bytes of a number token
_NUMBER_BYTE[[*range(48, 58), *map(ord, ".eE+-")]] = True
_POW10_ARRAY = np.array(_POW10)
_TENS = np.array([10**k for k in range(_FIELD + 1)], dtype=np.uint64)
_KEEP = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # first k bytes


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

    Notes
    -----
    Each token's first 24 bytes are copied out once (rows of a sliding window over
    ``buffer``, no index matrix), 16,384 tokens at a time; the parts are located per row
    and their digits converted 8 or 16 at a time. Tokens that do not fit (longer, a part
    of more than 16 digits, near the end of the buffer, or not a number) are read one by
    one by `pandas_fast_float`.

    Examples
    --------
    >>> import numpy as np
    >>> buf = np.frombuffer(b'[0.3, 1e-5, -2.50]', dtype=np.uint8)
    >>> values, ends = pandas_fast_values(buf, np.array([1, 6, 12]))
    >>> values.tolist(), ends.tolist()
    ([0.30000000000000004, 1e-05, -2.5], [4, 10, 17])
    """
    starts = np.asarray(starts, dtype=np.int64)
    values = np.zeros(starts.size, dtype=np.float64)
    ends = starts.copy()
    near_end = starts > buffer.size - _WIDTH - _FIELD
    rows = np.flatnonzero(~near_end)
    for at in range(0, rows.size, _ROWS):  # a block's temporaries stay in the cache
        block = rows[at:at + _ROWS]
        values[block], ends[block], slow = _vectorised(buffer, starts[block])
        near_end[block[slow]] = True
    for i in np.flatnonzero(near_end).tolist():
        values[i], ends[i] = _one(buffer, int(starts[i]))
    return values, ends


def _vectorised(buffer: np.ndarray, starts: np.ndarray):
    """(values, ends, slow) of tokens at least `_WIDTH` + `_FIELD` bytes before the end."""
    rows = np.arange(starts.size)
    window = sliding_window_view(buffer, _WIDTH)[starts]
    digit = (window - np.uint8(48)) < 10
    dot = window == ord(".")
    exp = (window | np.uint8(32)) == ord("e")
    number = digit | dot | exp | (window == ord("+")) | (window == ord("-"))
    # A token starts with '-' or a digit, so a first column of 0 from argmax means "not
    # found" (no end within the window, no '.', no exponent): such tokens are slow or
    # fail the digit count below.
    length = np.argmax(~number, axis=1)
    inside = np.arange(_WIDTH) < length[:, None]  # what follows the token is not of it
    dot &= inside
    exp &= inside
    digit &= inside
    dot_at, exp_at = dot.argmax(axis=1), exp.argmax(axis=1)
    has_dot, has_exp = dot_at > 0, exp_at > 0
    dot_at = np.where(has_dot, dot_at, length)
    exp_at = np.where(has_exp, exp_at, length)
    neg = window[:, 0] == ord("-")
    after_e = window[rows, np.minimum(exp_at + 1, _WIDTH - 1)]
    signed = has_exp & ((after_e == ord("+")) | (after_e == ord("-")))
    exp_start = exp_at + 1 + signed
    n_int = np.minimum(dot_at, exp_at) - neg
    n_frac = np.where(has_dot, exp_at - dot_at - 1, 0)
    n_exp = np.where(has_exp, length - exp_start, 0)
    # The grammar -?D+(.D*)?([eE][+-]?D*)? read by position: the digits counted must be
    # every digit of the token, else (or when a part is too long) it is read alone.
    slow = (length == 0) | (n_int < 1) | (n_int > _FIELD) | (n_exp > _FIELD) \
        | (dot_at > exp_at) | (_count(digit) != n_int + n_frac + n_exp)
    kept = np.minimum(n_frac, _KEPT)
    ok = ~slow
    whole = (window[rows, neg.view(np.int8)] - np.uint8(48)).astype(np.uint64)  # 1 digit
    longer = ok & (n_int > 1)
    if longer.any():
        whole[longer] = _digits(buffer, (starts + neg)[longer], n_int[longer])
    whole[slow] = 0
    fraction = _digits(buffer, starts + dot_at + 1, np.where(ok, kept, 0))
    values = whole.astype(np.float64) + fraction.astype(np.float64) * _POW10_ARRAY[kept]
    np.negative(values, out=values, where=neg)
    values[~has_dot & ~has_exp] += 0.0  # an integer token is an integer: no -0.0
    scaled = has_exp & ok
    if scaled.any():
        exponent = _digits(buffer, starts + exp_start, np.where(scaled, n_exp, 0))
        _scale(values, exponent.astype(np.float64), scaled, signed & (after_e == ord("-")))
    return values, starts + length, slow


def _count(flags: np.ndarray) -> np.ndarray:
    """The True values of each row of a C-ordered bool matrix of `_WIDTH` columns: its
    bytes summed 8 at a time (a multiply by 0x0101... adds a word's bytes)."""
    words = flags.view(np.uint8).view("<u8")
    total = words[:, 0] + words[:, 1] + words[:, 2]  # <= 3 per byte: no carry
    return (total * np.uint64(0x0101010101010101) >> np.uint64(56)).astype(np.int64)


def _digits(buffer: np.ndarray, at: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The integer value of the ``count`` (<= 16) digits at ``buffer[at:]``, per row.

    The 8 or 16 bytes at ``at`` are copied out as little-endian words, the digits made
    0-9 and those past ``count`` 0, and the number converted 8 digits at a time with the
    shift-and-multiply steps of a SIMD-within-a-register decimal parse; it is the value
    times 10^(width - count). (Subtracting '0' borrows only into later bytes, which are
    past ``count`` and masked.)"""
    if count.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if int(count.max()) <= 8:
        x = sliding_window_view(buffer, 8)[at].view("<u8")[:, 0] \
            - np.uint64(0x3030303030303030)
        return _eight(x & _KEEP[count]) // _TENS[8 - count]
    x = sliding_window_view(buffer, _FIELD)[at].view("<u8") - np.uint64(0x3030303030303030)
    x[:, 0] &= _KEEP[np.minimum(count, 8)]
    x[:, 1] &= _KEEP[np.maximum(count - 8, 0)]
    x = _eight(x)
    return (x[:, 0] * np.uint64(100_000_000) + x[:, 1]) // _TENS[_FIELD - count]


def _eight(x: np.ndarray) -> np.ndarray:
    """Words of 8 digit bytes (0-9, the first in the lowest byte) as their numbers."""
    x = (x * np.uint64(10) + (x >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x * np.uint64(100) + (x >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    return (x * np.uint64(10000) + (x >> np.uint64(32))) & np.uint64(0xFFFFFFFF)


def _scale(values: np.ndarray, exponent: np.ndarray, rows: np.ndarray,
           negative: np.ndarray) -> None:
    """``values[rows] *= pow(10, ±exponent)``, pow taken once per distinct exponent."""
    signed = np.where(negative, -exponent, exponent)[rows]
    distinct, inverse = np.unique(signed, return_inverse=True)
    powers = np.array([_pow10(x) for x in distinct.tolist()], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and 0 * inf = nan, as in C
        values[rows] = values[rows] * powers[inverse]


def _one(buffer: np.ndarray, start: int) -> tuple[float, int]:
    """A token read alone: (value, end)."""
    end = start
    while end < buffer.size and _NUMBER_BYTE[buffer[end]]:
        end += 1
    try:
        text = bytes(buffer[start:end]).decode("ascii")
    except UnicodeDecodeError:  # not reachable: every byte of a token is ASCII
        text = ""
    return pandas_fast_float(text), end


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
    # The key's last character and its closing quote, side by side, are rare outside
    # such keys: found first, they leave few candidates for the other bytes.
    last = pattern.size - 2
    hits = _where_pair(buffer, pattern[last], pattern[last + 1], last,
                       buffer.size - 2) - last
    for k in range(last - 1, -1, -1):
        hits = hits[buffer[hits + k] == pattern[k]]
    at = _skip_space(buffer, hits + pattern.size)
    at = at[at < buffer.size]
    at = at[buffer[at] == ord(":")]  # a key, not a string value
    return _skip_space(buffer, at + 1)


#: Bytes compared at a time by `_where_pair`: the flags stay in the cache and their
#: memory is reused (flags the size of a 100 MB file cost more in page faults than the
#: comparisons).
_SCAN = 1 << 18


def _where_pair(buffer: np.ndarray, first, second, lo: int, hi: int,
                scan: int = _SCAN) -> np.ndarray:
    """Sorted ``i`` in ``[lo, hi)`` where ``buffer[i] == first`` and ``buffer[i + 1] ==
    second`` (``hi < buffer.size``), compared ``scan`` bytes at a time."""
    parts = []
    size = max(min(scan, hi - lo), 0)
    this, next_ = np.empty(size, dtype=bool), np.empty(size, dtype=bool)
    for a in range(lo, hi, scan):
        b = min(a + scan, hi)
        found, after = this[:b - a], next_[:b - a]
        np.equal(buffer[a:b], first, out=found)
        np.equal(buffer[a + 1:b + 1], second, out=after)
        found &= after
        parts.append(np.flatnonzero(found) + a)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _skip_space(buffer: np.ndarray, at: np.ndarray) -> np.ndarray:
    at = at.astype(np.int64)
    moving = np.flatnonzero(at < buffer.size)
    while moving.size:
        moving = moving[_SPACE[buffer[at[moving]]]]
        at[moving] += 1
        moving = moving[at[moving] < buffer.size]
    return at
