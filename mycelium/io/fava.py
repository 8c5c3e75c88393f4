"""`read_fava`: FAVA's tagged annotations as typed character spans into the original text.

Format (the Hugging Face dataset ``fava-uw/fava-data``, ``annotations.json``: a JSON
array of objects with ``prompt``, ``output``, ``annotated`` and ``model``; JSON lines of
the same objects are read too). ``annotated`` is the output with inline tags: an error
type around each erroneous stretch (``<entity>``, ``<relation>``, ``<contradictory>``,
``<unverifiable>``, ``<invented>``, ``<subjective>``, the six that abhika-m/FAVA @
7ec08c2dcbff016a7b6af93152994600b646f0a5 ``eval/run_eval.py`` scores), holding the
original words in ``<delete>…</delete>`` and a suggested replacement in
``<mark>…</mark>``, e.g. ``The <entity><mark>Argentine</mark><delete>American</delete>
</entity> player`` (its README). The original text is the tagged text without the tags
and without the ``<mark>`` contents (``utils.py``'s ``remove_error_tags`` keeps them and
drops the ``<delete>`` contents instead, giving the edited text).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..adapters.phrases import parse_tagged
from ..errors import SpanValidationError
from . import records as rec
from .provenance import attach_dataset, registered_files

__all__ = ["read_fava", "fava_spans", "FAVA_ERROR_TYPES", "FAVA_SPAN_TYPE",
           "FAVA_EDIT_TYPE"]

#: The six error types of FAVA's evaluation code, in its order.
FAVA_ERROR_TYPES = ("entity", "relation", "contradictory", "unverifiable", "invented",
                    "subjective")
#: Typed spans: ``type`` is the error type's tag name.
FAVA_SPAN_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                     ("type", pa.string())]))
#: Edits: ``delete`` spans the original words; ``insert`` is zero-length at the place
#: the ``<mark>`` text goes; ``text`` is the deleted or inserted text.
FAVA_EDIT_TYPE = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                     ("op", pa.string()), ("text", pa.string())]))
_STRINGS = ("prompt", "output", "model")


def fava_spans(annotated: str, *, types=FAVA_ERROR_TYPES):
    """The original text, its typed error spans and its edits from FAVA tagged text.

    Parameters
    ----------
    annotated : str
        Text with FAVA tags (error types around ``<mark>``/``<delete>`` edits).
    types : sequence of str
        The error-type tag names (others stay in the text as written).

    Returns
    -------
    text : str
        Without the tags and the ``<mark>`` contents.
    spans : list of (start, end, type)
        Each error-type tag's stretch of ``text``, in the order the tags open (an error
        whose only content is a ``<mark>`` insertion is zero-length where it goes).
    edits : list of (start, end, op, text)
        ``("delete", ...)`` spans the original words, ``("insert", ...)`` is zero-length.

    Raises
    ------
    SpanValidationError
        Unbalanced or crossing tags (as `mycelium.parse_tagged` with ``nested=True``).

    Examples
    --------
    >>> fava_spans("The <entity><mark>Argentine</mark><delete>American</delete></entity> star.")
    ('The American star.', [(4, 12, 'entity')], [(4, 4, 'insert', 'Argentine'), (4, 12, 'delete', 'American')])
    """
    clean, tagged = parse_tagged(annotated, tags=(*types, "mark", "delete"), nested=True)
    marks = sorted((t["start"], t["end"]) for t in tagged if t["tag"] == "mark")
    cut, before = 0, []  # characters of <mark> text before each mark, in order
    pieces, pos = [], 0
    for s, e in marks:
        s = max(s, pos)  # a mark inside a mark is cut once
        if e <= s:
            continue
        pieces.append(clean[pos:s])
        before.append((s, e, cut))
        cut += e - s
        pos = e
    pieces.append(clean[pos:])

    def moved(p: int) -> int:
        shift = 0
        for s, e, c in before:
            if p <= s:
                break
            shift = c + (min(p, e) - s)
        return p - shift

    spans, edits = [], []
    for t in tagged:
        s, e = moved(t["start"]), moved(t["end"])
        if t["tag"] == "mark":
            edits.append((s, s, "insert", clean[t["start"]:t["end"]]))
        elif t["tag"] == "delete":
            edits.append((s, e, "delete", clean[t["start"]:t["end"]]))
        else:
            spans.append((s, e, t["tag"]))
    return "".join(pieces), spans, edits


def read_fava(path: str | os.PathLike[str], *, types=FAVA_ERROR_TYPES) -> pd.DataFrame:
    """Read FAVA annotations into a pandas DataFrame, one row per annotated output.

    Parameters
    ----------
    path : str or path
        ``annotations.json`` (a JSON array of objects) or a ``.jsonl`` file of them, or
        the data name ``"fava"`` of a registered copy (`mycelium.datasets`).
    types : sequence of str, default `FAVA_ERROR_TYPES`
        Error-type tag names. Pass e.g. ``FAVA_ERROR_TYPES + ("sentence",)`` when a
        release names a type otherwise; a tag not listed stays in the text as written.

    Returns
    -------
    pandas.DataFrame
        ``prompt``, ``output``, ``model`` (null when absent), ``annotated``, ``text``
        (the original text the spans index), ``text_matches_output`` (``text ==
        output``; null without an ``output``), ``labels`` (``pd.ArrowDtype(
        FAVA_SPAN_TYPE)``: typed spans) and ``edits`` (``pd.ArrowDtype(FAVA_EDIT_TYPE)``).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        Not a JSON array of objects (or JSON lines), ``annotated`` missing or not a
        string; messages name the file, the line (JSON lines) or 1-based record
        (array), and the field.
    mycelium.SpanValidationError
        Unbalanced or crossing tags in ``annotated`` (file, record, field).

    Notes
    -----
    ``text`` is derived from ``annotated`` and never replaced by ``output``: where the
    two differ (``text_matches_output`` False) the spans index ``text``. Zero-length
    spans (an error that only inserts) are kept; span metrics drop them (SPEC section 2),
    while `mycelium.score_fava` counts them in their sentence.

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> record = {"output": "Messi is an American player.", "model": "chatgpt",
    ...           "annotated": "Messi is an <entity><mark>Argentine</mark>"
    ...                        "<delete>American</delete></entity> player."}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp, "annotations.json")
    ...     _ = p.write_text(json.dumps([record]), encoding="utf-8")
    ...     df = mycelium.read_fava(p)
    >>> df.loc[0, "labels"], bool(df.loc[0, "text_matches_output"])
    ([{'start': 12, 'end': 20, 'type': 'entity'}], True)
    """
    named = registered_files(path, "fava", "read_fava")
    path = named[0] if named else Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{str(path)!r} does not exist; expected FAVA's "
                                "annotations.json (or a .jsonl of the same records).")
    cols: dict[str, list] = {k: [] for k in (*_STRINGS, "annotated", "text", "match")}
    labels, edits = rec.StructLists(FAVA_SPAN_TYPE), rec.StructLists(FAVA_EDIT_TYPE)
    for where, record in _records(path):
        for name in _STRINGS:
            cols[name].append(rec.text(record, name, where))
        annotated = rec.text(record, "annotated", where, required=True)
        try:
            text, spans, edit = fava_spans(annotated, types=types)
        except SpanValidationError as exc:
            where.fail("annotated", str(exc), cls=SpanValidationError)
        cols["annotated"].append(annotated)
        cols["text"].append(text)
        out = cols["output"][-1]
        cols["match"].append(None if out is None else out == text)
        labels.append(spans)
        edits.append(edit)
    table = {k: pa.array(cols[k], pa.string()) for k in (*_STRINGS, "annotated", "text")}
    table["text_matches_output"] = pa.array(cols["match"], pa.bool_())
    table["labels"], table["edits"] = labels.finish(), edits.finish()
    return attach_dataset(rec.to_pandas(pa.table(table)), "fava", [path])


def _records(path: Path):
    """``(where, record)``: a JSON array by 1-based record, else JSON lines by line."""
    data = rec.decode_text(path.read_bytes(), str(path))
    if data.lstrip().startswith("["):
        try:
            items = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column "
                             f"{exc.colno}); expected a JSON array of objects.") from None
        for i, item in enumerate(items, 1):
            where = rec.Where(str(path), i)
            if not isinstance(item, dict):
                raise ValueError(f"{path}:{i}: expected a JSON object per record, got "
                                 f"{type(item).__name__} {rec.show(item)}.")
            yield where, item
    else:
        yield from rec.iter_records(path)
