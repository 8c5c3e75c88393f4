"""Input files of ``mycelium evaluate``: JSON lines, CSV and Parquet read into frames.

Values arrive as they are written: JSON integers stay exact integers (a column with a
null is nullable ``Int64``, not float64), CSV cells stay text unless typed reading is
asked for, and every problem names the file (and the line where there is one).
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import sys
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from ..core.profiles import get_profile
from ..errors import MyceliumError
from ..io import read_parquet
from ..io.records import decode_text, json_objects, object_lines, object_lines_in
from ..io.float_parse import parse_float_hook

__all__ = ["READERS", "FileError", "read_frame", "float_rule", "open_jsonl_blocks",
           "chunk_kind", "json_column"]

READERS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}
_I64, _U64 = np.iinfo(np.int64), np.iinfo(np.uint64)
_EXACT_IN_FLOAT = 2**53  # integers up to this magnitude survive a float64 column


class FileError(MyceliumError, ValueError):
    """An input file that cannot be read; the message names the file (and the line)."""


def float_rule(args) -> str:
    """How a command reads its files' JSON numbers: ``--float-parse``, else the rule of
    ``--profile`` (``"pandas-fast"`` for ``mu_shroom``, as its official scorer reads
    them), else ``"exact"``."""
    if getattr(args, "float_parse", None):
        return args.float_parse
    profile = get_profile(getattr(args, "profile", None))
    return profile.float_parse if profile is not None else "exact"


def recorded_rule(args, paths) -> str | None:
    """The ``float_parse`` rule to write into a result's signature, or None.

    A rule is recorded only where it applied: when one of ``paths`` is JSON (JSON lines
    or standard input), whose numbers were read by it; and only when that says something,
    a rule other than the default ``exact``, or ``exact`` chosen in place of the
    profile's own. A CSV or Parquet file's numbers are not read by the rule."""
    rule = float_rule(args)
    if not any(p and _kind(p) == "jsonl" for p in paths):
        return None
    profile = get_profile(getattr(args, "profile", None))
    own = profile.float_parse if profile is not None else "exact"
    return None if rule == own == "exact" else rule


def _kind(path: str) -> str | None:
    """``"jsonl"``, ``"csv"``, ``"parquet"`` or None, by extension (``-``: JSON lines)."""
    if path == "-":
        return "jsonl"
    suffixes = [s.lower() for s in Path(path).suffixes[-2:]]
    packed = bool(suffixes) and suffixes[-1] == ".gz"
    return READERS.get(suffixes[-2] if packed and len(suffixes) == 2 else
                       (suffixes[-1] if suffixes else ""))


def read_frame(path: str, *, infer_types: bool = False,
               float_parse: str = "exact") -> pd.DataFrame:
    """Read a JSON-lines, CSV or Parquet file (by extension; ``-`` = JSON lines on stdin).

    CSV cells are text (an empty cell is null) unless ``infer_types`` lets pandas infer
    numbers and booleans. JSON numbers are read by ``float_parse``
    (`mycelium.io.float_parse`; ``"pandas-fast"`` reads JSON lines record by record).
    Errors raise `FileError` naming the file.
    """
    hook = parse_float_hook(float_parse)
    if path == "-":
        stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: lines end at "\n" only
        return _guarded(lambda: _read_jsonl(stdin, "<stdin>", hook), "<stdin>")
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes[-2:]]
    packed = bool(suffixes) and suffixes[-1] == ".gz"
    kind = READERS.get(suffixes[-2] if packed and len(suffixes) == 2 else
                       (suffixes[-1] if suffixes else ""))
    if kind is None or (packed and kind == "parquet"):
        raise ValueError(f"cannot tell the format of {path!r} from its extension; expected "
                         ".jsonl, .ndjson, .json, .csv (each optionally .gz), .parquet, or "
                         "'-' for JSON lines on standard input.")
    if not p.exists():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if kind == "parquet":
        # Arrow-backed columns: span lists reach the core zero-copy, without a Python loop.
        return _guarded(lambda: read_parquet(p, dtype_backend="pyarrow"), path)
    opener = gzip.open if packed else open

    def read() -> pd.DataFrame:
        if kind == "jsonl" and not packed and hook is None:
            frame = _read_jsonl_file_arrow(p)
            if frame is not None:
                return frame
        with opener(p, "rb") as fh:
            if kind == "jsonl":
                data = fh.read()
                # Arrow reads numbers exactly: another rule reads the records one by one.
                frame = _read_jsonl_arrow(data) if hook is None else None
                return _read_jsonl(io.BytesIO(data), path, hook) if frame is None else frame
            return _read_csv(decode_text(fh.read(), path), path, infer_types)

    return _guarded(read, path)


def _guarded(read, name: str) -> pd.DataFrame:
    """``read()``, with any error it raises told as a `FileError` naming the file."""
    try:
        return read()
    except FileError:
        raise
    except (ValueError, TypeError, pa.ArrowException, EOFError, zlib.error,
            gzip.BadGzipFile, pd.errors.ParserError) as exc:
        message = str(exc) or type(exc).__name__
        if not message.startswith(name):
            message = f"{name}: {message}"
        raise FileError(message) from exc


# --------------------------------------------------------------------- JSON lines

def _read_jsonl_arrow(data: bytes) -> pd.DataFrame | None:
    """The frame `_read_jsonl` makes, read by ``pyarrow.json`` (C, threaded), or None.

    Scalar columns go through `_json_column` as Python values, so they are exactly
    `_read_jsonl`'s; a column of ``[start, end]`` pairs or ``{start, end}`` structs
    stays in Arrow (the span conversion reads it zero-copy) when every span is a
    well-formed pair. Anything whose Python values Arrow could alter (floats, which may
    have been integers; structs with missing fields; ragged or mixed types) or that is not
    one object per line returns None, and the line-by-line reader decides, with its
    file:line errors.
    """
    try:
        table = pa_json.read_json(io.BytesIO(data))
        table.validate(full=True)  # Arrow's JSON reader leaves bad UTF-8 to be found
        return _arrow_frame(table, data)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        return None


def _read_jsonl_file_arrow(path: Path) -> pd.DataFrame | None:
    """`_read_jsonl_arrow` of a file read in blocks: neither the file nor Arrow's parse
    buffers are ever held whole (2,000,000 rows stay well under 2 GB)."""
    try:
        reader = open_jsonl_blocks(path)
        table = pa.Table.from_batches(list(reader), schema=reader.schema)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        try:  # a block that disagrees with the first one's types: read it whole
            table = pa_json.read_json(path)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return None
    try:
        table.validate(full=True)
        if table.num_rows == 0 or table.num_rows != object_lines_in(path):
            return None
        return _arrow_frame(table)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        return None


#: Bytes of JSON lines Arrow parses at a time (None: pyarrow's default block size); the
#: blocks are the chunks of the table read whole and the batches read in turn alike.
_BLOCK_BYTES: int | None = None


def open_jsonl_blocks(path: Path) -> pa_json.JSONStreamingReader:
    """A reader of ``path``'s record batches, one per `_BLOCK_BYTES` block."""
    options = None if _BLOCK_BYTES is None else pa_json.ReadOptions(block_size=_BLOCK_BYTES)
    return pa_json.open_json(path, read_options=options)


def _arrow_frame(table: pa.Table, data: bytes | None = None) -> pd.DataFrame | None:
    if data is not None and (table.num_rows == 0 or table.num_rows != object_lines(data)):
        return None
    columns = {}
    for name in table.column_names:
        col = table.column(name)
        kinds = {chunk_kind(c) for c in col.chunks}
        if kinds <= {"spans"}:
            columns[name] = pd.Series(pd.arrays.ArrowExtensionArray(col))
        elif None not in kinds:
            columns[name] = json_column(col.to_pylist())
        else:
            return None
    return pd.DataFrame(columns)


def chunk_kind(chunk: pa.Array) -> str | None:
    """How a chunk of a JSON column reaches the frame: ``"spans"`` (well-formed span
    pairs, kept in Arrow), ``"values"`` (Python values exactly those ``json.loads``
    gives), or None (Arrow may have altered them: the line-by-line reader decides). A
    column of span chunks only stays in Arrow; one mixing both is read as values."""
    if _span_column(chunk):
        return "spans"
    return "values" if _exact_in_python(chunk.type, chunk) else None


def _span_column(col: pa.Array) -> bool:
    t = col.type
    if not pa.types.is_list(t):
        return False
    items = col.flatten()
    if items.null_count:
        return False
    if t.value_type == pa.list_(pa.int64()):
        return not items.flatten().null_count and (len(items) == 0 or pc.min_max(
            pc.list_value_length(items)).as_py() == {"min": 2, "max": 2})
    if t.value_type == _SPAN_STRUCT:
        return not (items.field("start").null_count or items.field("end").null_count)
    return False


_SPAN_STRUCT = pa.struct([("start", pa.int64()), ("end", pa.int64())])
_SCALARS = (pa.int64(), pa.bool_(), pa.string(), pa.null())


def _exact_in_python(t: pa.DataType, col: pa.Array) -> bool:
    """Whether ``col.to_pylist()`` gives what ``json.loads`` gave for every value."""
    if t in _SCALARS:
        return True
    if pa.types.is_list(t):
        return _exact_in_python(t.value_type, col.flatten())
    if pa.types.is_struct(t):  # a missing key would come back as None: refuse it
        for i in range(t.num_fields):
            field, values = t.field(i), col.field(i)
            if values.null_count or not (
                    _exact_in_python(field.type, values)
                    or (field.name == "prob" and field.type == pa.float64()
                        and _probabilities(values))):
                return False
        return True
    return False


def _probabilities(values: pa.Array) -> bool:
    """Probabilities in [0, 1]: the soft-label checks then never show one (a JSON 1
    read as 1.0 changes nothing else)."""
    p = values.to_numpy(zero_copy_only=False)
    return bool(((p >= 0.0) & (p <= 1.0)).all())


def _read_jsonl(lines, name: str, parse_float=None) -> pd.DataFrame:
    records = [record for _, record in json_objects(lines, name, error=FileError,
                                                    parse_float=parse_float)]
    if not records:
        raise FileError(f"{name}: the file is empty (no JSON lines); expected one JSON "
                        "object per line.")
    names = list(dict.fromkeys(key for record in records for key in record))
    return pd.DataFrame({key: json_column([r.get(key) for r in records]) for key in names})


def json_column(values: list):
    """A column of JSON values with its integers exact (never float64 around a null)."""
    present = [v for v in values if v is not None]
    ints = [isinstance(v, int) and not isinstance(v, bool) for v in present]
    if present and all(ints):
        lo, hi = min(present), max(present)
        if _I64.min <= lo and hi <= _I64.max:
            return _ints(values, "Int64", np.int64, len(present))
        if lo >= 0 and hi <= _U64.max:
            return _ints(values, "UInt64", np.uint64, len(present))
        return pd.Series(values, dtype=object)  # beyond 64 bits: Python ints, exact
    if any(ints):
        floats = all(isinstance(v, float) or i for v, i in zip(present, ints))
        big = any(i and abs(v) > _EXACT_IN_FLOAT for v, i in zip(present, ints))
        if floats and big:  # float64 would round these integers
            return pd.Series(values, dtype=object)
    return pd.Series(values, dtype=None if present else object)


def _ints(values: list, nullable: str, dtype, n_present: int):
    if n_present == len(values):
        return np.array(values, dtype=dtype)
    return pd.array(values, dtype=nullable)


# ---------------------------------------------------------------------------- CSV

def _read_csv(text: str, name: str, infer_types: bool) -> pd.DataFrame:
    if not text.strip():
        raise FileError(f"{name}: the file is empty (no header line); expected a header "
                        "with the column names, then one row per example.")
    # Only empty cells are null: a language code such as "NA" must stay a string. Cells
    # are text by default: ids or keys "007" and "7" are different values.
    return pd.read_csv(io.StringIO(text, newline=""), keep_default_na=False,
                       na_values=[""], dtype=None if infer_types else str)
