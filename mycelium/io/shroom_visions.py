"""SHROOM-Visions 2026 JSONL files: records read as the kit's scorer reads them, checked,
flattened into typed soft spans, and `read_shroom_visions`, the typed pandas frame.

A gold line holds ``id``, ``response`` and ``labels`` = ``[{start, end, prob, label}]``
(half-open code points; ``prob`` = share of annotators), and with the kit's copy of the
data ``raw_annots``; a prediction line holds ``id`` and ``labels``. Numbers are read by
pandas' fast float parser by default, as the kit's ``pandas.read_json`` reads them
(`mycelium.io.float_parse`).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..errors import MyceliumError
from .records import json_objects, list_array, primitive_values, show, to_pandas
from .float_parse import FloatParseError, key_value_starts, pandas_fast_values, parse_float_hook
from .provenance import attach_dataset

if TYPE_CHECKING:  # pandas is loaded only by read_shroom_visions (the scorer needs none)
    import pandas as pd

__all__ = ["VISIONS_LABELS", "VISIONS_SPAN_TYPE", "VisionsInputError", "VisionsSide",
           "read_visions_records", "read_visions_side", "visions_side", "read_shroom_visions"]

#: The kit's closed label set (scorer.py 16), in a fixed order (their codes 0-4).
VISIONS_LABELS = ("invention", "mischaracterization", "OCR", "miscounting", "other")

#: Arrow type of typed soft labels: ``list<struct<start, end, prob, label>>``.
VISIONS_SPAN_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                        ("prob", pa.float64()), ("label", pa.string())]))

_INT_ID = re.compile(r"-?[0-9]+")
_KIT = "the SHROOM-Visions kit's scorer"


class VisionsInputError(MyceliumError, ValueError):
    """A SHROOM-Visions file the kit's scorer refuses (or that mycelium refuses where the
    kit would score nonsense); ``rule`` names the rule, and the message says where.

    Examples
    --------
    >>> err = VisionsInputError("pred.jsonl: no 'labels' field.", rule="labels-field")
    >>> err.rule
    'labels-field'
    """

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(f"{message} [rule: {rule}]")
        self.rule = rule


def read_visions_records(path: str | os.PathLike[str], *,
                         float_parse: str = "pandas-fast") -> tuple[list[dict], list[int]]:
    """The records of a JSONL file and the line number of each.

    Parameters
    ----------
    path : str or path
        A gold or prediction file, one JSON object per line.
    float_parse : {"pandas-fast", "exact"}, default "pandas-fast"
        How numbers with a fraction or exponent become floats; ``"pandas-fast"`` is how
        the kit's ``pandas.read_json`` reads them (`mycelium.io.float_parse`).

    Returns
    -------
    records : list of dict
    lines : list of int
        The 1-based line of each record.

    Raises
    ------
    VisionsInputError
        The file cannot be read, or a line is not a JSON object (rule ``jsonl``).
    """
    path = Path(path)
    return _records(_bytes(path), path, parse_float_hook(float_parse))


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise VisionsInputError(f"{path}: cannot read the file ({exc.strerror}).",
                                rule="jsonl") from None


class _NotJsonl(VisionsInputError):
    def __init__(self, message: str) -> None:
        super().__init__(message, rule="jsonl")


def _records(data: bytes, path: Path, hook) -> tuple[list[dict], list[int]]:
    whole = _whole(data, hook)
    if whole is not None:
        return whole
    pairs = list(json_objects(io.BytesIO(data), str(path), at=lambda n: f"{path}, line {n}",
                              error=_NotJsonl, parse_float=hook))
    return [r for _, r in pairs], [n for n, _ in pairs]


def _whole(data: bytes, hook) -> tuple[list[dict], list[int]] | None:
    """Every line parsed in one call to `json` (as one array), when the file is plain
    JSON lines of objects; None otherwise (then each line is parsed alone, and a problem
    is reported with its line)."""
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    numbers = [n for n, line in enumerate(lines, 1) if line.strip(b" \t\r")]
    try:
        records = json.loads(b"[" + b",".join(lines[n - 1] for n in numbers) + b"]",
                             parse_float=hook)
    except (ValueError, FloatParseError):
        return None
    if len(records) != len(numbers) or not all(type(r) is dict for r in records):
        return None
    return records, numbers


def read_visions_side(path: str | os.PathLike[str], *, role: str,
                      names: list[str] | None = None, ignore_case: bool = False
                      ) -> VisionsSide:
    """`visions_side` of a file, its probabilities read by pandas' fast parser.

    A file that plainly passes every check is read by ``pyarrow.json`` and checked
    column by column (`_arrow_side`; with ``ignore_case`` it is not). Any other file is
    read by `json` and checked record by record, which names what is wrong: the lines
    are parsed at C speed, then every ``"prob":`` value is found in the file's bytes and
    read by `mycelium.io.float_parse.pandas_fast_values` at once. The values found must
    be as many as the spans and, one by one, within 1e-14 of the exact ones; otherwise
    (a ``"prob"`` key elsewhere in the file, or more than 15 fraction digits that
    matter) the file is read again with the parser's rule applied to every number
    (`read_visions_records`). Both readings give the same side, bit for bit.
    """
    path = Path(path)
    data = _bytes(path)
    if not ignore_case:
        side = _arrow_side(data, role=role, names=names)
        if side is not None:
            return side
    return _json_side(data, path, role=role, names=names, ignore_case=ignore_case)


def _json_side(data: bytes, path: Path, *, role: str, names: list[str] | None,
               ignore_case: bool) -> VisionsSide:
    """`read_visions_side` by `json`, record by record."""
    records, lines = _records(data, path, None)
    side = visions_side(records, role=role, name=str(path), lines=lines, names=names,
                        ignore_case=ignore_case)
    fast = _fast_probs(data, side.probs)
    if fast is not None:
        return dataclasses.replace(side, probs=fast)
    records, lines = _records(data, path, parse_float_hook("pandas-fast"))
    return visions_side(records, role=role, name=str(path), lines=lines, names=names,
                        ignore_case=ignore_case)


def _fast_probs(data: bytes, exact: np.ndarray) -> np.ndarray | None:
    """The spans' probabilities as the kit's ``pandas.read_json`` reads them, in span
    order, or None when the bytes do not vouch for them (see `read_visions_side`)."""
    starts = key_value_starts(data, "prob")
    if starts.size != exact.size:
        return None
    try:
        values, _ = pandas_fast_values(np.frombuffer(data, dtype=np.uint8), starts)
    except FloatParseError:
        return None
    if not np.allclose(values, exact, rtol=1e-14, atol=1e-14, equal_nan=True):
        return None
    return values


# ------------------------------------------------------------ the columnar reading

_BLANK_START = np.zeros(256, dtype=bool)  # a line starting so may be blank
_BLANK_START[[32, 9, 13]] = True
_FRACTION_OR_EXPONENT = np.zeros(256, dtype=bool)  # what makes a JSON number a float
_FRACTION_OR_EXPONENT[[ord("."), ord("e"), ord("E")]] = True
_INT_ID_RE2 = "^-?[0-9]+$"  # _INT_ID for pyarrow.compute (RE2: ASCII digits, $ at end)


def _arrow_side(data: bytes, *, role: str, names: list[str] | None) -> VisionsSide | None:
    """`visions_side` of a file's records, read by ``pyarrow.json`` and checked column by
    column; None when the file is not plainly one that `visions_side` takes as it is.

    Each of `visions_side`'s rules has a columnar form: ``id`` a string or int64 column
    without nulls (integer-looking strings become ints, as there); ``labels`` a list
    column of structs whose ``start`` and ``end`` are int64 (every token a JSON integer),
    ``prob`` double or int64, ``label`` string, none of them null, predicted labels among
    `VISIONS_LABELS`, gold labels outside them numbered in order of first appearance;
    a gold ``response`` string column; ``raw_annots`` on every line or none. A
    prediction's ``prob`` tokens must all have a fraction or an exponent (``type(prob)
    is float`` in `json`), and every ``prob`` is read by pandas' fast parser as in
    `read_visions_side`.

    Where ``pyarrow.json`` and `json` could read one file differently, None is
    returned, and the caller reads the file with `json` record by record (which also
    says what is wrong with it): arrow refusing the file (a repeated key, a type
    changing between lines, invalid text), more or fewer records than non-blank lines
    (two objects on one line), a number that is not finite anywhere (arrow reads
    ``Inf``, `json` does not), or anything else not as above.
    """
    import pyarrow.compute as pc
    from pyarrow import json as pa_json

    try:
        table = pa_json.read_json(pa.BufferReader(data))
    except (pa.ArrowException, ValueError):
        return None
    lines = _line_numbers(data)
    if table.num_rows == 0 or table.num_rows != len(lines):
        return None
    if not all(_all_finite(chunk) for column in table.columns for chunk in column.chunks):
        return None
    gold = role == "reference"
    columns = set(table.schema.names)
    if not {"id", "labels"} <= columns or (gold and "response" not in columns):
        return None
    ids = table.column("id").combine_chunks()
    if ids.null_count or not (pa.types.is_string(ids.type) or pa.types.is_int64(ids.type)):
        return None
    spans_of = table.column("labels").combine_chunks()
    if spans_of.null_count or not pa.types.is_list(spans_of.type):
        return None
    bounds = primitive_values(spans_of.offsets).astype(np.int64)
    offsets = bounds - bounds[0]
    total = int(offsets[-1])
    flat = spans_of.flatten()
    if total == 0:
        starts = ends = codes = np.zeros(0, dtype=np.int64)
        probs = np.zeros(0, dtype=np.float64)
        new_labels: list[str] = []
    else:
        fields = {f.name: f.type for f in flat.type} if pa.types.is_struct(flat.type) else {}
        if (flat.null_count
                or not {"start", "end", "prob", "label"} <= set(fields)
                or not pa.types.is_int64(fields["start"])
                or not pa.types.is_int64(fields["end"])
                or not (pa.types.is_float64(fields["prob"]) or pa.types.is_int64(fields["prob"]))
                or not pa.types.is_string(fields["label"])):
            return None
        child = dict(zip([f.name for f in flat.type], flat.flatten()))
        if any(child[k].null_count for k in ("start", "end", "prob", "label")):
            return None
        read = _fast_probs_of(data, child["prob"], floats_only=not gold)
        if read is None:
            return None
        probs = read
        starts = primitive_values(child["start"])
        ends = primitive_values(child["end"])
        names_now = names if names is not None else list(VISIONS_LABELS)
        labelled = _label_codes(child["label"], names_now, gold)
        if labelled is None:
            return None
        codes, new_labels = labelled
    lengths = annotated = None
    if gold:
        texts = table.column("response").combine_chunks()
        if texts.null_count or not pa.types.is_string(texts.type):
            return None
        lengths = primitive_values(pc.utf8_length(texts)).astype(np.int64)
        if "raw_annots" in columns:
            annotated = _annotated(table.column("raw_annots").combine_chunks())
            if annotated is None:
                return None
    id_list = ids.to_pylist()
    id_array = ids
    if pa.types.is_string(ids.type) and pc.all(pc.match_substring_regex(
            ids, _INT_ID_RE2)).as_py():
        # Quirk of the kit, as in `visions_side`: integer-looking ids are read as ints.
        id_list = [int(i) for i in id_list]
        id_array = None
    names = names if names is not None else list(VISIONS_LABELS)
    names.extend(new_labels)
    return VisionsSide(id_list, lines, offsets, starts.astype(np.int64, copy=False),
                       ends.astype(np.int64, copy=False), probs, codes, names,
                       text_lengths=lengths, annotated=annotated, id_array=id_array)


def _line_numbers(data: bytes) -> list[int]:
    """The 1-based numbers of the lines that are not blank (as `_whole` counts them).

    On numpy: one pass over the bytes for the newlines (``bytes.count`` of a two-byte
    pattern, four times, took six times as long), then only the lines that start with
    white space are looked at one by one."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    newline = np.flatnonzero(buffer == 10)
    starts = np.concatenate(([0], newline + 1))
    ends = np.append(newline, buffer.size)
    if data.startswith(b"\xef\xbb\xbf"):
        starts[0] = 3
    filled = starts < ends
    maybe = np.flatnonzero(filled)
    maybe = maybe[_BLANK_START[buffer[starts[maybe]]]]
    for k in maybe.tolist():  # rare: a line starting with white space
        filled[k] = bool(data[starts[k]:ends[k]].strip(b" \t\r"))
    return (np.flatnonzero(filled) + 1).tolist()


def _all_finite(array: pa.Array, depth: int = 0) -> bool:
    """No float anywhere in ``array`` (lists and structs included) is infinite or NaN;
    False also past 64 levels of nesting (where `json` would stop on its recursion
    limit, and arrow does not)."""
    kind = array.type
    if depth > 64:
        return False
    if pa.types.is_floating(kind):
        import pyarrow.compute as pc

        return pc.all(pc.is_finite(array)).as_py() is not False
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _all_finite(array.flatten(), depth + 1)
    if pa.types.is_struct(kind):
        return all(_all_finite(c, depth + 1) for c in array.flatten())
    return True


def _fast_probs_of(data: bytes, exact: pa.Array, *, floats_only: bool) -> np.ndarray | None:
    """The spans' probabilities read by pandas' fast parser (`_fast_probs`, against the
    values arrow read), or None; with ``floats_only``, None too when a ``prob`` token is
    a JSON integer (an int in `json`, which the kit refuses in a prediction)."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    at = key_value_starts(data, "prob")
    if at.size != len(exact):
        return None
    try:
        values, ends = pandas_fast_values(buffer, at)
    except FloatParseError:
        return None
    reference = primitive_values(exact).astype(np.float64)
    if not np.allclose(values, reference, rtol=1e-14, atol=1e-14, equal_nan=True):
        return None
    if floats_only and values.size:
        width = ends - at
        if (width <= 0).any():
            return None
        first = np.concatenate(([0], np.cumsum(width)[:-1]))
        byte = np.repeat(at - first, width) + np.arange(int(width.sum()), dtype=np.int64)
        if not np.logical_or.reduceat(_FRACTION_OR_EXPONENT[buffer[byte]], first).all():
            return None
    return values


def _label_codes(labels: pa.Array, names: list[str], gold: bool
                 ) -> tuple[np.ndarray, list[str]] | None:
    """The codes of the spans' labels in ``names``, and the gold's labels not in it (in
    order of first appearance, as `visions_side` numbers them); None when a predicted
    label is not one of `VISIONS_LABELS`."""
    encoded = labels.dictionary_encode()
    index = primitive_values(encoded.indices).astype(np.int64)
    seen = encoded.dictionary.to_pylist()
    first = np.full(len(seen), index.size, dtype=np.int64)
    np.minimum.at(first, index, np.arange(index.size, dtype=np.int64))
    code = {n: k for k, n in enumerate(names)}
    new: list[str] = []
    mapping = np.zeros(len(seen), dtype=np.int64)
    for d in np.argsort(first, kind="stable").tolist():
        lab = seen[d]
        if not gold and lab not in VISIONS_LABELS:
            return None
        if lab not in code:
            code[lab] = len(names) + len(new)
            new.append(lab)
        mapping[d] = code[lab]
    return mapping[index], new


def _annotated(raw: pa.Array) -> np.ndarray | None:
    """Per line, whether more than half of ``raw_annots``'s values are not ``'|'``
    (scorer.py 121); None unless every line has the same string-valued keys."""
    import pyarrow.compute as pc

    if raw.null_count or not pa.types.is_struct(raw.type):
        return None
    values = raw.flatten()
    if any(v.null_count or not pa.types.is_string(v.type) for v in values):
        return None
    marked = np.zeros(len(raw), dtype=np.int64)
    for v in values:
        marked += primitive_values(pc.cast(pc.not_equal(v, "|"), pa.int64()))
    return marked > len(values) / 2


@dataclass(frozen=True)
class VisionsSide:
    """One file's records as flat arrays: item k owns spans ``offsets[k]:offsets[k+1]``
    (in list order), ``labels`` are codes into ``names``."""

    ids: list
    lines: list[int]
    offsets: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    probs: np.ndarray
    labels: np.ndarray
    names: list[str]
    texts: list[str] | None = None
    raw_annots: list[dict] | None = None
    #: ``len(text)`` per record, when the texts themselves were not kept.
    text_lengths: np.ndarray | None = None
    #: Per record, whether more than half of its ``raw_annots`` annotators marked
    #: something, when the ``raw_annots`` themselves were not kept.
    annotated: np.ndarray | None = None
    #: ``ids`` as the Arrow array they were read from (strings or int64), when the file
    #: was read column-wise and the ids kept as written: paired without converting them
    #: back (``pa.array`` of Python objects loads pandas).
    id_array: pa.Array | None = dataclasses.field(default=None, repr=False, compare=False)

    def spans(self) -> tuple[np.ndarray, ...]:
        """``(offsets, starts, ends, probs, labels)``."""
        return self.offsets, self.starts, self.ends, self.probs, self.labels


def visions_side(records: list[dict], *, role: str, name: str, lines: list[int] | None = None,
                 names: list[str] | None = None, ignore_case: bool = False) -> VisionsSide:
    """Check and flatten the records of a gold (``role="reference"``) or prediction
    (``role="prediction"``) file, as the kit reads them.

    Predicted spans pass the kit's checks (scorer.py 8-18, 35-36): a dict with
    ``type(start) is int``, ``type(end) is int``, ``type(prob) is float``, ``type(label)
    is str`` and a label of `VISIONS_LABELS` (any case, mapped to its spelling there,
    with ``ignore_case``). Gold spans are not checked by the kit; they need the fields
    its loops read. ``names`` (shared by both sides) grows with every other gold label.

    Raises
    ------
    VisionsInputError
        Naming the rule: ``fields`` (a field the kit reads is missing or of the wrong
        type), ``labels-field``, ``span-type``, ``label-set``, ``ids``.
    """
    lines = lines if lines is not None else list(range(1, len(records) + 1))
    names = names if names is not None else list(VISIONS_LABELS)
    code = {n: k for k, n in enumerate(names)}
    folded = {n.lower(): n for n in VISIONS_LABELS}
    gold = role == "reference"
    if not records:
        raise VisionsInputError(f"{name}: no records; the kit reads at least one line.",
                                rule="fields")
    if not gold and not any("labels" in r for r in records):
        # Quirk of the kit (scorer.py 26-27): a prediction file needs a labels column.
        raise VisionsInputError(f"{name}: contains no predicted label (no 'labels' field "
                                "on any line); expected {'id', 'labels'} per line.",
                                rule="labels-field")
    ids = [_id(r, name, n) for r, n in zip(records, lines)]
    if all(isinstance(i, int) or (isinstance(i, str) and _INT_ID.fullmatch(i)) for i in ids):
        # Quirk of the kit: pandas reads integer-looking ids as int64 (they then sort,
        # and pair, as numbers).
        ids = [int(i) for i in ids]
    counts = [0]
    starts: list[int] = []
    ends: list[int] = []
    probs: list[float] = []
    labels: list[int] = []
    texts: list[str] = []
    check = _gold_span if gold else _pred_span
    known = len(VISIONS_LABELS)
    for r, n, i in zip(records, lines, ids):
        if gold:
            text = r.get("response")
            if not isinstance(text, str):
                raise VisionsInputError(f"{name}, line {n}: id {i!r}: 'response' is "
                                        f"{show(text)}; expected the item's text (a string).",
                                        rule="fields")
            texts.append(text)
        spans = r.get("labels")
        if type(spans) is not list:
            spans = _span_list(r, f"{name}, line {n}: id {i!r}")
        for j, span in enumerate(spans):
            # The common case in one test; anything else takes the checks that explain.
            try:
                s, e, p, lab = span["start"], span["end"], span["prob"], span["label"]
                c = code.get(lab, -1) if type(lab) is str else -1
                plain = (type(span) is dict and type(s) is int and type(e) is int
                         and (type(p) is float or (gold and type(p) is int))
                         and (0 <= c < known or (gold and c >= 0)) and not ignore_case)
            except (KeyError, TypeError, IndexError):
                plain = False
            if not plain:
                s, e, p, lab = check(span, f"{name}, line {n}: id {i!r}, labels span {j}")
                c = _code(lab, code, names, folded if ignore_case else None, gold,
                          f"{name}, line {n}: id {i!r}, labels span {j}")
            starts.append(s)
            ends.append(e)
            probs.append(p)
            labels.append(c)
        counts.append(len(spans))
    raw = _raw_annots(records, lines, name) if gold else None
    offsets = np.cumsum(np.asarray(counts, dtype=np.int64))
    return VisionsSide(ids, list(lines), offsets, np.asarray(starts, dtype=np.int64),
                       np.asarray(ends, dtype=np.int64), np.asarray(probs, dtype=np.float64),
                       np.asarray(labels, dtype=np.int64), names, texts if gold else None,
                       raw)


def _code(lab: str, code: dict, names: list, folded: dict | None, gold: bool,
          at: str) -> int:
    """The code of a checked span's label (a new gold label gets the next one)."""
    if folded is not None and lab.lower() in folded:
        lab = folded[lab.lower()]
    if not gold and lab not in VISIONS_LABELS:
        raise VisionsInputError(
            f"{at}: label {lab!r} is not one of {', '.join(VISIONS_LABELS)}; the kit "
            "refuses the whole file (scorer.py 16); fix the label, or pass "
            "--labels-ignore-case if only its case differs.", rule="label-set")
    if lab not in code:
        code[lab] = len(names)
        names.append(lab)
    return code[lab]


def _id(record: dict, name: str, line: int):
    if "id" not in record:
        raise VisionsInputError(f"{name}, line {line}: no 'id'; expected an id on every "
                                "line.", rule="fields")
    i = record["id"]
    if isinstance(i, bool) or not isinstance(i, (str, int)):
        raise VisionsInputError(f"{name}, line {line}: id {show(i)}; expected a string "
                                "or an integer.", rule="fields")
    return i


def _span_list(record: dict, where: str) -> list:
    value = record.get("labels", None)
    if isinstance(value, list):
        return value
    if value in ("", {}):
        # Quirk of the kit: it iterates the value, so an empty string or object is
        # read as no spans.
        return []
    raise VisionsInputError(f"{where}: 'labels' is {show(value)}; expected a list of "
                            "{start, end, prob, label} (use [] for none).", rule="fields")


_TYPES = (("start", int), ("end", int), ("prob", float), ("label", str))


def _pred_span(span, at: str) -> tuple[int, int, float, str]:
    # Quirk of the kit (scorer.py 8-15): exact types, so 1 is not a prob, 0.0 not an
    # offset and true not an integer; one bad span refuses the whole file.
    if type(span) is not dict:
        raise VisionsInputError(f"{at}: {show(span)} is not an object; expected "
                                "{start, end, prob, label}; the kit refuses the whole file "
                                "(scorer.py 9).", rule="span-type")
    for key, kind in _TYPES:
        if key not in span:
            raise VisionsInputError(f"{at}: no {key!r} in {show(span)}; the kit refuses the "
                                    "whole file (scorer.py 12).", rule="span-type")
        if type(span[key]) is not kind:
            fix = {"prob": " (write 1 as 1.0)", "start": "", "end": ""}.get(key, "")
            raise VisionsInputError(
                f"{at}: {key} is {type(span[key]).__name__} {show(span[key])}; the kit "
                f"accepts only type({key}) is {kind.__name__} (scorer.py 14) and refuses the "
                f"whole file; fix by writing a JSON {_json_kind(kind)}{fix}.",
                rule="span-type")
    return span["start"], span["end"], span["prob"], span["label"]


def _json_kind(kind: type) -> str:
    return {int: "integer", float: "number with a fraction", str: "string"}[kind]


def _gold_span(span, at: str) -> tuple[int, int, float, str]:
    if not isinstance(span, dict):
        raise VisionsInputError(f"{at}: {show(span)} is not an object; expected "
                                "{start, end, prob, label}.", rule="fields")
    for key in ("start", "end", "prob", "label"):
        if key not in span:
            raise VisionsInputError(f"{at}: no {key!r}; the kit reads it (scorer.py "
                                    "62-64, 83-85).", rule="fields")
    s, e, p, lab = span["start"], span["end"], span["prob"], span["label"]
    if not all(isinstance(v, int) for v in (s, e)):
        raise VisionsInputError(f"{at}: start and end are {show(s)}, {show(e)}; expected "
                                "integers.", rule="fields")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise VisionsInputError(f"{at}: prob is {show(p)}; expected a number.", rule="fields")
    if not isinstance(lab, str):
        raise VisionsInputError(f"{at}: label is {show(lab)}; expected a string.",
                                rule="fields")
    return int(s), int(e), float(p), lab


def _raw_annots(records: list[dict], lines: list[int], name: str) -> list[dict] | None:
    """Every record's ``raw_annots`` (a dict), or None when no record has one."""
    have = ["raw_annots" in r for r in records]
    if not any(have):
        return None
    for r, n in zip(records, lines):
        if not isinstance(r.get("raw_annots"), dict):
            raise VisionsInputError(f"{name}, line {n}: 'raw_annots' is "
                                    f"{show(r.get('raw_annots'))}; expected an object on "
                                    "every line, or on none.", rule="raw-annots")
    return [r["raw_annots"] for r in records]


def read_shroom_visions(path: str | os.PathLike[str], *, float_parse: str = "pandas-fast",
                        labels_ignore_case: bool = False) -> pd.DataFrame:
    """A SHROOM-Visions gold or prediction file as a frame, one row per line.

    Parameters
    ----------
    path : str or path
        A gold file (``id``, ``response``, ``labels``, ...) or a prediction file
        (``id``, ``labels``).
    float_parse : {"pandas-fast", "exact"}, default "pandas-fast"
        How the probabilities are read (as the kit reads them, by default).
    labels_ignore_case : bool, default False
        Read a label that matches one of `VISIONS_LABELS` but for its case as that label.

    Returns
    -------
    pandas.DataFrame
        ``id``, the gold's ``response`` and the string fields it has (``language``,
        ``prompt``, ``image_name``, ``split``), and ``labels`` typed
        `VISIONS_SPAN_TYPE` (``pd.ArrowDtype``), in file order. ``attrs`` carries the
        file's provenance (``shroom_visions@sha256:...``, `mycelium.io.provenance`).

    Raises
    ------
    VisionsInputError
        As `visions_side` (a prediction's spans are checked as the kit checks them).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> line = {"id": "train-en-1", "response": "Two cats.", "labels": [
    ...     {"start": 0, "end": 3, "prob": 0.6666666667, "label": "miscounting"}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "en.jsonl")
    ...     _ = path.write_text(json.dumps(line) + "\\n", encoding="utf-8")
    ...     df = read_shroom_visions(path)
    >>> df["labels"][0]  # pandas' fast parser, as the kit reads it
    [{'start': 0, 'end': 3, 'prob': 0.6666666667000001, 'label': 'miscounting'}]
    >>> df.attrs["mycelium_dataset"]["name"]
    'shroom_visions'
    """
    records, lines = read_visions_records(path, float_parse=float_parse)
    gold = any("response" in r for r in records)
    side = visions_side(records, role="reference" if gold else "prediction", name=str(path),
                        lines=lines, ignore_case=labels_ignore_case)
    names = np.array(side.names, dtype=object)
    values = pa.StructArray.from_arrays(
        [pa.array(side.starts), pa.array(side.ends), pa.array(side.probs),
         pa.array(names[side.labels].tolist(), pa.string())],
        fields=list(VISIONS_SPAN_TYPE.value_type))
    columns: dict[str, Any] = {"id": pa.array([str(r["id"]) for r in records])}
    if gold:
        columns["response"] = pa.array(side.texts, pa.string())
        for key in ("language", "prompt", "image_name", "split"):
            if all(isinstance(r.get(key), str) for r in records):
                columns[key] = pa.array([r[key] for r in records], pa.string())
    columns["labels"] = list_array(np.diff(side.offsets), values,
                                   np.ones(len(records), dtype=bool), VISIONS_SPAN_TYPE)
    frame = to_pandas(pa.table(columns))
    return attach_dataset(frame, "shroom_visions", [path], float_parse=float_parse)
