"""Conversion of every accepted input form into a `SpanBatch`, with precise errors.

Accepted per SPEC sections 2-3: Python sequences of spans (one example) or of span sets
(a batch); spans as ``[s, e]``, ``(s, e)`` or ``{"start": s, "end": e}``; numpy arrays;
Arrow arrays of ``list<struct<start, end>>`` (``large_list``, int32 fields, extra fields,
Parquet's ``element`` child name, lists of pairs); pandas and Polars Series; JSON strings.
Nothing is clipped, dropped or reordered here: bad values raise `SpanValidationError`.

This module dispatches on the input form and converts Python objects; the fields of
Arrow columns and the texts are read by `mycelium.core.columns`.
"""

from __future__ import annotations

import ast
import json
import math
from itertools import chain
from operator import itemgetter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SpanValidationError
from .arrow_sources import arrow_source
from .columns import I64_MAX, I64_MIN, is_null, show_value, child_pairs
# The text conversions moved to `mycelium.core.columns`; their old import path stays.
from .columns import arrow_or_python, text_lengths, text_values  # noqa: F401
from .columns import zero_batch  # noqa: F401  (the faces' import path)
from .flat import flat_pairs, numpy_bool_in, set_in_spans
from .spans import SpanBatch

__all__ = ["Inputs", "Side", "convert", "from_python", "from_arrow", "to_spans",
           "zero_batch"]


@dataclass(frozen=True)
class Inputs:
    """The data of one scoring call, as the caller gave it (the options travel apart,
    in `mycelium.core.settings.Settings`): spans, texts, soft labels, token offsets and
    scores, and the examples' ids (None when absent)."""

    references: Any
    predictions: Any = None
    text: Any = None
    soft_references: Any = None
    soft_predictions: Any = None
    token_offsets: Any = None
    token_scores: Any = None
    ids: Any = None

    @classmethod
    def split(cls, arguments: Mapping) -> tuple[Inputs, dict]:
        """(the data among a face's keyword ``arguments``, the rest: its options)."""
        names = cls.__dataclass_fields__
        return (cls(**{k: v for k, v in arguments.items() if k in names}),
                {k: v for k, v in arguments.items() if k not in names})

    def soft_from_spans(self, profile) -> Inputs:
        """These inputs with the span lists as the soft labels, when ``profile`` (a
        `mycelium.Profile` or None) reads soft labels from the spans (score rule
        ``soft_labels="spans"``: SHROOM-Visions' ``{start, end, prob, label}``) and
        neither soft side is given; else these inputs."""
        if profile is None or profile.rules.soft_labels != "spans" \
                or self.soft_references is not None or self.soft_predictions is not None \
                or self.predictions is None:
            return self
        return replace(self, soft_references=self.references,
                       soft_predictions=self.predictions)


@dataclass(frozen=True)
class Side:
    """One converted side: its spans, which examples were null, and its input form."""

    batch: SpanBatch
    nulls: np.ndarray  # bool per example: the input held a null instead of a span set
    single: bool       # the input was one example rather than a batch


# --------------------------------------------------------------------- dispatch

def convert(obj, side: str) -> Side:
    """Turn ``obj`` (any accepted form) into a `Side`; raise on anything else. A `Side`
    (converted once by a caller that reads the input twice) is returned as it is."""
    if isinstance(obj, Side):
        return obj
    obj = arrow_source(obj)
    if obj is None:
        raise TypeError(f"{side} is None; expected spans of one example (e.g. [[0, 10]]) "
                        "or a batch of span sets (e.g. [[[0, 10]], []]).")
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"{side} is a {type(obj).__name__}; expected a list of spans or a "
                        "batch of span lists. JSON strings are accepted as elements of a "
                        "batch (e.g. ['[[0, 10]]']), or convert with json.loads first.")
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        return _batch_side(from_arrow(obj, side))
    module = type(obj).__module__
    if module.startswith("polars"):
        return _batch_side(from_arrow(obj.to_arrow(), side))
    if module.startswith("pandas"):
        return _from_pandas(obj, side)
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, side)
    if isinstance(obj, Mapping) or not isinstance(obj, Sequence):
        raise TypeError(f"{side} is a {type(obj).__name__}; expected a list of spans "
                        "[[start, end], ...] for one example, a list of such lists for a "
                        "batch, or a pyarrow/pandas/Polars column of span lists.")
    return _from_sequence(obj, side)


def _batch_side(pair: tuple[SpanBatch, np.ndarray]) -> Side:
    return Side(pair[0], pair[1], False)


def _from_pandas(obj, side: str) -> Side:
    import pandas as pd

    if isinstance(obj, pd.DataFrame):
        raise TypeError(f"{side} is a DataFrame; pass one column (df['spans']) or use "
                        "df.mycelium.evaluate(ref_col, pred_col).")
    if isinstance(obj, pd.Index):
        obj = pd.Series(obj)
    if isinstance(obj.dtype, pd.ArrowDtype):
        return _batch_side(from_arrow(pa.array(obj.array), side))
    return _batch_side(from_python(obj.tolist(), side))


def _from_numpy(arr: np.ndarray, side: str) -> Side:
    if arr.dtype != object and arr.ndim == 2 and arr.shape[1] == 2:
        return Side(from_python([arr.tolist()], side)[0], np.zeros(1, bool), True)
    if arr.dtype != object and arr.ndim == 3 and arr.shape[2] == 2:
        return _batch_side(from_python(arr.tolist(), side))
    if arr.dtype == object and arr.ndim == 1:
        return _from_sequence(list(arr), side)
    if arr.size == 0 and arr.ndim == 1:
        return Side(SpanBatch.empty(1), np.zeros(1, bool), True)
    raise TypeError(f"{side} is a numpy array of shape {arr.shape} and dtype {arr.dtype}; "
                    "expected shape (n, 2) for one example's spans or (batch, n, 2).")


def _from_sequence(obj: Sequence, side: str) -> Side:
    if _is_batch(obj):
        return _batch_side(from_python(obj, side))
    batch, nulls = from_python([obj], side, single=True)
    return Side(batch, nulls, True)


def _is_batch(obj: Sequence) -> bool:
    """A sequence of span sets (batch) rather than a sequence of spans (one example).

    Decided by the first element: a span is a mapping or a sequence whose first item is
    a scalar; an empty inner sequence is always an empty span set (SPEC section 3).
    """
    if len(obj) == 0:
        return False
    first = obj[0]
    if isinstance(first, Mapping):
        return False
    if first is None or isinstance(first, (str, bytes)) or is_null(first):
        return True
    if isinstance(first, np.ndarray):
        return first.ndim == 2 or first.size == 0 or first.dtype == object
    if isinstance(first, Sequence):
        if len(first) == 0:
            return True
        inner = first[0]
        # A set in a span's place is a (refused, unordered) span: a batch of them.
        return isinstance(inner, (Mapping, Sequence, Set, np.ndarray)) and not isinstance(
            inner, (str, bytes))
    return False


# ------------------------------------------------------------------ Python path

def from_python(examples, side: str, *, single: bool = False) -> tuple[SpanBatch, np.ndarray]:
    """Convert a sequence of span sets (Python objects) into a raw `SpanBatch`.

    Well-formed lists take Arrow's C converter at a given type (`_TYPED`; about half
    the time of letting it infer the type, which was already several times faster than
    a Python loop: benchmarks/README.md, "Entry paths" and "Round five"), then inferring
    the type, then the flat reader for what Arrow cannot type (only empty examples,
    ...); anything else, or any bad value, goes through the checked Python loop, whose
    errors name the side, example and span precisely.
    """
    fast = _via_arrow(examples, side)
    if fast is None:
        fast = _via_flat(examples)
    if fast is not None:
        return fast
    return _checked_loop(examples, side, single)


def _via_flat(examples):
    """Lists (or tuples) of ``[start, end]`` pairs or of ``{"start", "end"}`` dicts
    holding plain Python ints, without Arrow (which cannot type, e.g., a batch whose
    examples are all empty). Each level is flattened with `itertools.chain` and its
    types checked as a set, so a float, a bool, a None or a pair of three anywhere
    returns None (and the checked path decides)."""
    if not isinstance(examples, (list, tuple)) or not set(map(type, examples)) <= _SEQ:
        return None
    read = flat_pairs(examples)
    if read is not None:
        counts, pairs = read
        starts, ends = pairs[:, 0].copy(), pairs[:, 1].copy()
    else:
        spans = list(chain.from_iterable(examples))
        if set(map(type, spans)) != {dict}:
            return None
        try:
            first, second = list(map(_START, spans)), list(map(_END, spans))
            if set(map(type, first)) | set(map(type, second)) != {int}:
                return None
            starts = np.fromiter(first, dtype=np.int64, count=len(first))
            ends = np.fromiter(second, dtype=np.int64, count=len(second))
        except (KeyError, OverflowError):
            return None
        counts = np.fromiter(map(len, examples), dtype=np.int64, count=len(examples))
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return SpanBatch(offsets, starts, ends), np.zeros(counts.size, dtype=bool)


_SEQ = {list, tuple}
_START, _END = itemgetter("start"), itemgetter("end")


#: Spans converted at a given type skip Arrow's type inference, a pass over every value
#: (half the conversion). float64, not int64: at int64 Arrow truncates 1.5 to 1 silently,
#: at float64 it keeps 1.5 (refused by `from_arrow`, as NaN and a missing field are) and
#: refuses an integer it cannot hold exactly, so every value it returns is the one an
#: inferred int64 column holds; a Python bool reads as 0 or 1 there (`numpy_bool_in`
#: finds it). Whatever these cannot read goes the inferring way, so no result or message
#: depends on them. Pairs first, then ``{start, end}`` mappings (other keys ignored, as
#: the inferred struct's other fields are).
_TYPED = (pa.list_(pa.list_(pa.float64())),
          pa.list_(pa.struct([("start", pa.float64()), ("end", pa.float64())])))


def _via_arrow(examples, side: str):
    """Arrow's C converter, at each `_TYPED` type, then inferring the type."""
    for type_ in (*_TYPED, None):
        read = _arrow_read(examples, side, type_)
        if read is not None:
            return read
    return None


def _arrow_read(examples, side: str, type_):
    # Arrow reads a set as a list (its offsets in hash order) and a bool among numbers
    # as 0 or 1; SPEC section 2 refuses both, so the checked loop decides.
    try:
        arr = pa.array(examples, type=type_)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    t = arr.type
    if not pa.types.is_list(t):
        return None
    child = t.value_type
    if pa.types.is_list(child):
        if not (pa.types.is_integer(child.value_type) or pa.types.is_floating(child.value_type)):
            return None
        # a set span reads as a list: only here can one hide
        if set_in_spans(examples, sequences=arr.null_count == 0):
            return None
    elif not pa.types.is_struct(child):
        # Spans read as structs were all mappings: Arrow refuses a set (or any list)
        # among them ("cannot mix list and non-list"), so no set needs looking for.
        return None
    try:
        read = from_arrow(arr, side)
    except (SpanValidationError, TypeError):
        return None  # let the checked loop report it in the user's terms
    b = read[0]
    return None if numpy_bool_in(examples, b.offsets, b.starts, b.ends) else read


def _checked_loop(examples, side: str, single: bool) -> tuple[SpanBatch, np.ndarray]:
    starts: list[int] = []
    ends: list[int] = []
    counts = np.zeros(len(examples), dtype=np.int64)
    nulls = np.zeros(len(examples), dtype=bool)
    for k, spans in enumerate(examples):
        if isinstance(spans, (str, bytes)):
            spans = _parse_json(spans, side, k)
        if spans is None or is_null(spans):
            nulls[k] = True
            continue
        if isinstance(spans, np.ndarray):
            spans = list(spans) if spans.dtype == object else spans.tolist()
        if isinstance(spans, Mapping) or not isinstance(spans, Sequence):
            raise SpanValidationError(
                f"{side} example {k}: expected a span set (a list of [start, end] pairs), "
                f"got {show_value(spans)}. Wrap a single span in a list: [[start, end]].",
                side=side, example=k)
        for j, span in enumerate(spans):
            s, e = _span_pair(span, side, k, j, single)
            starts.append(s)
            ends.append(e)
        counts[k] = len(spans)
    offsets = np.zeros(len(examples) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return SpanBatch(offsets, np.array(starts, dtype=np.int64),
                     np.array(ends, dtype=np.int64)), nulls


def list_literal(value: str):
    """A list written as JSON or as a Python literal (the two ways data files write one).

    Parameters
    ----------
    value : str
        The text of a list: JSON (``[[0, 10]]``) or a Python literal (``[(0, 10)]``,
        ``['a', 'b']``).

    Returns
    -------
    object
        The parsed value (JSON first; the Python literal only when it is not JSON).

    Raises
    ------
    ValueError
        ``value`` is neither; the caller says which field of which record it was.

    Examples
    --------
    >>> list_literal("[[0, 10]]"), list_literal("[('a', 1.5)]")
    ([[0, 10]], [('a', 1.5)])
    """
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return ast.literal_eval(value)
    except SyntaxError as exc:
        raise ValueError(f"not a list literal: {exc}") from None


def _parse_json(text, side: str, k: int):
    try:
        return json.loads(text)
    except (ValueError, TypeError) as exc:
        raise SpanValidationError(
            f"{side} example {k}: could not parse the JSON string {show_value(text)} as a "
            "span "
            f"list ({exc}); expected e.g. '[[0, 10], [12, 15]]' or "
            "'[{\"start\": 0, \"end\": 10}]'.", side=side, example=k) from None


def _span_pair(span, side: str, k: int, j: int, single: bool) -> tuple[int, int]:
    where = f"{side} example {k}, span {j}"
    if isinstance(span, Mapping):
        if "start" not in span or "end" not in span:
            raise SpanValidationError(
                f"{where}: expected a mapping with 'start' and 'end' keys, got keys "
                f"{sorted(map(str, span))}.", side=side, example=k, span=j)
        pair = (span["start"], span["end"])
    elif isinstance(span, Set):
        raise SpanValidationError(
            f"{where}: expected a span [start, end], got the set {show_value(span)}; a "
            "set is unordered, so which offset is the start would depend on hash order. "
            "Write the span as a list or tuple [start, end].", side=side, example=k,
            span=j)
    elif isinstance(span, (Sequence, np.ndarray)) and not isinstance(span, (str, bytes)):
        if len(span) != 2:
            raise SpanValidationError(
                f"{where}: expected a pair [start, end], got {len(span)} values "
                f"{show_value(span)}.", side=side, example=k, span=j)
        pair = (span[0], span[1])
    else:
        hint = (" A single example is a list of spans: wrap it, e.g. [[0, 10]]."
                if single else "")
        raise SpanValidationError(
            f"{where}: expected a span [start, end] or {{'start': s, 'end': e}}, got "
            f"{show_value(span)}.{hint}", side=side, example=k, span=j)
    return (_offset(pair[0], "start", where, side, k, j),
            _offset(pair[1], "end", where, side, k, j))


def _offset(v, name: str, where: str, side: str, k: int, j: int) -> int:
    if isinstance(v, (bool, np.bool_)):
        problem = "a bool"
    elif isinstance(v, (int, np.integer)):
        v = int(v)
        if I64_MIN <= v <= I64_MAX:
            return v
        problem = "beyond the int64 range"
    elif isinstance(v, (float, np.floating)):
        if math.isnan(v):
            problem = "NaN"
        elif not math.isfinite(v) or v != int(v):
            problem = "not an integral number"
        else:
            return _offset(int(v), name, where, side, k, j)
    else:
        problem = f"of type {type(v).__name__}"
    raise SpanValidationError(
        f"{where}: {name} {show_value(v)} is {problem}; expected an integer character "
        "offset (integral floats such as 3.0 are accepted).", side=side, example=k, span=j)


# ------------------------------------------------------------------- Arrow path

def from_arrow(arr, side: str) -> tuple[SpanBatch, np.ndarray]:
    """Convert an Arrow list column of spans into a raw `SpanBatch` (zero-copy reads)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return from_python(arr.to_pylist(), side)
    if not (pa.types.is_list(t) or pa.types.is_large_list(t)
            or pa.types.is_fixed_size_list(t)):
        raise TypeError(f"{side} is an Arrow array of type {t}; expected "
                        "list<struct<start: int64, end: int64>> (mycelium.SPAN_TYPE).")
    nulls = arr.is_null().to_numpy(zero_copy_only=False)
    counts = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    counts = counts.astype(np.int64)
    child = arr.flatten()
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    starts, ends = child_pairs(child, side, offsets)
    return SpanBatch(offsets, starts, ends), nulls


# ---------------------------------------------------------------------- to_spans

def to_spans(obj) -> pa.Array:
    """Convert span lists of any accepted form into a ``pa.Array`` of `SPAN_TYPE`.

    Parameters
    ----------
    obj : batch of span sets
        Lists of pairs or dicts, JSON strings, numpy object arrays, pandas or Polars
        Series, or Arrow arrays (``list``/``large_list``, int32 fields, extra struct
        fields such as RAGTruth's ``label_type``, Parquet's ``element`` child name).
        A single example (a list of spans) gives an array of length one.

    Returns
    -------
    pyarrow.ListArray
        ``list<struct<start: int64, end: int64>>``; spans keep the order given (nothing
        is sorted, merged or dropped); null span lists stay null.

    Raises
    ------
    SpanValidationError
        Malformed spans, negative starts or ``start > end`` (with example and span).

    Examples
    --------
    >>> to_spans([[[0, 4], {"start": 6, "end": 9}], [], None]).to_pylist()
    [[{'start': 0, 'end': 4}, {'start': 6, 'end': 9}], [], None]
    """
    from .spans import SPAN_TYPE, validate

    side = convert(obj, "spans")
    validate(side.batch, "spans", None)
    b = side.batch
    values = pa.StructArray.from_arrays([pa.array(b.starts, pa.int64()),
                                         pa.array(b.ends, pa.int64())], names=["start", "end"])
    offsets = pa.array(b.offsets.astype(np.int32), pa.int32())
    arr = pa.ListArray.from_arrays(offsets, values, type=SPAN_TYPE,
                                   mask=pa.array(side.nulls) if side.nulls.any() else None)
    return arr
