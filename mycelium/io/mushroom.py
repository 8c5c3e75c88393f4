"""`read_mushroom`: Mu-SHROOM (SemEval-2025 Task 3) JSONL files as a typed pandas frame.

The official files are one JSON object per line with ``id``, ``lang``, ``model_input``,
``model_output_text``, ``model_id``, ``hard_labels`` (``[[start, end], ...]``, half-open)
and ``soft_labels`` (``[{"start", "prob", "end"}, ...]``); val v2 and test files add
``model_output_tokens``, ``model_output_logits``, ``wikipedia_url`` and per-annotator
``annotations``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Union

import pyarrow as pa

from ..core.inputs import list_literal
from ..core.spans import SPAN_TYPE
from ..errors import SpanValidationError
from . import records as rec
from .float_parse import parse_float_hook, resolve_float_parse
from .provenance import attach_dataset, registered_files

if TYPE_CHECKING:  # pandas loads with read_mushroom's result, not with checker_rule
    import pandas as pd

__all__ = ["read_mushroom", "SOFT_SPAN_TYPE", "ANNOTATIONS_TYPE", "checker_rule"]

#: Arrow type of ``soft_labels``: spans with the fraction of annotators who marked them.
SOFT_SPAN_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                     ("prob", pa.float64())]))

#: Arrow type of ``annotations``: one ``{annotator, spans}`` per annotator, in file order.
ANNOTATIONS_TYPE = pa.list_(pa.struct([("annotator", pa.string()), ("spans", SPAN_TYPE)]))

_TEXT_FIELDS = ("lang", "model_id", "model_input", "model_output_text")
_EXTRA_FIELDS = ("model_output_tokens", "model_output_logits")
# mushroom.<lang>-<split>.<version>[.extra].jsonl, e.g. mushroom.en-tst.v1.extra.jsonl
_NAME = re.compile(r"^mushroom\.(?P<lang>[a-z]+)-(?P<split>[a-z]+)\.(?P<version>v\d+)\b")
_SPLITS = {"tst": "test"}


def checker_rule(start, end, text_len: int | None, *, has_prob: bool = True) -> str:
    """Which of the task's format rules a span breaks, as a sentence ("" if none).

    The task's format checker (``participant_kit/format_checker.py``, which the
    submission platform applied) requires ``0 <= start < end <= len(model_output_text)``
    of every hard and soft span; the format gives every soft span a ``prob`` (the
    official scorer reads it for every character the span covers, and derives hard
    labels from it).

    Examples
    --------
    >>> checker_rule(-1, -1, 10)
    "It breaks the task format checker's rule 0 <= start < end <= len(model_output_text) (participant_kit/format_checker.py): 0 <= start and start < end fail."
    >>> checker_rule(2, 5, 10)
    ''
    """
    notes = []
    if isinstance(start, int) and isinstance(end, int):
        broken = [rule for rule, ok in (("0 <= start", 0 <= start), ("start < end", start < end),
                                        (f"end <= {text_len}",
                                         text_len is None or end <= text_len)) if not ok]
        if broken:
            notes.append("It breaks the task format checker's rule 0 <= start < end <= "
                         "len(model_output_text) (participant_kit/format_checker.py): "
                         f"{' and '.join(broken)} fail{'s' if len(broken) == 1 else ''}.")
    if not has_prob:
        notes.append("It has no 'prob', which the task's format gives every soft span "
                     "(the official scorer reads it for each character the span covers).")
    return " ".join(notes)


#: A file or directory, or several files.
Paths = Union[str, os.PathLike[str], Iterable[Union[str, os.PathLike[str]]]]


def read_mushroom(paths: Paths, *, keep_extra: bool = False,
                  float_parse: str | None = None) -> pd.DataFrame:
    """Read Mu-SHROOM JSONL files into one pandas DataFrame, one row per record.

    Parameters
    ----------
    paths : str, path, list of them, a directory, or a data name
        One file, several files (read in the order given), a directory (every
        ``*.jsonl`` below it, sorted by path), or a registered benchmark's data name
        ``"mu_shroom[:SPLIT[:LANG]]"``, e.g. ``"mu_shroom:test:en"``: the files of the copy
        registered with ``mycelium data add mu_shroom PATH`` (`mycelium.datasets`).
    keep_extra : bool, default False
        Also keep ``model_output_tokens`` (``list<string>``), ``model_output_logits``
        (``list<double>``) and any field this loader does not know (Arrow-inferred).
        These are large and no metric reads them, so they are dropped by default.
    float_parse : {"pandas-fast", "exact"}, optional
        How JSON numbers become floats. The default is the ``mu_shroom`` profile's rule,
        ``"pandas-fast"``: as the official scorer's ``pandas.read_json`` reads them
        (``0.3`` is read as ``0.30000000000000004``, and fraction digits past the 15th
        are dropped, so ``0.8812335261248792`` and ``0.881233526124879`` are one
        value), which the published leaderboard's Cor depends on. ``"exact"`` reads
        them correctly rounded, as Python's `json` does (`mycelium.io.float_parse`).

    Returns
    -------
    pandas.DataFrame
        A ``RangeIndex`` and the columns, in this order:

        - ``id``, ``lang``, ``model_id``, ``model_input``, ``model_output_text``
          (strings; null when a record lacks the field);
        - ``hard_labels``: ``pd.ArrowDtype(mycelium.SPAN_TYPE)``, half-open offsets;
        - ``soft_labels``: ``pd.ArrowDtype(SOFT_SPAN_TYPE)``, i.e.
          ``list<struct<start: int64, end: int64, prob: double>>``, in file order
          (the order matters: the official Cor lets later spans overwrite earlier ones);
        - ``annotations`` when any record has it: ``pd.ArrowDtype(ANNOTATIONS_TYPE)``, i.e.
          ``list<struct<annotator: string, spans: SPAN_TYPE>>``, one item per annotator
          in file order; an annotator who marked nothing has ``spans == []``; null for
          records without the field (all val v1 records);
        - ``wikipedia_url`` when any record has it;
        - ``model_output_tokens``, ``model_output_logits`` (with ``keep_extra=True``);
        - ``file`` (the file's name), ``split`` (``"val"`` / ``"test"``) and ``version``
          (``"v1"`` / ``"v2"``), the last two parsed from official file names such as
          ``mushroom.en-tst.v1.extra.jsonl`` (null when the name does not follow it).

        ``attrs["mycelium_dataset"]`` records the files read, their SHA-256 and the
        float rule, and results scored from the frame carry
        ``float_parse:<rule>`` and ``dataset:mu_shroom@sha256:<12 hex>`` in their
        signature (`mycelium.io.provenance`).

    Raises
    ------
    FileNotFoundError
        A path does not exist, or a directory holds no ``*.jsonl``; for a data name
        (`mycelium.datasets.DataNotFoundError`), no copy is registered, and the message
        says how to add one.
    ValueError
        A line is not a JSON object, ``id`` is missing, a record has neither
        ``hard_labels`` nor ``soft_labels``, or a field has the wrong type; the message
        names the file, the line and the field.
    mycelium.SpanValidationError
        A hard or soft span is not ``0 <= start <= end <= len(model_output_text)``, or
        a probability is outside [0, 1] (file, line, field and span index are named).

    Notes
    -----
    This is a loader: nothing is clipped, dropped or reordered. Hard and soft labels are
    validated (they are references); raw ``annotations`` are kept exactly as given, only
    type-checked, because they legitimately contain zero-length spans, overlapping or
    adjacent spans and, once, a span past the text. Probabilities are read by the
    ``float_parse`` rule (with ``"exact"``, ``0.3333333333`` stays that double). A missing
    ``hard_labels`` or ``soft_labels`` is null; nothing is derived (the official scorer's
    derivations belong to the scorer, `mycelium.protocols.mushroom`).

    Quirk of the official Catalan test file: ``model_output_tokens`` and
    ``model_output_logits`` are stored as strings holding Python list literals; with
    ``keep_extra=True`` they are parsed (``ast.literal_eval``) into lists like the others.

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> record = {"id": "val-en-1", "lang": "EN", "model_input": "Who?",
    ...           "model_output_text": "Paris is in Italy.", "model_id": "m",
    ...           "hard_labels": [[12, 17]],
    ...           "soft_labels": [{"start": 12, "prob": 0.6666666667, "end": 17}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "mushroom.en-val.v1.jsonl")
    ...     _ = path.write_text(json.dumps(record) + "\\n", encoding="utf-8")
    ...     df = mycelium.read_mushroom(path)
    ...     exact = mycelium.read_mushroom(path, float_parse="exact")
    >>> df[["id", "file", "split", "version"]]
             id                      file split version
    0  val-en-1  mushroom.en-val.v1.jsonl   val      v1
    >>> df["hard_labels"].tolist()
    [[{'start': 12, 'end': 17}]]
    >>> df["soft_labels"][0][0]["prob"]  # as the official scorer reads it
    0.6666666667000001
    >>> exact["soft_labels"][0][0]["prob"]
    0.6666666667
    >>> mycelium.evaluate(df["hard_labels"], df["hard_labels"], metrics="iou")["iou"]
    {'score': 1.0}
    """
    rule = resolve_float_parse(float_parse)
    hook = parse_float_hook(rule)
    files = rec.jsonl_files(registered_files(paths, "mu_shroom", "read_mushroom") or paths)
    rows = _Columns(keep_extra)
    for path in files:
        info = _name_info(path)
        for where, record in rec.iter_records(path, parse_float=hook):
            rows.add(record, where, path.name, info)
    return attach_dataset(rec.to_pandas(rows.table()), "mu_shroom", files,
                          float_parse=rule)


def _name_info(path: Path) -> tuple[str | None, str | None]:
    match = _NAME.match(path.name)
    if match is None:
        return None, None
    split = match["split"]
    return _SPLITS.get(split, split), match["version"]


class _Columns:
    """Accumulates the columns of the output, record by record."""

    def __init__(self, keep_extra: bool) -> None:
        self.keep_extra = keep_extra
        self.strings: dict[str, list] = {n: [] for n in ("id",) + _TEXT_FIELDS}
        self.hard = rec.StructLists(SPAN_TYPE)
        self.soft = rec.StructLists(SOFT_SPAN_TYPE)
        self.annotations: list = []
        self.has_annotations = False
        self.urls: list | None = None  # created by the first record that has the field
        self.extra: dict[str, list] = {}
        self.meta: dict[str, list] = {"file": [], "split": [], "version": []}

    def add(self, record: dict, where: rec.Where, name: str, info) -> None:
        n = len(self.meta["file"])
        self.strings["id"].append(rec.identifier(record, "id", where, required=True))
        for field in _TEXT_FIELDS:
            self.strings[field].append(rec.text(record, field, where))
        if record.get("hard_labels") is None and record.get("soft_labels") is None:
            where.fail("hard_labels", "missing, and so is 'soft_labels'; a Mu-SHROOM record "
                       "needs at least one of them.")
        text = self.strings["model_output_text"][-1]
        text_len = None if text is None else len(text)
        _hard(record.get("hard_labels"), text_len, where, self.hard)
        _soft(record.get("soft_labels"), text_len, where, self.soft)
        if "annotations" in record:
            self.has_annotations = True
        self.annotations.append(_annotations(record.get("annotations"), where))
        if "wikipedia_url" in record and self.urls is None:
            self.urls = [None] * n
        if self.urls is not None:
            self.urls.append(rec.text(record, "wikipedia_url", where))
        if self.keep_extra:
            self._add_extra(record, where, n)
        for key, value in zip(("file", "split", "version"), (name,) + tuple(info)):
            self.meta[key].append(value)

    def _add_extra(self, record: dict, where: rec.Where, n: int) -> None:
        known = {"id", "hard_labels", "soft_labels", "annotations", "wikipedia_url",
                 *_TEXT_FIELDS}
        for key, value in record.items():
            if key in known:
                continue
            if key in _EXTRA_FIELDS and isinstance(value, str):
                value = _parse_literal(value, key, where)
            self.extra.setdefault(key, [None] * n).append(value)
        for column in self.extra.values():
            if len(column) == n:
                column.append(None)

    def table(self) -> pa.Table:
        columns = {k: pa.array(v, pa.string()) for k, v in self.strings.items()}
        columns["hard_labels"] = self.hard.finish()
        columns["soft_labels"] = self.soft.finish()
        if self.has_annotations:
            columns["annotations"] = _annotations_array(self.annotations)
        if self.urls is not None:
            columns["wikipedia_url"] = pa.array(self.urls, pa.string())
        types = {"model_output_tokens": pa.list_(pa.string()),
                 "model_output_logits": pa.list_(pa.float64())}
        for key, values in self.extra.items():
            try:
                columns[key] = pa.array(values, types.get(key))
            except (pa.ArrowException, TypeError, ValueError) as exc:
                raise ValueError(f"field {key!r}: its values cannot form one typed column "
                                 f"({exc}); use keep_extra=False to leave it out.") from None
        columns.update({k: pa.array(v, pa.string()) for k, v in self.meta.items()})
        return pa.table(columns)


def _hard(value, text_len, where, out: rec.StructLists) -> None:
    if value is None:
        out.append_null()
        return
    spans = []
    for j, span in enumerate(rec.span_list(value, "hard_labels", where)):
        s, e = rec.pair(span, "hard_labels", where, j)
        _bounds(s, e, text_len, "hard_labels", where, j)
        spans.append((s, e))
    out.append(spans)


def _soft(value, text_len, where, out: rec.StructLists) -> None:
    if value is None:
        out.append_null()
        return
    spans = []
    for j, span in enumerate(rec.span_list(value, "soft_labels", where)):
        if not isinstance(span, dict) or "prob" not in span:
            rule = checker_rule(span.get("start"), span.get("end"), text_len,
                                has_prob=False) if isinstance(span, dict) else ""
            where.fail("soft_labels", f"expected {{'start', 'end', 'prob'}}, got "
                       f"{rec.show(span)}. {rule}".rstrip(), span=j,
                       cls=SpanValidationError)
        s, e = rec.pair(span, "soft_labels", where, j)
        _bounds(s, e, text_len, "soft_labels", where, j)
        spans.append((s, e, _prob(span["prob"], where, j)))
    out.append(spans)


def _bounds(s: int, e: int, text_len, field: str, where, j: int) -> None:
    """`check_bounds`, its error saying which format-checker rule the span breaks."""
    try:
        rec.check_bounds(s, e, text_len, field, where, j)
    except SpanValidationError as exc:
        raise SpanValidationError(f"{exc} {checker_rule(s, e, text_len)}".rstrip(),
                                  span=j) from None


def _prob(p, where, j: int) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        where.fail("soft_labels", f"prob {rec.show(p)} is not a probability; expected a "
                   "number in [0, 1].", span=j, cls=SpanValidationError)
    return float(p)


def _annotations(value, where):
    """``[(annotator, [(s, e), ...]), ...]`` kept exactly as given (only types checked)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        where.fail("annotations", f"expected an object mapping annotator ids to span "
                   f"lists, got {type(value).__name__} {rec.show(value)}.")
    out = []
    for annotator, spans in value.items():
        field = f"annotations.{annotator}"
        if spans is None:
            spans = []
        pairs = [rec.pair(span, field, where, j)
                 for j, span in enumerate(rec.span_list(spans, field, where))]
        out.append((annotator, pairs))
    return out


def _annotations_array(items: list) -> pa.Array:
    names: list[str] = []
    inner_counts: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    outer_counts: list[int] = []
    valid: list[bool] = []
    for entry in items:
        valid.append(entry is not None)
        outer_counts.append(0 if entry is None else len(entry))
        for annotator, pairs in entry or ():
            names.append(annotator)
            inner_counts.append(len(pairs))
            starts.extend(s for s, _ in pairs)
            ends.extend(e for _, e in pairs)
    span_struct = pa.StructArray.from_arrays(
        [pa.array(starts, pa.int64()), pa.array(ends, pa.int64())], names=["start", "end"])
    spans = rec.list_array(inner_counts, span_struct, [True] * len(inner_counts), SPAN_TYPE)
    entries = pa.StructArray.from_arrays([pa.array(names, pa.string()), spans],
                                         fields=list(ANNOTATIONS_TYPE.value_type))
    return rec.list_array(outer_counts, entries, valid, ANNOTATIONS_TYPE)


def _parse_literal(value: str, field: str, where):
    try:
        return list_literal(value)
    except ValueError:
        where.fail(field, f"is a string that is not a list literal: {rec.show(value)}.")
