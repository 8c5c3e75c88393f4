"""`read_ragtruth`: RAGTruth's ``response.jsonl`` (and ``source_info.jsonl``) as a frame.

Format (ParticleMedia/RAGTruth ``dataset/``): one response per line with ``id``,
``source_id``, ``model``, ``temperature``, ``labels``, ``split``, ``quality`` and
``response``; each label has ``start``, ``end`` (half-open offsets into ``response``),
``text``, ``label_type``, ``meta`` and, since the 2024-02 release, ``implicit_true``
and ``due_to_null``. ``source_info.jsonl`` gives each ``source_id`` its ``task_type``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow as pa

from . import records as rec
from .provenance import attach_dataset, registered_files

__all__ = ["read_ragtruth", "RAGTRUTH_LABEL_TYPE"]

#: Arrow type of ``labels``: gold spans with RAGTruth's annotation fields.
RAGTRUTH_LABEL_TYPE = pa.list_(pa.struct([
    ("start", pa.int64()), ("end", pa.int64()), ("label_type", pa.string()),
    ("implicit_true", pa.bool_()), ("due_to_null", pa.bool_()),
    ("text", pa.string()), ("meta", pa.string()),
]))

_STRINGS = ("source_id", "model", "split", "quality")


def read_ragtruth(response_path: str | os.PathLike[str],
                  source_info_path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Read RAGTruth responses into a pandas DataFrame, one row per response.

    Parameters
    ----------
    response_path : str or path
        ``response.jsonl``, or the data name ``"ragtruth"`` of a copy registered with
        ``mycelium data add ragtruth PATH`` (its ``source_info.jsonl`` is then joined in
        too; `mycelium.datasets`).
    source_info_path : str or path, optional
        ``source_info.jsonl``; when given, ``task_type`` and ``source`` are joined in
        through ``source_id``.

    Returns
    -------
    pandas.DataFrame
        A ``RangeIndex`` and the columns ``id``, ``source_id``, ``model``,
        ``temperature`` (float), ``split``, ``quality``, ``response`` and ``labels``,
        then ``task_type`` and ``source`` when ``source_info_path`` is given. ``labels``
        is ``pd.ArrowDtype(RAGTRUTH_LABEL_TYPE)``:
        ``list<struct<start: int64, end: int64, label_type: string, implicit_true: bool,
        due_to_null: bool, text: string, meta: string>>``, in file order. It is a span
        column: pass it straight to `mycelium.evaluate` or ``df.mycelium.evaluate``
        (metrics read ``start`` and ``end``; the other fields ride along).
        ``attrs["mycelium_dataset"]`` records the files read and their SHA-256, and
        results scored from the frame carry ``dataset:ragtruth@sha256:<12 hex>`` in
        their signature (`mycelium.io.provenance`), telling the 2024-02 release from
        the earlier one.

    Raises
    ------
    FileNotFoundError
        A file does not exist.
    ValueError
        A line is not a JSON object; ``id``, ``response`` or ``labels`` is missing; a
        field has the wrong type; a ``source_id`` appears twice in source_info. The
        message names the file, the line and the field.
    mycelium.SpanValidationError
        A label is not ``0 <= start <= end <= len(response)`` (file, line, span index).

    Notes
    -----
    Offsets are half-open: on the README sample (id 1472) ``response[219:229]`` is the
    label text "Gaza Strip", and both peer evaluators read ``end`` as exclusive.
    Missing optional response fields are null. A label without ``implicit_true`` or
    ``due_to_null`` (every label before the 2024-02 release, and the README sample)
    gets False; ``label_type``, ``text`` and ``meta`` are null when absent. Label keys
    other than these seven are not kept. Nothing is filtered: labels of every type,
    ``implicit_true`` labels and non-"good" responses are all kept, as RAGTruth's own
    evaluation counts them. ``text`` is not compared with ``response[start:end]``.
    A ``source_id`` absent from source_info gets a null ``task_type``.

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> response = "The bridge opened in 1932 and was painted green in 1990."
    >>> label = {"start": 21, "end": 25, "text": "1932", "meta": "",
    ...          "label_type": "Evident Conflict"}
    >>> record = {"id": "7", "source_id": "s1", "model": "gpt-4-0613",
    ...           "temperature": 0.7, "labels": [label], "split": "test",
    ...           "quality": "good", "response": response}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "response.jsonl")
    ...     _ = path.write_text(json.dumps(record) + "\\n", encoding="utf-8")
    ...     df = mycelium.read_ragtruth(path)
    >>> df.loc[0, "labels"][0]["label_type"], df.loc[0, "labels"][0]["implicit_true"]
    ('Evident Conflict', False)
    >>> response[21:25]
    '1932'
    >>> mycelium.evaluate(df["labels"], [[[21, 30]]], profile="ragtruth",
    ...                   metrics="character")["character"]
    {'precision': 0.4444444444444444, 'recall': 1.0, 'f1': 0.6153846153846154}
    """
    named = registered_files(response_path, "ragtruth", "read_ragtruth")
    if named is not None:  # the registered response.jsonl, and source_info.jsonl if added
        by_name = {p.name: p for p in named}
        response_path = by_name["response.jsonl"]
        if source_info_path is None:
            source_info_path = by_name.get("source_info.jsonl")
    columns = _read_responses(Path(response_path))
    if source_info_path is not None:
        sources = _read_sources(Path(source_info_path))
        found = [sources.get(sid) for sid in columns["source_id"].to_pylist()]
        columns["task_type"] = pa.array([f and f[0] for f in found], pa.string())
        columns["source"] = pa.array([f and f[1] for f in found], pa.string())
    return attach_dataset(rec.to_pandas(pa.table(columns)), "ragtruth",
                          [response_path, source_info_path])


def _read_responses(path: Path) -> dict[str, pa.Array]:
    if not path.exists():
        raise FileNotFoundError(f"{str(path)!r} does not exist; expected RAGTruth's "
                                "response.jsonl.")
    strings: dict[str, list] = {k: [] for k in ("id", *_STRINGS, "response")}
    temperature: list = []
    labels = rec.StructLists(RAGTRUTH_LABEL_TYPE)
    for where, record in rec.iter_records(path):
        strings["id"].append(rec.identifier(record, "id", where, required=True))
        strings["source_id"].append(rec.identifier(record, "source_id", where))
        for field in _STRINGS[1:]:
            strings[field].append(rec.text(record, field, where))
        response = rec.text(record, "response", where, required=True)
        strings["response"].append(response)
        temperature.append(rec.number(record, "temperature", where))
        labels.append(_labels(record, len(response), where))
    out = {k: pa.array(strings[k], pa.string()) for k in ("id", *_STRINGS)}
    out["temperature"] = pa.array(temperature, pa.float64())
    out["response"] = pa.array(strings["response"], pa.string())
    out["labels"] = labels.finish()
    order = ["id", "source_id", "model", "temperature", "split", "quality", "response",
             "labels"]
    return {k: out[k] for k in order}


def _labels(record: dict, text_len: int, where: rec.Where) -> list[tuple]:
    rows = []
    for j, label, s, e in rec.label_objects(
            record, text_len, where,
            "a list of label objects ([] when the response has no hallucination)"):
        texts = []
        for key in ("label_type", "text", "meta"):
            value = label.get(key)
            if value is not None and not isinstance(value, str):
                where.fail("labels", f"{key} {rec.show(value)} is not a string.", span=j)
            texts.append(value)
        rows.append((s, e, texts[0], rec.flag(label.get("implicit_true"), "labels", where, j),
                     rec.flag(label.get("due_to_null"), "labels", where, j),
                     texts[1], texts[2]))
    return rows


def _read_sources(path: Path) -> dict[str, tuple[str | None, str | None]]:
    """``source_id -> (task_type, source)``; a repeated source_id is an error."""
    if not path.exists():
        raise FileNotFoundError(f"{str(path)!r} does not exist; expected RAGTruth's "
                                "source_info.jsonl.")
    out: dict[str, tuple] = {}
    first_line: dict[str, int] = {}
    for where, record in rec.iter_records(path):
        sid = rec.identifier(record, "source_id", where, required=True)
        if sid in out:
            where.fail("source_id", f"{sid!r} already appeared on line {first_line[sid]}; "
                       "expected one line per source.")
        first_line[sid] = where.line
        out[sid] = (rec.text(record, "task_type", where), rec.text(record, "source", where))
    return out
