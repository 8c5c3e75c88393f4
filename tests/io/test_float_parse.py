"""`mycelium.io.float_parse`: the official Mu-SHROOM reader's float parsing, bit for bit.

``pandas_fast_float`` (one token) and ``pandas_fast_values`` (many tokens of a buffer)
against a table of hand-derived values, against ``pandas.read_json`` itself on random
decimal strings (200,000 here; ``python -m validation.float_parse`` runs millions and
prints the counts), against each other on hypothesis-drawn tokens in random
surroundings, and on every probability of the real files: the official data
(``MYCELIUM_MUSHROOM_DIR``) and the 187 real system submissions
(``MYCELIUM_MUSHROOM_SYSTEMS_DIR``), each skipped with a reason when its folder is unset.
"""

from __future__ import annotations

import io
import json
import random
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _data_dirs import SYSTEMS_ENV, data_folder
from validation.float_parse import pandas_reads, pandas_rejects, random_tokens
from mycelium.io.float_parse import (FloatParseError, check_float_parse, key_value_starts,
                                     pandas_fast_float, pandas_fast_values,
                                     resolve_float_parse)


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def _vector(tokens: list[str], sep: str = ", ") -> tuple[np.ndarray, np.ndarray, list]:
    """The tokens joined in one buffer: (values, ends, starts) of pandas_fast_values."""
    text = sep.join(tokens) + " " * 64
    starts, at = [], 0
    for t in tokens:
        starts.append(at)
        at += len(t) + len(sep)
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    values, ends = pandas_fast_values(buf, np.array(starts, dtype=np.int64))
    return values, ends, starts


# ------------------------------------------------------------------ hand-derived values

# (token, value): ((double)I + f * 10^-d) * sign * pow(10, X), f the first 15 fraction
# digits, 10^-d the double nearest to it, each operation rounded to double.
TABLE = [
    ("0.3", 0.30000000000000004),          # 3 * 0.1
    ("0.6", 0.6000000000000001),           # 6 * 0.1
    ("0.30", 0.3),                         # 30 * 0.01: trailing zeros change the value
    ("0.5000000000000001", 0.5),           # the 16th fraction digit is dropped
    ("0.8812335261248792", 0.881233526124879),
    ("0.881233526124879", 0.881233526124879),
    ("0.6666666667", 0.6666666667000001),  # 6666666667 * 1e-10
    ("0.3333333333", 0.33333333330000003),  # 3333333333 * 1e-10
    ("0.000000000000000123", 0.0),         # 15 kept digits, all zero
    ("1.0", 1.0), ("1.000", 1.0), ("7", 7.0), ("-0", 0.0), ("-0.0", -0.0),
    ("-2.50", -2.5), ("-0.25", -0.25),
    ("1e-5", 1e-05), ("1E+2", 100.0), ("123.456e-7", 1.23456e-05),
    ("1e400", float("inf")), ("-6E394", float("-inf")), ("1e-400", 0.0),
    ("17976931348623157e292", 1.7976931348623157e308),
    ("22000000000000000000", 3553255926290448384.0),  # wraps around 2**64, no error
    ("007.5", 7.5),                        # leading zeros: not JSON, read all the same
]


@pytest.mark.parametrize("token, value", TABLE, ids=[t for t, _ in TABLE])
def test_table(token, value):
    assert _bits(pandas_fast_float(token)) == _bits(value)
    values, ends, starts = _vector([token])
    assert _bits(float(values[0])) == _bits(value) and ends[0] - starts[0] == len(token)


def test_table_is_pandas_reading():
    got = pandas_reads([t for t, _ in TABLE])
    assert [_bits(float(g)) for g in got] == [_bits(v) for _, v in TABLE]


def test_nan_of_zero_times_infinity():
    assert np.isnan(pandas_fast_float("0e400"))
    assert np.isnan(pandas_reads(["0e400"])[0])
    assert np.isnan(_vector(["0e400"])[0][0])


@pytest.mark.parametrize("token", ["18446744073709551616", "-9223372036854775809",
                                   "99999999999999999999.5"])
def test_overflow_is_an_error_as_in_pandas(token):
    assert pandas_rejects(token)
    with pytest.raises(FloatParseError, match="64 bits"):
        pandas_fast_float(token)
    with pytest.raises(FloatParseError, match="64 bits"):
        _vector([token])


@pytest.mark.parametrize("token", ["", "-", "abc", "1.2.3", ".5", "1e5e5"])
def test_not_a_number(token):
    with pytest.raises(FloatParseError):
        pandas_fast_float(token)


# -------------------------------------------------------------- against pandas itself

@pytest.mark.parametrize("seed, leading_zeros", [(1, False), (2, False), (3, True)])
def test_random_tokens_against_pandas(seed, leading_zeros):
    tokens = random_tokens(70_000, seed, leading_zeros)
    bad = [t for t in tokens if _overflows(t)]
    assert all(pandas_rejects(t) for t in bad[:50])
    tokens = [t for t in tokens if not _overflows(t)]
    official = pandas_reads(tokens)
    scalar = [pandas_fast_float(t) for t in tokens]
    values, ends, starts = _vector(tokens)
    want = np.array(official, dtype=np.float64)
    assert [_bits(s) for s in scalar] == [_bits(float(w)) for w in want]
    assert np.array_equal(values.view(np.int64), want.view(np.int64))
    assert np.array_equal(ends - np.array(starts), [len(t) for t in tokens])
    assert len(tokens) > 69_000 and 100 < len(bad) < 1000


def _overflows(token: str) -> bool:
    try:
        pandas_fast_float(token)
    except FloatParseError:
        return True
    return False


# ----------------------------------------------------- the vectorised rule is the scalar

_TOKENS = st.from_regex(r"\A-?[0-9]{1,22}(\.[0-9]{0,22})?([eE][+-]?[0-9]{0,4})?\Z")


@settings(max_examples=200, deadline=None)
@given(st.lists(_TOKENS, min_size=1, max_size=40),
       st.sampled_from([", ", ",", "] , [", '}, {"prob": ']))
def test_vectorised_equals_scalar(tokens, sep):
    expected = []
    for t in tokens:
        try:
            expected.append(_bits(pandas_fast_float(t)))
        except FloatParseError:
            with pytest.raises(FloatParseError):
                _vector(tokens, sep)
            return
    values, ends, starts = _vector(tokens, sep)
    assert [_bits(float(v)) for v in values] == expected
    assert (ends - np.array(starts)).tolist() == [len(t) for t in tokens]


def test_tokens_at_the_end_of_the_buffer():
    data = b'{"prob": 0.123456789012345678}'
    buf = np.frombuffer(data, dtype=np.uint8)
    values, ends = pandas_fast_values(buf, np.array([9]))
    assert values[0] == pandas_fast_float("0.123456789012345678") and ends[0] == 29
    data = b'0.3'
    values, ends = pandas_fast_values(np.frombuffer(data, dtype=np.uint8), np.array([0]))
    assert values.tolist() == [0.30000000000000004] and ends.tolist() == [3]


# ------------------------------------------------------------------- finding the values

def test_key_value_starts():
    data = (b'{"prob": 0.5, "x": "prob", "y": [{"prob" :1}, {"prob":\t-2e3}],'
            b' "t": "say \\"prob\\": 9", "k": {"a\\"prob": 7}}')
    starts = key_value_starts(data, "prob")
    assert [data[s:s + 3] for s in starts.tolist()] == [b"0.5", b"1},", b"-2e", b"7}}"]
    assert key_value_starts(b"", "prob").size == 0
    assert key_value_starts(b'{"prob"', "prob").size == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b'"', b"prob", b"b", b":", b" ", b"\t", b"\n", b"0.5",
                                 b"\\", b"pr", b"ob", b"x"]), max_size=40).map(b"".join),
       st.integers(1, 9))
def test_key_value_starts_is_the_obvious_search(data, scan):
    """Every ``"prob"`` followed (after JSON whitespace) by a colon, whitespace after the
    colon skipped: a regular expression finds the same, and the pair search finds the
    same pairs a chunk of any size at a time."""
    import re

    from mycelium.io.float_parse import _where_pair

    want = [m.end() for m in re.finditer(rb'(?="prob"[ \t\r\n]*:[ \t\r\n]*)'
                                         rb'"prob"[ \t\r\n]*:[ \t\r\n]*', data)]
    assert key_value_starts(data, "prob").tolist() == want
    buffer = np.frombuffer(data, dtype=np.uint8)
    pairs = [i for i in range(len(data) - 2) if data[i:i + 2] == b'b"']
    assert _where_pair(buffer, ord("b"), ord('"'), 0, max(len(data) - 2, 0),
                       scan).tolist() == pairs


def test_rule_names():
    assert resolve_float_parse(None) == "pandas-fast"
    assert check_float_parse("exact") == "exact"
    with pytest.raises(ValueError, match="Expected float_parse one of 'exact', "
                                         "'pandas-fast', got 'fast'"):
        check_float_parse("fast")


# ---------------------------------------------------------------------- the real files

SYSTEMS, NO_SYSTEMS = data_folder(SYSTEMS_ENV)
OFFICIAL, NO_OFFICIAL = data_folder("MYCELIUM_MUSHROOM_DIR")


def _every_probability(files: list[Path]) -> tuple[int, int]:
    """Every soft-label probability of the files read by both rules against pandas:
    (probabilities, how many the official reader reads otherwise than exactly)."""
    total = differ = 0
    for path in files:
        data = path.read_bytes()
        official = pd.read_json(path, lines=True)
        want = np.array([s["prob"] for row in official["soft_labels"] for s in row
                         if "prob" in s], dtype=np.float64)
        starts = key_value_starts(data, "prob")
        values, _ = pandas_fast_values(np.frombuffer(data, dtype=np.uint8), starts)
        assert np.array_equal(values.view(np.int64), want.view(np.int64)), path
        records = [json.loads(line, parse_float=pandas_fast_float)
                   for line in data.decode("utf-8").splitlines() if line.strip()]
        scalar = [s["prob"] for r in records for s in r["soft_labels"] if "prob" in s]
        assert [_bits(float(x)) for x in scalar] == [_bits(float(w)) for w in want], path
        exact = [s["prob"] for line in data.decode("utf-8").splitlines() if line.strip()
                 for s in json.loads(line)["soft_labels"] if "prob" in s]
        total += want.size
        differ += int(np.count_nonzero(np.array(exact, dtype=np.float64) != want))
    return total, differ


@pytest.mark.skipif(SYSTEMS is None, reason=NO_SYSTEMS or "")
def test_every_probability_of_the_system_submissions():
    # The three teams' files; more/ (other teams' files, some not JSON lines) is not counted.
    files = sorted(p for p in SYSTEMS.rglob("*.jsonl")
                   if p.relative_to(SYSTEMS).parts[0] != "more")
    assert len(files) == 187
    assert _every_probability(files) == (90_944, 33_718)


@pytest.mark.skipif(OFFICIAL is None, reason=NO_OFFICIAL or "")
def test_every_probability_of_the_official_files():
    files = sorted((OFFICIAL / "splits").glob("*/*/*.jsonl"))
    assert len(files) == 34
    assert _every_probability(files) == (31_667, 13_668)


def test_random_text_around_the_tokens():
    """Tokens inside real-looking lines (other fields, strings holding numbers)."""
    rng = random.Random(5)
    tokens = random_tokens(3000, 9)
    tokens = [t for t in tokens if not _overflows(t)]
    lines = []
    for i in range(0, len(tokens), 3):
        spans = ", ".join('{"start": %d, "prob": %s, "end": %d}' % (j, t, j + 1)
                          for j, t in enumerate(tokens[i:i + 3]))
        lines.append('{"id": "x-%d", "text": "p=0.%d \\"prob\\": 1", "soft_labels": [%s]}'
                     % (i, rng.randint(0, 99), spans))
    data = ("\n".join(lines) + "\n").encode()
    starts = key_value_starts(data, "prob")
    values, _ = pandas_fast_values(np.frombuffer(data, dtype=np.uint8), starts)
    official = pd.read_json(io.StringIO(data.decode()), lines=True)
    want = np.array([s["prob"] for row in official["soft_labels"] for s in row], dtype=float)
    assert np.array_equal(values.view(np.int64), want.view(np.int64))
