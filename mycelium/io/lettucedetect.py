"""`read_lettucedetect`: span sets in the RAGTruth-derived sample format of LettuceDetect,
in which derivative datasets such as the HaluEval span sets are published.

Format (KRLabsOrg/LettuceDetect@5937bcd875b671414a7e2f7017a7bdeb9c895b58:
lettucedetect/preprocess/preprocess_ragtruth.py writes it from RAGTruth's
``response.jsonl``; KRLabsOrg/LettuceDetect@9a68e125045ff8b56e3ae7f4b87f45df3cdd82a4:
lettucedetect/datasets/hallucination_dataset.py, ``HallucinationSample``): one sample per
object with ``prompt``, ``answer``, ``labels`` (a list of ``{"start", "end", "label"}``),
``split``, ``task_type``, ``dataset``, ``language`` and, in later versions, optional
``context``, ``question``, ``category``, ``subcategory``, ``context_modality`` and
``metadata``. The HaluEval span set (huggingface.co/datasets/llm-semantic-router/
halueval-llm-spans, "RAGTruth-compatible format", 10,000 HaluEval summarisation samples
with LLM-made spans of RAGTruth's four label types) and its E2E sibling use exactly
these fields. Files are a JSON array (``HallucinationData.to_json``) or JSON lines.

Offsets. ``start`` and ``end`` are half-open code-point offsets into ``answer``:
RAGTruth's own ``start``/``end`` are copied unchanged (preprocess_ragtruth.py), and the
training code marks a token hallucinated when ``token_end > start and token_start < end``
on a tokenizer's offset mapping of the Python string (hallucination_dataset.py), the
half-open overlap test; a span ``[s, s)`` marks nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa

from . import records as rec
from .provenance import attach_dataset, registered_files

__all__ = ["read_lettucedetect", "LETTUCEDETECT_LABEL_TYPE"]

#: Arrow type of ``labels``: spans with their ``label`` (RAGTruth's label type).
LETTUCEDETECT_LABEL_TYPE = pa.list_(pa.struct([
    ("start", pa.int64()), ("end", pa.int64()), ("label", pa.string()),
]))

_STRINGS = ("prompt", "split", "task_type", "dataset", "language", "context", "question",
            "category", "subcategory")


def read_lettucedetect(paths, *, name: str | None = None) -> pd.DataFrame:
    """Read samples in LettuceDetect's format (HaluEval span sets and others).

    Parameters
    ----------
    paths : str, path, or a list of them, or a directory
        ``.json`` files holding a JSON array of samples, or ``.jsonl`` files with one
        sample per line; a directory means every ``*.json`` and ``*.jsonl`` below it;
        or the data name ``"lettucedetect"`` of a registered copy (`mycelium.datasets`).
    name : str, optional
        The dataset name recorded in the provenance (default: the samples' ``dataset``
        field when they all share one, else ``"lettucedetect"``).

    Returns
    -------
    pandas.DataFrame
        A ``RangeIndex``, samples in file order, columns ``prompt``, ``answer``,
        ``labels`` (``pd.ArrowDtype(LETTUCEDETECT_LABEL_TYPE)``: half-open ``[start,
        end)`` code points into ``answer``, with ``label``), ``split``, ``task_type``,
        ``dataset``, ``language``, ``context``, ``question``, ``category``,
        ``subcategory`` (null when absent), ``metadata`` (a JSON string or null) and
        ``file``. ``attrs["mycelium_dataset"]`` records the files
        (`mycelium.io.provenance`).

    Raises
    ------
    FileNotFoundError
        A path does not exist, or a directory holds no such files.
    ValueError
        Not JSON, a sample that is not an object, ``answer`` or ``labels`` missing, a
        field of the wrong type. Messages name the file, the line and the field.
    mycelium.SpanValidationError
        A label outside ``0 <= start <= end <= len(answer)`` (file, line, span index).

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> sample = {"prompt": "Summarize: The fox slept.", "answer": "The fox ran home.",
    ...           "labels": [{"start": 8, "end": 16, "label": "Evident Conflict"}],
    ...           "split": "test", "task_type": "Summary", "dataset": "halueval",
    ...           "language": "en"}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "halueval_spans.json")
    ...     _ = path.write_text(json.dumps([sample]), encoding="utf-8")
    ...     df = mycelium.read_lettucedetect(path)
    >>> df.loc[0, "answer"][8:16], df.loc[0, "labels"][0]["label"]
    ('ran home', 'Evident Conflict')
    >>> df.attrs["mycelium_dataset"]["name"]
    'halueval'
    """
    files = rec.jsonl_files(registered_files(paths, "lettucedetect", "read_lettucedetect")
                            or paths, ("*.json", "*.jsonl"),
                            "a .json or .jsonl file of LettuceDetect samples")
    columns: dict[str, list] = {k: [] for k in ("answer", *_STRINGS, "metadata", "file")}
    labels = rec.StructLists(LETTUCEDETECT_LABEL_TYPE)
    for path in files:
        for where, sample in _samples(path):
            answer = rec.text(sample, "answer", where, required=True)
            columns["answer"].append(answer)
            for field in _STRINGS:
                columns[field].append(rec.text(sample, field, where))
            meta = sample.get("metadata")
            columns["metadata"].append(None if meta in (None, {}) else json.dumps(meta))
            columns["file"].append(path.name)
            labels.append(_labels(sample, len(answer), where))
    table = {k: pa.array(columns[k], pa.string()) for k in ("prompt", "answer")}
    table["labels"] = labels.finish()
    table.update({k: pa.array(columns[k], pa.string())
                  for k in (*_STRINGS[1:], "metadata", "file")})
    frame = rec.to_pandas(pa.table(table))
    names = {d for d in columns["dataset"] if d}
    label = name or (names.pop() if len(names) == 1 else "lettucedetect")
    return attach_dataset(frame, label, files)


def _samples(path: Path) -> Iterator[tuple[rec.Where, dict]]:
    """Samples of a JSON-lines file, or of a JSON array (each at the line it starts on)."""
    raw = path.read_bytes()
    text = rec.decode_text(raw, str(path))
    head = text.lstrip(" \t\r\n")
    if not head.startswith("["):
        yield from rec.iter_records(path)
        return
    for where, value in array_values(path, text, "sample objects"):
        if not isinstance(value, dict):
            raise ValueError(f"{path}:{where.line}: expected a sample object, got "
                             f"{type(value).__name__} {rec.show(value)}.")
        yield where, value


def array_values(path: Path, text: str, what: str) -> Iterator[tuple[rec.Where, Any]]:
    """The values of the JSON array ``text``, each at the line it starts on."""
    decoder = json.JSONDecoder()
    i = text.index("[") + 1
    while True:
        i = _skip(text, i)
        if i >= len(text) or text[i] == "]":
            break
        line = text.count("\n", 0, i) + 1
        try:
            value, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{text.count(chr(10), 0, exc.pos) + 1}: not valid JSON "
                             f"({exc.msg}); expected a JSON array of {what}.") from None
        yield rec.Where(str(path), line), value
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i += 1
        elif i < len(text) and text[i] != "]":
            raise ValueError(f"{path}:{text.count(chr(10), 0, i) + 1}: expected ',' or ']' "
                             "between samples; fix the JSON array.")


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _labels(sample: dict, text_len: int, where: rec.Where) -> list[tuple]:
    rows = []
    for j, label, s, e in rec.label_objects(
            sample, text_len, where,
            "a list of {start, end, label} ([] when the answer has no hallucination)"):
        kind = label.get("label")
        if kind is not None and not isinstance(kind, str):
            where.fail("labels", f"label {rec.show(kind)} is not a string.", span=j)
        rows.append((s, e, kind))
    return rows
