"""`read_ragtruth_pp`: RAGTruth++ (Blue Guardrails' re-annotation of 408 RAGTruth test
responses) from its two published CSV files, one row per assistant response.

Format (the dataset card, huggingface.co/datasets/blue-guardrails/ragtruth-plus-plus,
README.md at revision afaec19): ``hallucination_spans.csv`` has one span per row with
``start_pos``, ``end_pos``, ``span_text``, ``label``, ``reasoning``, ``stable_id`` and
``message_stable_id``; ``messages.csv`` has one message per row with ``stable_id``,
``meta`` (a JSON string; its ``original_id`` links a response to RAGTruth),
``role`` (``user`` / ``assistant``), ``position``, ``text`` and
``message_thread_stable_id``. A span belongs to the message whose ``stable_id`` is its
``message_stable_id``.

Offsets. The card types ``start_pos`` / ``end_pos`` as ``<int>`` and says nothing more,
and no published code that reads them was found, so the convention is not taken on
trust: every span is checked against its ``span_text``. By default ``end_pos`` is
exclusive (Python ``text[start_pos:end_pos]``, code points, as RAGTruth's own
``start``/``end``); a span whose text does not match is an error that says whether the
inclusive reading would match, and ``end="inclusive"`` reads ``end_pos`` as the last
character.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Iterator, Literal

import pandas as pd
import pyarrow as pa

from . import records as rec
from .provenance import attach_dataset, registered_files

__all__ = ["read_ragtruth_pp", "RAGTRUTH_PP_LABEL_TYPE"]

#: Arrow type of ``labels``: the spans of one response with RAGTruth++'s fields.
RAGTRUTH_PP_LABEL_TYPE = pa.list_(pa.struct([
    ("start", pa.int64()), ("end", pa.int64()), ("label_type", pa.string()),
    ("text", pa.string()), ("reasoning", pa.string()), ("span_id", pa.string()),
]))

_SPAN_FIELDS = ("start_pos", "end_pos", "span_text", "label", "reasoning", "stable_id",
                "message_stable_id")
_MESSAGE_FIELDS = ("stable_id", "meta", "role", "position", "text",
                   "message_thread_stable_id")


def read_ragtruth_pp(spans_path: str | os.PathLike[str],
                     messages_path: str | os.PathLike[str] | None = None, *,
                     end: Literal["exclusive", "inclusive"] = "exclusive") -> pd.DataFrame:
    """Read RAGTruth++ into a pandas DataFrame, one row per assistant response.

    Parameters
    ----------
    spans_path : str or path
        ``hallucination_spans.csv``, or the data name ``"ragtruth_pp"`` of a registered
        copy (``mycelium data add ragtruth_pp PATH``; both files are then read).
    messages_path : str or path
        ``messages.csv`` (required with a path).
    end : {"exclusive", "inclusive"}
        How ``end_pos`` is read: exclusive (the default; ``text[start_pos:end_pos]`` is
        the span) or inclusive (``end_pos`` is the span's last character). Either way
        every span must match its ``span_text``.

    Returns
    -------
    pandas.DataFrame
        A ``RangeIndex``, assistant responses in file order, columns ``id`` (the
        message's ``stable_id``), ``thread_id``, ``position`` (Int64), ``original_id``
        and ``model`` (from ``meta``; null when absent), ``prompt`` (the text of the
        thread's last user message before the response; null without one), ``response``,
        ``meta`` (the raw JSON string) and ``labels``:
        ``pd.ArrowDtype(RAGTRUTH_PP_LABEL_TYPE)``, half-open ``[start, end)`` code-point
        spans with ``label_type`` (the file's ``label``), ``text``, ``reasoning`` and
        ``span_id``, in file order. ``attrs["mycelium_dataset"]`` records both files
        (`mycelium.io.provenance`).

    Raises
    ------
    FileNotFoundError
        A file does not exist.
    ValueError
        A file that is not UTF-8, a missing column, an empty or non-integer
        ``position``/``start_pos``/``end_pos``, a repeated ``stable_id``, a span whose
        message is not in ``messages.csv`` or is not an assistant message, ``meta`` that
        is not a JSON object, or an unknown ``end``. Messages name the file, the line
        and the field.
    mycelium.SpanValidationError
        A span outside its response, or whose text differs from ``span_text`` (file,
        line, field).

    Examples
    --------
    >>> import csv, pathlib, tempfile, mycelium
    >>> def write(path, header, *rows):
    ...     with open(path, "w", newline="", encoding="utf-8") as fh:
    ...         csv.writer(fh).writerows([header, *rows])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     spans, messages = pathlib.Path(tmp, "s.csv"), pathlib.Path(tmp, "m.csv")
    ...     write(messages, ["stable_id", "meta", "role", "position", "text",
    ...                      "message_thread_stable_id"],
    ...           ["u1", "{}", "user", 0, "When did it open?", "t1"],
    ...           ["a1", '{"original_id": "1472"}', "assistant", 1,
    ...            "It opened in 1932.", "t1"])
    ...     write(spans, ["start_pos", "end_pos", "span_text", "label", "reasoning",
    ...                   "stable_id", "message_stable_id"],
    ...           [13, 17, "1932", "hallucination", "no date given", "s1", "a1"])
    ...     df = mycelium.read_ragtruth_pp(spans, messages)
    >>> df.loc[0, ["id", "original_id", "prompt"]].tolist()
    ['a1', '1472', 'When did it open?']
    >>> df.loc[0, "labels"][0]["start"], df.loc[0, "labels"][0]["end"]
    (13, 17)
    """
    if end not in ("exclusive", "inclusive"):
        raise ValueError(f"Expected end='exclusive' or 'inclusive', got {end!r}, at "
                         "read_ragtruth_pp(end=...); fix by saying how end_pos is read.")
    named = registered_files(spans_path, "ragtruth_pp", "read_ragtruth_pp")
    if named is not None:
        by_name = {p.name: p for p in named}
        spans_path = by_name["hallucination_spans.csv"]
        messages_path = messages_path or by_name["messages.csv"]
    if messages_path is None:
        raise TypeError("Expected messages_path (messages.csv) beside spans_path, got None, at "
                        "read_ragtruth_pp; fix by passing both files, or the data name "
                        "'ragtruth_pp' of a registered copy.")
    spans_path, messages_path = Path(spans_path), Path(messages_path)
    messages = _read_messages(messages_path)
    labels: dict[str, list[tuple]] = {m["id"]: [] for m in messages if m["assistant"]}
    roles = {m["id"]: m["assistant"] for m in messages}
    texts = {m["id"]: m["response"] for m in messages}
    seen: dict[str, int] = {}
    for where, row in _rows(spans_path, _SPAN_FIELDS, "RAGTruth++'s hallucination_spans.csv"):
        mid = row["message_stable_id"]
        if mid not in roles:
            where.fail("message_stable_id", f"{mid!r} is not a stable_id of "
                       f"{messages_path.name}; expected the id of the response the span "
                       "marks; fix by passing the messages file of the same release.")
        if not roles[mid]:
            where.fail("message_stable_id", f"{mid!r} is a user message; expected an "
                       "assistant response (spans mark responses).")
        _unique(row["stable_id"], seen, where)
        labels[mid].append(_span(row, texts[mid], end, where))
    rows = [m for m in messages if m["assistant"]]
    out = {k: pa.array([m[k] for m in rows], pa.string())
           for k in ("id", "thread_id", "original_id", "model", "prompt", "response",
                     "meta")}
    out["position"] = pa.array([m["position"] for m in rows], pa.int64())
    built = rec.StructLists(RAGTRUTH_PP_LABEL_TYPE)
    for m in rows:
        built.append(labels[m["id"]])
    out["labels"] = built.finish()
    order = ["id", "thread_id", "position", "original_id", "model", "prompt", "response",
             "meta", "labels"]
    frame = rec.to_pandas(pa.table({k: out[k] for k in order}))
    frame["position"] = frame["position"].astype("Int64")
    return attach_dataset(frame, "ragtruth_pp", [spans_path, messages_path])


def _rows(path: Path, fields: tuple[str, ...], what: str
          ) -> Iterator[tuple[rec.Where, dict[str, str]]]:
    """``(where, row)`` per CSV record; ``where.line`` is the record's first line."""
    if not path.exists():
        raise FileNotFoundError(f"{str(path)!r} does not exist; expected {what}.")
    # Decoded whole (the files are small) so that a byte that is not UTF-8 is told with
    # its file and line; a byte order mark is dropped.
    text = rec.decode_text(path.read_bytes(), str(path))
    with io.StringIO(text, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        missing = [f for f in fields if header is None or f not in header]
        if missing:
            raise ValueError(f"{path}:1: expected the columns {', '.join(fields)}, got "
                             f"{header or 'an empty file'}; missing {', '.join(missing)}; "
                             f"fix by passing {what}.")
        assert header is not None  # an empty file is missing every field
        index = {f: header.index(f) for f in fields}
        line = reader.line_num + 1
        for values in reader:
            where = rec.Where(str(path), line)
            line = reader.line_num + 1
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                raise ValueError(f"{where.file}:{where.line}: expected {len(header)} "
                                 f"fields, got {len(values)}; fix by quoting fields that "
                                 "hold commas or line breaks.")
            yield where, {f: values[i] for f, i in index.items()}


def _integer(row: dict, field: str, where: rec.Where) -> int:
    value = row[field].strip()
    try:
        return int(value)
    except ValueError:
        where.fail(field, f"expected an integer, got {value!r}.")


def _unique(value: str, seen: dict[str, int], where: rec.Where) -> None:
    if not value:
        where.fail("stable_id", "is empty; expected an id.")
    if value in seen:
        where.fail("stable_id", f"{value!r} already appeared on line {seen[value]}; "
                   "expected one row per id.")
    seen[value] = where.line


def _read_messages(path: Path) -> list[dict]:
    out: list[dict] = []
    seen: dict[str, int] = {}
    last_user: dict[str, str] = {}
    for where, row in _rows(path, _MESSAGE_FIELDS, "RAGTruth++'s messages.csv"):
        _unique(row["stable_id"], seen, where)
        role = row["role"]
        if role not in ("user", "assistant"):
            where.fail("role", f"expected 'user' or 'assistant', got {role!r}.")
        meta = row["meta"]
        try:
            parsed = json.loads(meta) if meta.strip() else {}
        except json.JSONDecodeError as exc:
            where.fail("meta", f"is not JSON ({exc.msg}); expected a JSON object.")
        if not isinstance(parsed, dict):
            where.fail("meta", f"expected a JSON object, got {rec.show(parsed)}.")
        thread = row["message_thread_stable_id"]
        if role == "user":
            last_user[thread] = row["text"]
        out.append({"id": row["stable_id"], "thread_id": thread,
                    "position": _integer(row, "position", where),
                    "assistant": role == "assistant", "response": row["text"],
                    "prompt": last_user.get(thread) if role == "assistant" else None,
                    "meta": meta, "original_id": _meta_text(parsed, "original_id"),
                    "model": _meta_text(parsed, "model")})
    return out


def _meta_text(meta: dict, key: str) -> str | None:
    value = meta.get(key)
    return None if value is None else str(value)


def _span(row: dict, text: str, end: str, where: rec.Where) -> tuple:
    s = _integer(row, "start_pos", where)
    e = _integer(row, "end_pos", where) + (1 if end == "inclusive" else 0)
    if s < 0 or s > e or e > len(text):
        where.fail("end_pos", f"[{s}, {e}) is not a span of the response (length "
                   f"{len(text)}); expected 0 <= start_pos <= end_pos <= len(text) in "
                   "Python code points.", cls=rec.SpanValidationError)
    want = row["span_text"]
    if text[s:e] != want:
        other, alt_end = ("inclusive", e + 1) if end == "exclusive" else ("exclusive", e - 1)
        fix = (f"the {other} reading matches; fix by passing end={other!r}"
               if text[s:alt_end] == want else "fix by checking the offsets and the text")
        where.fail("span_text", f"expected text[{s}:{e}] == {rec.show(want)}, got "
                   f"{rec.show(text[s:e])}, at span {row['stable_id']!r}; {fix}.",
                   cls=rec.SpanValidationError)
    return (s, e, row["label"] or None, want, row["reasoning"] or None,
            row["stable_id"])
