"""Shared machinery of the JSONL benchmark loaders: reading lines, typed fields, errors.

Every problem is reported as ``<file>:<line>: field '<name>' ...`` so a user can open
the file at the right place. Values are read with the ``json`` module, so floats are
exact unless a loader asks for another rule (``parse_float``: Mu-SHROOM's files are read
as pandas' fast parser reads them, `mycelium.io.float_parse`).
"""

from __future__ import annotations

import codecs
import json
import math
import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Literal, NoReturn, overload

import numpy as np
import pyarrow as pa

from ..errors import SpanValidationError
from .float_parse import FloatParseError

if TYPE_CHECKING:
    import pandas as pd

_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Where:
    """A position in a JSONL file, for error messages."""

    file: str
    line: int

    def fail(self, field: str, what: str, *, span: int | None = None,
             cls: type[ValueError] = ValueError) -> NoReturn:
        """Raise ``cls`` naming the file, the line, the field (and the span)."""
        at = f"{self.file}:{self.line}: field {field!r}"
        if span is not None:
            at += f", span {span}"
        if cls is SpanValidationError:
            raise SpanValidationError(f"{at}: {what}", span=span)
        raise cls(f"{at}: {what}")


def iter_records(path: Path, *, parse_float=None) -> Iterator[tuple[Where, dict]]:
    """``(where, record)`` for every non-blank line of a JSONL file (1-based lines)."""
    with open(path, "rb") as fh:
        for lineno, record in json_objects(fh, str(path), parse_float=parse_float):
            yield Where(str(path), lineno), record


def json_objects(lines, name: str, *, at=None, error: type[ValueError] = ValueError,
                 parse_float=None) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line of a JSON-lines stream.

    ``lines`` iterates bytes (a file opened in binary mode: lines then end at ``b"\\n"``
    only) or text lines split at ``"\\n"`` only. A line may end in ``"\\r\\n"``; a
    UTF-8 byte order mark at the start is dropped. Raw U+2028, U+2029 and U+0085 are
    legal inside JSON strings, so lines are never split with ``str.splitlines``, which
    would break a record at them. ``at(lineno)`` gives the location in messages (default
    ``"<name>:<lineno>"``); problems raise ``error``. ``parse_float`` is `json.loads`'s
    (None: exact).
    """
    at = at or (lambda n: f"{name}:{n}")
    for lineno, line in enumerate(lines, 1):
        if isinstance(line, bytes):
            line = decode_line(line, at(lineno), error=error, first=lineno == 1)
        elif lineno == 1:
            line = line.removeprefix("\ufeff")
        line = line.removesuffix("\n").removesuffix("\r")  # columns count within the line
        if not line.strip(_JSON_SPACE):
            continue
        try:
            record = json.loads(line, parse_float=parse_float)
        except json.JSONDecodeError as exc:
            raise error(f"{at(lineno)}: not valid JSON ({exc.msg} at column {exc.colno}); "
                        "expected one JSON object per line.") from None
        except FloatParseError as exc:
            raise error(f"{at(lineno)}: {exc}") from None
        if not isinstance(record, dict):
            raise error(f"{at(lineno)}: expected a JSON object per line, got "
                        f"{type(record).__name__} {show(record)}.")
        yield lineno, record


_JSON_SPACE = " \t\r\n"  # JSON's whitespace (str.strip would also take U+2028 and others)


def mapped_bytes(path) -> mmap.mmap | bytes:
    """A file's bytes for a columnar reader: the file mapped read-only (pages come from
    the operating system's cache as they are read, with no copy into a fresh buffer),
    or its bytes read whole where it cannot be mapped (an empty file, a pipe).

    The map supports the buffer protocol (``np.frombuffer``, ``pa.py_buffer``) and
    ``find``, not ``in``; it stays open while an array made from it lives."""
    with open(path, "rb") as fh:
        try:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            return fh.read()


def object_lines(data) -> int:
    """The number of non-blank lines of JSON-lines ``data`` (bytes, or any buffer of
    bytes; as `json_objects` counts them): a columnar reader that returns this many rows
    read one object per line."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if not raw.size:
        return 0
    count = _plain_lines(raw, first=True)
    if count is None:  # some line starts with whitespace: count the blank ones
        return sum(1 for line in raw.tobytes().split(b"\n") if line.strip(b" \t\r"))
    return count + int(raw[-1] != 10)


#: Bytes compared at a time by `_plain_lines`: a block's flags stay in the cache and
#: their memory is reused (a flag array the size of a 100 MB file costs more in page
#: faults than the comparison itself).
_SCAN = 1 << 18


def _plain_lines(raw: np.ndarray, *, first: bool, scan: int = _SCAN) -> int | None:
    """The newlines of the bytes ``raw`` (uint8), or None when a line (the first one only
    when ``first``) may be blank: it starts with whitespace. A raw newline is never
    inside a JSON string, so the newline bytes are the line breaks; they are found
    ``scan`` bytes at a time."""
    if not raw.size:
        return 0
    if first and _SPACE_TABLE[raw[0]]:
        return None
    count = 0
    flags = np.empty(min(scan, raw.size), dtype=bool)
    for a in range(0, raw.size, scan):
        piece = raw[a:a + scan]
        found = flags[:piece.size]
        np.equal(piece, 10, out=found)
        heads = np.flatnonzero(found)
        count += heads.size
        heads += a + 1  # the byte after each newline: the next line's first
        if _SPACE_TABLE[raw[heads[heads < raw.size]]].any():
            return None
    return count


_SPACE_TABLE = np.zeros(256, dtype=bool)
_SPACE_TABLE[list(b" \t\r\n")] = True


def object_lines_in(path, chunk: int = 1 << 24) -> int:
    """`object_lines` of a file, read in chunks (the file is never held whole)."""
    newlines, last = 0, b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            # A line starts at the block's first byte when the last block ended one.
            count = _plain_lines(np.frombuffer(block, dtype=np.uint8),
                                 first=last.endswith(b"\n"))
            if count is None:
                fh.seek(0)
                return sum(1 for line in fh if line.strip(b" \t\r\n"))
            newlines += count
            last = block
    return newlines + (not last.endswith(b"\n"))  # an empty file: 0


def decode_line(raw: bytes, at: str, *, error: type[ValueError] = ValueError,
                first: bool = False) -> str:
    """One line of a UTF-8 file as text (a leading byte order mark dropped on the first)."""
    if first and raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(_not_utf8(at, raw[exc.start], exc.start)) from None


def decode_text(data: bytes, name: str) -> str:
    """A whole UTF-8 file as text; a bad byte is reported with its file and line."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(_not_utf8(f"{name}:{line}", data[exc.start], exc.start - start)
                         ) from None


def _not_utf8(at: str, byte: int, pos: int) -> str:
    return (f"{at}: not valid UTF-8 (byte 0x{byte:02x} at byte {pos + 1} of the line); "
            "expected UTF-8 text; fix by saving the file as UTF-8.")


def jsonl_files(paths, patterns=("*.jsonl",), kind: str = "a .jsonl file") -> list[Path]:
    """One path, several, or directories (every file matching ``patterns`` below, sorted)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for pattern in patterns for f in p.rglob(pattern))
            if not found:
                raise FileNotFoundError(f"No {' or '.join(patterns)} files under the "
                                        f"directory {str(p)!r}.")
            files.extend(found)
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"{str(p)!r} does not exist; expected {kind} or a "
                                    "directory of them.")
    if not files:
        raise ValueError(f"No paths given; pass {kind}, a list of files or a directory.")
    return files


# ------------------------------------------------------------------------ fields

@overload
def text(record: dict, name: str, where: Where, *, required: Literal[True]) -> str: ...
@overload
def text(record: dict, name: str, where: Where, *, required: bool = False) -> str | None: ...
def text(record: dict, name: str, where: Where, *, required: bool = False) -> str | None:
    """A string field (None when absent or null, unless required)."""
    value = record.get(name)
    if value is None:
        if required:
            where.fail(name, f"is {'null' if name in record else 'missing'}; expected a "
                       "string.")
        return None
    if not isinstance(value, str):
        where.fail(name, f"expected a string, got {type(value).__name__} {show(value)}.")
    return value


@overload
def identifier(record: dict, name: str, where: Where, *, required: Literal[True]) -> str: ...
@overload
def identifier(record: dict, name: str, where: Where, *,
               required: bool = False) -> str | None: ...
def identifier(record: dict, name: str, where: Where, *, required: bool = False) -> str | None:
    """An id: a string, or an integer (stored as its decimal string)."""
    value = record.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return text(record, name, where, required=required)


def number(record: dict, name: str, where: Where) -> float | None:
    """A real-number field as float (None when absent or null)."""
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        where.fail(name, f"expected a number, got {type(value).__name__} {show(value)}.")
    return float(value)


def flag(value, field: str, where: Where, span: int) -> bool:
    """A boolean flag of a span; absent or null means False."""
    if value is None:
        return False
    if not isinstance(value, bool):
        where.fail(field, f"expected true or false, got {show(value)}.", span=span)
    return value


def offset(value, name: str, field: str, where: Where, span: int) -> int:
    """A character offset: an int (integral floats such as 3.0 are accepted)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if _I64_MIN <= value <= _I64_MAX:
            return value
        problem = "beyond the int64 range"
    elif isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    else:
        problem = ("a bool" if isinstance(value, bool) else
                   "not an integral number" if isinstance(value, float) else
                   f"of type {type(value).__name__}")
    where.fail(field, f"{name} {show(value)} is {problem}; expected an integer character "
               "offset.", span=span, cls=SpanValidationError)


def pair(span, field: str, where: Where, j: int) -> tuple[int, int]:
    """``[start, end]`` or ``{"start": s, "end": e}`` as two ints (no range checks)."""
    if isinstance(span, dict):
        if "start" not in span or "end" not in span:
            where.fail(field, f"expected keys 'start' and 'end', got keys {sorted(span)}.",
                       span=j, cls=SpanValidationError)
        s, e = span["start"], span["end"]
    elif isinstance(span, list) and len(span) == 2:
        s, e = span
    else:
        where.fail(field, f"expected a span [start, end], got {show(span)}.", span=j,
                   cls=SpanValidationError)
    return offset(s, "start", field, where, j), offset(e, "end", field, where, j)


def check_bounds(s: int, e: int, text_len: int | None, field: str, where: Where, j: int):
    """Require ``0 <= start <= end`` and, when the text is known, ``end <= len(text)``."""
    if s < 0 or s > e:
        where.fail(field, f"[{s}, {e}) is not a span; expected 0 <= start <= end "
                   "(half-open [start, end) offsets).", span=j, cls=SpanValidationError)
    if text_len is not None and e > text_len:
        where.fail(field, f"end {e} is past the end of the text (length {text_len}); "
                   "expected end <= len(text) in Python code points.", span=j,
                   cls=SpanValidationError)


def span_list(value, field: str, where: Where) -> list:
    """A list field holding spans (null or absent handled by the caller)."""
    if not isinstance(value, list):
        where.fail(field, f"expected a list of spans, got {type(value).__name__} "
                   f"{show(value)}.", cls=SpanValidationError)
    return value


def label_objects(record: dict, text_len: int, where: Where, missing: str
                  ) -> Iterator[tuple[int, dict, int, int]]:
    """``(j, label, start, end)`` for each object of a record's ``labels`` list (RAGTruth's
    layout and its derivatives'), each an object with in-bounds ``start``/``end``; a
    missing or null list is an error saying it expected ``missing``."""
    if record.get("labels") is None:
        where.fail("labels", f"is missing; expected {missing}.")
    for j, label in enumerate(span_list(record["labels"], "labels", where)):
        if not isinstance(label, dict):
            where.fail("labels", f"expected a label object with 'start' and 'end', got "
                       f"{show(label)}.", span=j, cls=SpanValidationError)
        s, e = pair(label, "labels", where, j)
        check_bounds(s, e, text_len, "labels", where, j)
        yield j, label, s, e


def show(x) -> str:
    s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."


# ----------------------------------------------------------------- Arrow columns

class StructLists:
    """Builds a ``list<struct<...>>`` Arrow column row by row, without per-span dicts."""

    def __init__(self, list_type: pa.ListType) -> None:
        self.type = list_type
        self.names = [f.name for f in list_type.value_type]
        self.values: dict[str, list] = {n: [] for n in self.names}
        self.counts: list[int] = []
        self.valid: list[bool] = []

    def append(self, rows: list[tuple]) -> None:
        """One list of structs, each a tuple in field order."""
        for name, column in zip(self.names, zip(*rows) if rows else ()):
            self.values[name].extend(column)
        self.counts.append(len(rows))
        self.valid.append(True)

    def append_null(self) -> None:
        self.counts.append(0)
        self.valid.append(False)

    def finish(self) -> pa.Array:
        struct_type = self.type.value_type
        children = [pa.array(self.values[f.name], f.type) for f in struct_type]
        values = pa.StructArray.from_arrays(children, fields=list(struct_type))
        return list_array(self.counts, values, self.valid, self.type)


#: Arrow's primitive types whose values buffer numpy reads as is.
_PRIMITIVE = {pa.int32(): np.int32, pa.int64(): np.int64, pa.uint64(): np.uint64,
              pa.float64(): np.float64}


def primitive_values(array) -> np.ndarray:
    """The values of an Arrow integer or float64 array without nulls, as numpy reads its
    values buffer (read-only, no copy); other arrays as ``to_numpy`` converts them.

    Any ``to_numpy`` (or ``np.asarray``) of an Arrow array first initialises pyarrow's
    pandas converters, which imports pandas when it is installed: about 0.3 s of CPU in a
    fresh process that never needs pandas (the `mycelium.protocols.mushroom` drop-in).

    Examples
    --------
    >>> primitive_values(pa.chunked_array([pa.array([1, 2]), pa.array([3])])).tolist()
    [1, 2, 3]
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    dtype = _PRIMITIVE.get(array.type)
    if dtype is None or array.null_count:
        return array.to_numpy(zero_copy_only=False)
    if len(array) == 0:
        return np.empty(0, dtype=dtype)
    width = np.dtype(dtype).itemsize
    out = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                        offset=array.offset * width)
    out.flags.writeable = False  # Arrow's memory: never written through this view
    return out


def list_array(counts, values: pa.Array, valid, list_type) -> pa.Array:
    """A list array from per-row lengths (nulls where ``valid`` is False)."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64), out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError(f"{offsets[-1]} list items exceed one Arrow list array's "
                         "capacity (2**31 - 1); read the files in smaller groups.")
    mask = ~np.asarray(valid, dtype=bool)
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values, type=list_type,
                                    mask=pa.array(mask) if mask.any() else None)


def to_pandas(table: pa.Table) -> "pd.DataFrame":
    """Nested columns as ``pd.ArrowDtype``; the rest as pandas converts them by default."""
    import pandas as pd  # here: the Mu-SHROOM scorer reads with this module, without pandas

    def mapper(t: pa.DataType):
        return pd.ArrowDtype(t) if pa.types.is_nested(t) else None

    return table.to_pandas(types_mapper=mapper)
