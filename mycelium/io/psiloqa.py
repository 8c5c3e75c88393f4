"""`read_psiloqa`: PsiloQA's published splits (Parquet, or JSON lines) as a frame.

Format (the Hugging Face dataset ``s-nlp/PsiloQA``: ``data/train-*.parquet``,
``data/validation-*.parquet``, ``data/test-*.parquet``): one answer per row with ``id``,
``lang``, ``question``, ``wiki_title``, ``wiki_url``, ``wiki_passage``, ``golden_answer``,
``llm_answer``, ``llm_checkpoint``, ``annotated_span`` (the answer with ``[HAL]…[/HAL]``
tags) and ``labels`` (``[start, end]`` pairs into ``llm_answer``, read as half-open by
the repository's ``train_script.py``). The published evaluator (s-nlp/PsiloQA @
95233aefcfbdfc2b0876ffc7d45729d7fc69bd2d, ``psilo/methods/uncertainty/evaluation.py``,
``row_to_psiloqa_record``) does not read ``labels``: it locates each ``[HAL]`` chunk in
the answer with ``str.find`` from the end of the previous chunk, falling back to the
first occurrence; ``hal_labels`` holds the spans that rule gives.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..adapters.phrases import parse_tagged
from ..core.spans import SPAN_TYPE
from ..errors import SpanValidationError
from . import records as rec
from .provenance import attach_dataset, registered_files

__all__ = ["read_psiloqa", "PSILOQA_STRINGS", "hal_chunk_spans"]

#: The string fields kept, in column order (null when a record lacks one).
PSILOQA_STRINGS = ("id", "lang", "question", "wiki_title", "wiki_url", "wiki_passage",
                   "golden_answer", "llm_answer", "llm_checkpoint", "annotated_span")
_SPLITS = ("train", "validation", "test")
UNPLACED = ("error", "drop")


def read_psiloqa(paths, *, unplaced: str = "error") -> pd.DataFrame:
    """Read PsiloQA split files into a pandas DataFrame, one row per answer.

    Parameters
    ----------
    paths : str, path, list of them, or a directory
        ``.parquet`` files (the published format) or ``.jsonl`` files of the same
        records; a directory is searched for both (sorted); or a data name
        ``"psiloqa[:SPLIT]"`` of a registered copy (`mycelium.datasets`).
    unplaced : {"error", "drop"}, default "error"
        A ``[HAL]`` chunk absent from ``llm_answer``: an error naming file, row and
        field, or (``"drop"``, what the published evaluator does) left out, the number
        left out in ``df.attrs["psiloqa_unplaced"]``.

    Returns
    -------
    pandas.DataFrame
        ``split`` (``train``/``validation``/``test`` from a file name such as
        ``test-00000-of-00001.parquet``, else null), the string columns of
        `PSILOQA_STRINGS`, then ``labels`` (the published spans) and ``hal_labels`` (the
        evaluator's spans from ``annotated_span``; null without one), both
        ``pd.ArrowDtype(SPAN_TYPE)``; ``labels`` is null in a record without it (one
        with neither ``labels`` nor ``annotated_span`` is an error).
        ``df.attrs["psiloqa_unplaced"]`` counts dropped chunks.

    Raises
    ------
    FileNotFoundError
        A path does not exist.
    ValueError
        A record is not an object, ``llm_answer`` is missing, a field has the wrong type.
        Messages name the file, the line (JSON lines) or 1-based row (Parquet), and the
        field.
    mycelium.SpanValidationError
        A label outside ``0 <= start <= end <= len(llm_answer)``, malformed ``[HAL]``
        tags, or (``unplaced="error"``) a chunk not in the answer.

    Notes
    -----
    The locating rule can differ from the tags' own positions: for the answer
    ``"a b a b"`` tagged ``"a b [HAL]a[/HAL] [HAL]b[/HAL]"`` it gives ``[0, 1)`` and
    ``[2, 3)``, as the evaluator does (`hal_chunk_spans`). Empty chunks are skipped, as
    there. ``labels`` is taken as written (not compared with the tags).

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> record = {"id": "q1", "lang": "en", "llm_answer": "Paris is in Germany.",
    ...           "annotated_span": "Paris is in [HAL]Germany[/HAL].",
    ...           "labels": [[12, 19]]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "test-00000-of-00001.jsonl")
    ...     _ = path.write_text(json.dumps(record) + "\\n", encoding="utf-8")
    ...     df = mycelium.read_psiloqa(path)
    >>> df.loc[0, "split"], df.loc[0, "labels"], df.loc[0, "hal_labels"]
    ('test', [{'start': 12, 'end': 19}], [{'start': 12, 'end': 19}])
    """
    if unplaced not in UNPLACED:
        raise ValueError(f"Expected unplaced one of {', '.join(map(repr, UNPLACED))}, got "
                         f"{unplaced!r}; fix by passing one of them.")
    cols: dict[str, list] = {k: [] for k in ("split", *PSILOQA_STRINGS)}
    labels, hal = rec.StructLists(SPAN_TYPE), rec.StructLists(SPAN_TYPE)
    dropped = 0
    files = list(_files(registered_files(paths, "psiloqa", "read_psiloqa") or paths))
    for path in files:
        split = next((s for s in _SPLITS if path.name.startswith(s + "-")
                      or path.stem == s), None)
        for where, record in _records(path):
            cols["split"].append(split)
            for name in PSILOQA_STRINGS:
                value = rec.identifier(record, name, where) if name == "id" else \
                    rec.text(record, name, where, required=name == "llm_answer")
                cols[name].append(value)
            answer = cols["llm_answer"][-1]
            spans = _labels(record, len(answer), where)
            labels.append(spans) if spans is not None else labels.append_null()
            tagged = cols["annotated_span"][-1]
            if tagged is None:
                hal.append_null()
                continue
            spans, lost = _hal_spans(tagged, answer, where, unplaced)
            dropped += lost
            hal.append(spans)
    table = {k: pa.array(v, pa.string()) for k, v in cols.items()}
    table["labels"], table["hal_labels"] = labels.finish(), hal.finish()
    df = rec.to_pandas(pa.table(table))
    df.attrs["psiloqa_unplaced"] = dropped
    return attach_dataset(df, "psiloqa", files)


def hal_chunk_spans(answer: str, chunks) -> tuple[list[tuple[int, int]], list[int]]:
    """Spans of tagged chunks in the answer by PsiloQA's evaluator's rule.

    Each non-empty chunk is looked for with ``answer.find(chunk, cursor)``, ``cursor``
    being the end of the previous chunk placed; when absent there, its first occurrence
    ``answer.find(chunk)``. Returns the spans and the indices of the chunks not found.

    Examples
    --------
    >>> hal_chunk_spans("a b a b", ["a", "b"])
    ([(0, 1), (2, 3)], [])
    >>> hal_chunk_spans("b a", ["a", "b", "c"])
    ([(2, 3), (0, 1)], [2])
    """
    spans, missing, cursor = [], [], 0
    for i, chunk in enumerate(chunks):
        if not chunk:
            continue
        start = answer.find(chunk, cursor)
        if start == -1:
            start = answer.find(chunk)
        if start == -1:
            missing.append(i)
            continue
        spans.append((start, start + len(chunk)))
        cursor = start + len(chunk)
    return spans, missing


def _hal_spans(tagged: str, answer: str, where: rec.Where, unplaced: str):
    try:
        clean, tags = parse_tagged(tagged, tags=("HAL",))
    except SpanValidationError as exc:
        where.fail("annotated_span", str(exc), cls=SpanValidationError)
    chunks = [clean[t["start"]:t["end"]] for t in tags]
    spans, missing = hal_chunk_spans(answer, chunks)
    if missing and unplaced == "error":
        where.fail("annotated_span", f"Expected every [HAL] chunk in llm_answer, got "
                   f"{rec.show(chunks[missing[0]])} (chunk {missing[0]}) nowhere in it; "
                   "fix by correcting the record, or pass unplaced='drop' to leave such "
                   "chunks out as PsiloQA's evaluator does.", span=missing[0],
                   cls=SpanValidationError)
    return spans, len(missing)


def _labels(record: dict, text_len: int, where: rec.Where) -> list[tuple[int, int]] | None:
    value = record.get("labels")
    if value is None:
        if record.get("annotated_span") is None:
            where.fail("labels", "is missing and so is annotated_span; expected a list of "
                       "[start, end] pairs ([] when the answer has no hallucination).")
        return None
    out = []
    for j, span in enumerate(rec.span_list(value, "labels", where)):
        s, e = rec.pair(span, "labels", where, j)
        rec.check_bounds(s, e, text_len, "labels", where, j)
        out.append((s, e))
    return out


def _files(paths) -> list[Path]:
    return rec.jsonl_files(paths, ("*.parquet", "*.jsonl"),
                           "a PsiloQA .parquet or .jsonl file")


def _records(path: Path):
    """``(where, record)`` per row: JSON lines by line, Parquet by 1-based row."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        for i, record in enumerate(pq.read_table(path).to_pylist(), 1):
            yield rec.Where(str(path), i), record
    else:
        yield from rec.iter_records(path)
