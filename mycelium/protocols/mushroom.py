"""A drop-in for the official Mu-SHROOM (SemEval-2025 Task 3) scorer, on mycelium's core.

`score_files` reads one reference and one prediction file in the official jsonl format
and returns what ``participant_kit/scorer.py`` computes: per-example IoU of the hard
labels and Cor (`soft_spearman`) of the soft labels, their unweighted means, and the
text the scorer writes (``"IoU: %.8f\\nCor: %.8f\\n"``).

Reproduced quirks of the official pipeline (each is marked where it is implemented):

- records are paired by ``id`` after sorting both files by id; ids that all look like
  integers sort numerically (pandas turns them into int64 when reading);
- a prediction without ``hard_labels`` gets the soft spans with prob > 0.5 (strict),
  sorted, a span starting exactly at the previous kept span's end extending it; without
  ``soft_labels`` it gets prob-1.0 soft labels on its hard spans; presence is decided
  per file, not per line;
- Cor's constant-vector rule and last-writer-wins vectors (see
  `mycelium.metrics.soft_spearman`).

- numbers are read as the scorer's ``pandas.read_json`` reads them (its fast float
  parser: ``0.5000000000000001`` becomes 0.5, and digits past the 15th decimal are
  dropped, so near-equal 17-digit probabilities tie), the ``mu_shroom`` profile's
  ``float_parse="pandas-fast"`` (`mycelium.io.float_parse`); ``float_parse="exact"``
  reads them correctly rounded instead. On 16 of 46 real submissions that reproduce
  published leaderboard rows, the exact reading changes the printed Cor (by up to
  0.0106).

One path scores every file: both sides become flat span arrays (per example, in the
official order) and IoU and Cor are computed for all examples at once (`_scores`: IoU
from merged span lengths, Cor from `mycelium.metrics.soft_runs.cor_runs`). Files are
read with ``pyarrow.json`` under an explicit schema (`_arrow_flats`); a file that reader
cannot vouch for (Arrow cannot read it, a line holds other than one object, a field is
missing on some lines, null, repeated or of another type, an id is repeated or unmatched,
a span or probability is out of range, a probability written with more than 15 digits
that matter) is read record by record instead (`_record_flats`, also behind
`score_records`), whose checks name the file, line, id and field of the first problem.
A per-record implementation of the official procedure in the tests
(``tests/protocols/mushroom/_mushroom_reference.py``) is the reference both readers are
compared with, to the bit.

Deliberate differences: invalid input (a span outside the text, negative or reversed;
a probability outside [0, 1]; missing, extra or duplicate ids; no label field) is
rejected with an error naming the file, the line, the id, the field and the span — as
the official submission platform rejected such files, and saying which rule of the
task's format checker a span breaks — where the bare scorer crashes or scores nonsense.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ..errors import MyceliumError, SpanValidationError
from ..io.records import json_objects, mapped_bytes, object_lines, primitive_values
from ..io.float_parse import (FloatParseError, key_value_starts, pandas_fast_values,
                              parse_float_hook, resolve_float_parse)
from ..metrics import intervals as iv
from ..metrics.soft_runs import cor_runs
from ..metrics.soft_spearman import cor

__all__ = ["MushroomResult", "MushroomInputError", "score_files", "score_records",
           "derive_hard_labels", "derive_soft_labels", "format_scores"]


@dataclass(frozen=True)
class MushroomResult:
    """Scores of one prediction file against its reference file.

    Attributes
    ----------
    ids : list of str
        The record ids, in the official scorer's order (numeric if all look numeric).
    iou, cor : list of float
        Per-example IoU of the hard labels and Cor (`mycelium.metrics.soft_spearman`)
        of the soft labels, in ``ids`` order.
    iou_mean, cor_mean : float
        Their unweighted means, summed as the official scorer sums them.

    Examples
    --------
    >>> result = MushroomResult(["1"], [0.5], [1.0], 0.5, 1.0)
    >>> print(result.printed, end="")
    IoU: 0.50000000
    Cor: 1.00000000
    """

    ids: list
    iou: list[float]
    cor: list[float]
    iou_mean: float
    cor_mean: float

    @property
    def printed(self) -> str:
        """Exactly what the official scorer writes to its output file."""
        return format_scores(self.iou_mean, self.cor_mean)


def format_scores(iou: float, cor: float) -> str:
    """The official output text: ``IoU: %.8f\\nCor: %.8f\\n``.

    Parameters
    ----------
    iou, cor : float
        The file's mean IoU and mean Cor.

    Returns
    -------
    str
        Two lines, each value with 8 decimals, as ``participant_kit/scorer.py`` writes.

    Examples
    --------
    >>> format_scores(0.8125, 0.8466876226407682)
    'IoU: 0.81250000\\nCor: 0.84668762\\n'
    """
    return f"IoU: {iou:.8f}\nCor: {cor:.8f}\n"


def read_jsonl(path, *, float_parse: str | None = None) -> list[dict]:
    """Records of a jsonl file; errors name the file and line.

    Lines end at ``"\\n"`` only, as for the official scorer's reader: a raw U+2028,
    U+2029 or U+0085 inside a JSON string is part of the string. A byte order mark at
    the start of the file is dropped. Floats are read by ``float_parse`` (default: the
    ``mu_shroom`` profile's ``"pandas-fast"``, as the official scorer reads them;
    ``"exact"``: correctly rounded).
    """
    return _read_lines(path, resolve_float_parse(float_parse))[0]


def _read_lines(path, rule: str) -> tuple[list[dict], list[int]]:
    """The records of a jsonl file and the line number of each."""
    path = Path(path)
    hook = parse_float_hook(rule)
    try:
        with open(path, "rb") as fh:
            pairs = list(json_objects(fh, str(path), at=lambda n: f"{path}, line {n}",
                                      error=MushroomInputError, parse_float=hook))
    except OSError as exc:
        raise MushroomInputError(f"{path}: cannot read the file ({exc.strerror}).") from None
    return [record for _, record in pairs], [line for line, _ in pairs]


def derive_hard_labels(soft_labels: list[dict[str, Any]]) -> list[list[int]]:
    """Hard labels of a prediction that has only soft labels (the official rule).

    Parameters
    ----------
    soft_labels : list of dict
        ``{"start", "end", "prob"}`` spans, half-open offsets.

    Returns
    -------
    list of [start, end]
        The spans with ``prob > 0.5`` (strictly), sorted by ``(start, end)``; a span
        starting exactly at the previous kept span's end extends it.

    Examples
    --------
    >>> derive_hard_labels([{"start": 5, "end": 9, "prob": 0.9},
    ...                     {"start": 0, "end": 5, "prob": 0.6},
    ...                     {"start": 9, "end": 12, "prob": 0.5}])
    [[0, 9]]
    """
    kept = sorted((s for s in soft_labels if s["prob"] > 0.5),
                  key=lambda s: (s["start"], s["end"]))
    hard: list[list[int]] = []
    prev_end = None
    for span in kept:
        # Quirk of the official Mu-SHROOM scorer (recompute_hard_labels): a span starting
        # exactly where the previous kept span ended overwrites that span's end.
        if hard and span["start"] == prev_end:
            hard[-1][1] = span["end"]
        else:
            hard.append([span["start"], span["end"]])
        prev_end = span["end"]
    return hard


def derive_soft_labels(hard_labels: list[list[int]]) -> list[dict[str, Any]]:
    """Soft labels of a prediction that has only hard labels: prob 1.0 on each span.

    Parameters
    ----------
    hard_labels : list of [start, end]
        Half-open spans.

    Returns
    -------
    list of dict
        One ``{"start", "end", "prob": 1.0}`` per span, in the given order.

    Examples
    --------
    >>> derive_soft_labels([[0, 4], [6, 9]])
    [{'start': 0, 'end': 4, 'prob': 1.0}, {'start': 6, 'end': 9, 'prob': 1.0}]
    """
    return [{"start": s, "end": e, "prob": 1.0} for s, e in hard_labels]


def score_files(ref_path: str | os.PathLike[str],
                pred_path: str | os.PathLike[str], *,
                float_parse: str | None = None) -> MushroomResult:
    """Score one official-format prediction file against its reference file.

    Parameters
    ----------
    ref_path : str or path
        The reference jsonl file (``id``, ``model_output_text``, ``hard_labels``,
        ``soft_labels`` per line).
    pred_path : str or path
        The prediction jsonl file: ``id`` and ``hard_labels`` and/or ``soft_labels``
        per line (a missing field is derived as the official scorer derives it).
    float_parse : {"pandas-fast", "exact"}, optional
        How both files' numbers become floats. The default is the ``mu_shroom``
        profile's ``"pandas-fast"``: as the official scorer's ``pandas.read_json``
        reads them, so that the output is the official one on every file;
        ``"exact"`` reads them correctly rounded (`mycelium.io.float_parse`).

    Returns
    -------
    MushroomResult
        Per-example IoU and Cor, their means and the official output text.

    Raises
    ------
    MushroomInputError
        A file cannot be read or is not valid JSON lines, ids are missing, extra or
        repeated, a label field is missing or malformed, a span or probability is out
        of range, or the file holds what the official scorer itself refuses (a byte
        order mark, a null id, hard labels of floats or of dicts); the message names the
        file, the line, the id and the field (and the span, with the rule it breaks).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> ref = {"id": "a", "model_output_text": "Paris is in Italy.",
    ...        "hard_labels": [[12, 17]],
    ...        "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667}]}
    >>> pred = {"id": "a", "hard_labels": [[9, 17]]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ref_path, pred_path = pathlib.Path(tmp, "ref.jsonl"), pathlib.Path(tmp, "pred.jsonl")
    ...     _ = ref_path.write_text(json.dumps(ref) + "\\n", encoding="utf-8")
    ...     _ = pred_path.write_text(json.dumps(pred) + "\\n", encoding="utf-8")
    ...     result = score_files(ref_path, pred_path)
    >>> result.iou, result.cor
    ([0.625], [0.6933752452815364])
    >>> print(result.printed, end="")
    IoU: 0.62500000
    Cor: 0.69337525
    """
    rule = resolve_float_parse(float_parse)
    for path in (ref_path, pred_path):
        refuse_byte_order_mark(path)
    flats = _arrow_flats(Path(ref_path), Path(pred_path), rule)
    if flats is None:  # read record by record: its checks say what is wrong, and where
        refs, ref_lines = _read_lines(ref_path, rule)
        preds, pred_lines = _read_lines(pred_path, rule)
        flats = _record_flats(refs, preds, str(ref_path), str(pred_path), ref_lines,
                              pred_lines)
    return _scores(*flats)


def score_records(refs: list[dict[str, Any]], preds: list[dict[str, Any]], *,
                  ref_name: str = "reference", pred_name: str = "prediction"
                  ) -> MushroomResult:
    """`score_files` on records already read (dicts in the official format).

    Parameters
    ----------
    refs, preds : list of dict
        Reference and prediction records, in any order (paired by ``id``).
    ref_name, pred_name : str
        Names of the two sides in error messages (`score_files` passes the paths).

    Returns
    -------
    MushroomResult
        As `score_files` (whose Raises section lists the `MushroomInputError` cases).

    Notes
    -----
    IoU is `mycelium.metrics.iou` of the hard labels (1.0 when both are empty) and Cor
    is `mycelium.metrics.soft_spearman` of the soft labels, under the ``mu_shroom``
    profile; the means are numpy's mean over the examples in id order.

    Examples
    --------
    >>> refs = [{"id": "a", "model_output_text": "Paris is in Italy.",
    ...          "hard_labels": [[12, 17]],
    ...          "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667}]},
    ...         {"id": "b", "model_output_text": "The sky is blue.",
    ...          "hard_labels": [], "soft_labels": []}]
    >>> preds = [{"id": "b", "soft_labels": []},
    ...          {"id": "a", "soft_labels": [{"start": 9, "end": 12, "prob": 0.4},
    ...                                      {"start": 12, "end": 17, "prob": 0.9}]}]
    >>> result = score_records(refs, preds)
    >>> result.ids, result.iou, result.iou_mean
    (['a', 'b'], [1.0, 1.0], 1.0)
    >>> result.cor
    [0.8660254037844386, 1.0]
    """
    return _scores(*_record_flats(refs, preds, ref_name, pred_name))


#: Both sides of a file pair for `_scores`: the ids in the official order; ``order``,
#: the row of each of them in the arrays that follow (None: the arrays are in the
#: official order); and per example, by row, the text length, the hard labels
#: ``(offsets, starts, ends)`` and the soft labels ``(offsets, starts, ends, probs)`` of
#: the reference and the prediction.
_Flats = tuple


def _scores(ids: list, order: np.ndarray | None, n: np.ndarray, ref_hard: tuple,
            pred_hard: tuple, ref_soft: tuple, pred_soft: tuple) -> MushroomResult:
    """The official scores of validated flat spans (`_Flats`), every example at once;
    the scores are put in the official order, not the spans."""
    iou = _iou(ref_hard, pred_hard, n.size)
    cors = cor_runs(n, ref_soft, pred_soft, slow=cor)
    if order is not None:
        iou, cors = iou[order], cors[order]
    iou, cors = iou.tolist(), cors.tolist()
    # Quirk of the official Mu-SHROOM scorer: the file score is numpy's mean over the
    # examples in id order. mycelium's own macro means are exact; here the official
    # summation is kept so that the means, not only their printed digits, are the
    # scorer's to the last bit.
    return MushroomResult(ids, iou, cors, float(np.mean(iou)), float(np.mean(cors)))


# ------------------------------------------------------------------ record reader

def _record_flats(refs: list[dict], preds: list[dict], ref_name: str, pred_name: str,
                  ref_lines: list[int] | None = None, pred_lines: list[int] | None = None
                  ) -> _Flats:
    """`_Flats` of records, each checked as the submission platform checked it; errors
    name the file (and, with the records' line numbers, the line), the id and the field."""
    # The record path's modules load when it runs: the columnar path needs none of them.
    from ..core.pipeline import prepare
    from ..metrics.soft_spearman import soft_arrays

    _check_references(refs, ref_name)
    hard, soft = _label_fields(preds, pred_name)
    ref_by_id = _by_id(refs, ref_name)
    pred_by_id = _by_id(preds, pred_name)
    _same_ids(ref_by_id, pred_by_id, ref_name, pred_name)
    ids = _official_order(list(ref_by_id))
    pairs = [(ref_by_id[i], pred_by_id[i]) for i in ids]
    pred_name_of = _namer(pred_name, preds, pred_lines)
    ref_name_of = _namer(ref_name, refs, ref_lines)
    pred_hard, pred_soft = [], []
    lengths = [len(r["model_output_text"]) for r, _ in pairs]
    first_bad, converted = _hard_batch(pairs, lengths) if hard else (0, None)
    for k, (r, p) in enumerate(pairs):
        n = lengths[k]
        if hard:
            h = converted[k] if converted is not None and k < first_bad \
                else _checked_hard(p, n, pred_name_of(p))
            so = _checked_soft(p, n, pred_name_of(p)) if soft else derive_soft_labels(h)
        else:  # _label_fields: a file without hard labels has soft labels
            so = _checked_soft(p, n, pred_name_of(p))
            h = derive_hard_labels(so)
        pred_hard.append(h)
        pred_soft.append(so)
    text_lengths = np.array(lengths, dtype=np.int64)
    try:
        # The references' spans are checked (and both sides' made canonical) as
        # `mycelium.evaluate` checks them; the predictions' passed above.
        prepared = prepare([r["hard_labels"] for r, _ in pairs], pred_hard,
                           text=[r["model_output_text"] for r, _ in pairs])
        ref_soft = soft_arrays([r["soft_labels"] for r, _ in pairs], text_lengths,
                               "soft_references")
        pred_soft_flat = soft_arrays(pred_soft, text_lengths, "soft_predictions")
    except SpanValidationError as exc:
        raise _located(exc, pairs, (ref_name, pred_name), (ref_name_of, pred_name_of)) \
            from None
    spans = [(b.offsets, b.starts, b.ends) for b in (prepared.refs, prepared.preds)]
    return ids, None, text_lengths, spans[0], spans[1], ref_soft, pred_soft_flat


def _hard_batch(pairs: list, lengths: list[int]) -> tuple[int, list | None]:
    """Every prediction's hard labels converted at once, and the position of the first
    record whose labels are invalid (``len(pairs)`` when none is). From that record on
    (or for every record, when the batch is not plain integer pairs) each is checked
    alone, so errors still come in record order, with the record's own message."""
    labels = [p["hard_labels"] for _, p in pairs]
    if not all(isinstance(x, list) for x in labels):
        return 0, None
    try:
        arr = pa.array(labels)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return 0, None
    if pa.types.is_list(arr.type) and pa.types.is_null(arr.type.value_type):
        return len(pairs), [[] for _ in labels]  # no spans at all
    if arr.type != _HARD:
        return 0, None
    inner = arr.flatten()
    if inner.null_count or (len(inner) and pc.min_max(pc.list_value_length(inner)).as_py()
                            != {"min": 2, "max": 2}) or inner.flatten().null_count:
        return 0, None
    flat = inner.flatten().to_numpy().reshape(-1, 2)
    counts = np.array([len(x) for x in labels], dtype=np.int64)
    s, e = flat[:, 0], flat[:, 1]
    bad = (s < 0) | (s > e) | (e > np.repeat(np.array(lengths, dtype=np.int64), counts))
    first = len(pairs)
    if bad.any():
        first = int(np.searchsorted(np.cumsum(counts), int(np.flatnonzero(bad)[0]),
                                    side="right"))
    pairs_list = flat.tolist()
    ends = np.cumsum(counts).tolist()
    return first, [pairs_list[b - c:b] for b, c in zip(ends, counts.tolist())]


def _official_order(ids: list[str]) -> list[str]:
    # Quirk of the official Mu-SHROOM scorer: pandas reads integer-looking ids as int64,
    # so they sort numerically; other ids sort as strings. Only the order of the mean's
    # summation depends on this.
    if ids and all(_is_int(i) for i in ids):
        return sorted(ids, key=int)
    return sorted(ids)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------- Arrow reader

_SOFT = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                            ("prob", pa.float64())]))
_HARD = pa.list_(pa.list_(pa.int64()))
_FIELDS = {"id": pa.string(), "model_output_text": pa.string(), "hard_labels": _HARD,
           "soft_labels": _SOFT}


class _Decline(Exception):
    """The Arrow reader does not serve these files; the record reader will."""


def _arrow_flats(ref_path: Path, pred_path: Path, float_parse: str) -> _Flats | None:
    """`_Flats` of the two files read by ``pyarrow.json``, or None when the record
    reader must decide (see the module docstring).

    With ``float_parse="pandas-fast"`` the probabilities are not Arrow's (correctly
    rounded) values but those of the official reader's parser: every ``"prob":`` value
    is found in the file's bytes and parsed by `mycelium.io.float_parse.pandas_fast_values`.
    The values found must be as many as Arrow's and, one by one, within 1e-14 of them,
    or the record reader decides."""
    try:
        return _arrow_read(ref_path, pred_path, float_parse)
    except (_Decline, OSError, pa.ArrowException, ValueError, TypeError, KeyError,
            OverflowError, MemoryError, FloatParseError):
        return None


def _read(path: Path, fields: tuple[str, ...], float_parse: str, pool: ThreadPoolExecutor
          ) -> tuple[pa.Table, dict[str, bool], np.ndarray | None]:
    """The table of ``fields``, which of them the file has, and (pandas-fast) the
    probabilities of the soft labels as the official reader reads them. The file's bytes
    are checked and searched in ``pool`` while Arrow parses them."""
    data = mapped_bytes(path)
    scanned = pool.submit(_scan, data, float_parse)
    schema = pa.schema([(f, _FIELDS[f]) for f in fields])
    table = pj.read_json(pa.BufferReader(pa.py_buffer(data)), parse_options=pj.ParseOptions(
        explicit_schema=schema, unexpected_field_behavior="ignore"))
    lines, found = scanned.result()
    rows = table.num_rows
    if rows == 0 or rows != lines:
        raise _Decline
    present = {}
    for f in fields:
        nulls = table.column(f).null_count
        if nulls == 0:  # a value on every line (a repeated key is an Arrow error)
            present[f] = True
        elif nulls == rows and data.find(b'"' + f.encode() + b'"') < 0:
            present[f] = False  # never written (not merely null)
        else:
            raise _Decline
    probs = None
    if float_parse == "pandas-fast" and present.get("soft_labels"):
        probs = _fast_probs(found, table.column("soft_labels"))
    return table, present, probs


def _scan(data, float_parse: str) -> tuple[int, np.ndarray | FloatParseError | None]:
    """What the bytes alone tell: their lines (`_Decline`-worthy problems raise: bad
    UTF-8, which the record reader reports, even in a field Arrow skips), and under
    ``"pandas-fast"`` the value of every ``"prob":`` key as pandas' fast parser reads
    it (or its error, which matters only if the file has soft labels)."""
    _check_utf8(data)
    lines = object_lines(data)
    if float_parse != "pandas-fast":
        return lines, None
    try:
        found, _ = pandas_fast_values(np.frombuffer(data, dtype=np.uint8),
                                      key_value_starts(data, "prob"))
    except FloatParseError as exc:
        return lines, exc
    return lines, found


def _fast_probs(found: np.ndarray | FloatParseError | None, column) -> np.ndarray:
    """The soft spans' probabilities as pandas' fast parser reads them, in Arrow's order
    (``found``: `_scan`'s values of the ``"prob"`` keys).

    Quirk of the official Mu-SHROOM scorer: it reads with ``pandas.read_json``, whose
    default parser keeps 15 fraction digits and rounds on the way (see
    `mycelium.io.float_parse`); the values are found in the bytes, since Arrow's are
    correctly rounded and cannot be turned back into the text."""
    if isinstance(found, FloatParseError):
        raise found
    inner, _ = _list_offsets(column)
    field = inner.field("prob")
    if inner.null_count or field.null_count:
        raise _Decline
    exact = primitive_values(field).astype(np.float64)
    if found is None or found.size != exact.size:
        raise _Decline  # a "prob" key elsewhere, or one Arrow reads that is spelt otherwise
    # The values found must be the ones Arrow read, one by one: the fast reading is
    # within 1e-14 (relative, and absolute below 1) of the exact one unless the text has
    # more than 15 fraction digits that matter, which the record reader then reads.
    if not np.allclose(found, exact, rtol=1e-14, atol=1e-14, equal_nan=True):
        raise _Decline
    return found


def _check_utf8(data: bytes) -> None:
    """Raise ``pa.ArrowInvalid`` unless ``data`` is UTF-8: Arrow validates the bytes as
    one string value in place (no copy of the file)."""
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64))
    whole = pa.LargeBinaryArray.from_buffers(pa.large_binary(), 1,
                                             [None, offsets, pa.py_buffer(data)])
    whole.cast(pa.large_string())


def _arrow_read(ref_path: Path, pred_path: Path, float_parse: str) -> _Flats:
    # The prediction file is read in a second thread while this one reads the
    # references, and each file's bytes are scanned in a third and fourth while Arrow
    # parses them: Arrow's parser and numpy's scans release the GIL, and the scans fill
    # the cores the parses leave idle.
    with ThreadPoolExecutor(3) as pool:
        pending = pool.submit(_read, pred_path, ("id", "hard_labels", "soft_labels"),
                              float_parse, pool)
        refs, have, ref_probs = _read(ref_path, ("id", "model_output_text", "hard_labels",
                                                 "soft_labels"), float_parse, pool)
        preds, pred_have, pred_probs = pending.result()
    if not all(have.values()):
        raise _Decline
    if not pred_have["id"] or not (pred_have["hard_labels"] or pred_have["soft_labels"]):
        raise _Decline
    ids, to_ref, official = _paired_ids(refs.column("id"), preds.column("id"))
    # Scored in the reference file's order, the predictions' spans brought to it (a
    # gather of their flat arrays, none when the files share an order); the scores
    # are then put in the official order.
    n = primitive_values(pc.utf8_length(refs.column("model_output_text"))).astype(np.int64)
    n_pred = np.empty_like(n)
    n_pred[to_ref] = n
    ref_hard = _pairs(refs.column("hard_labels"), n)
    ref_soft = _soft(refs.column("soft_labels"), n, ref_probs)
    if pred_have["hard_labels"]:
        pred_hard = _take_rows(_pairs(preds.column("hard_labels"), n_pred), to_ref)
    if pred_have["soft_labels"]:
        pred_soft = _take_rows(_soft(preds.column("soft_labels"), n_pred, pred_probs),
                               to_ref)
    if not pred_have["hard_labels"]:
        # Quirk of the official Mu-SHROOM scorer (recompute_hard_labels): hard labels are
        # the soft spans with prob > 0.5, a span starting at the previous one's end
        # extending it; as an index set that is the union of those spans.
        off, s, e, p = pred_soft
        kept = p > 0.5
        pred_hard = (_kept_offsets(off, kept), s[kept], e[kept])
    if not pred_have["soft_labels"]:
        off, s, e = pred_hard
        pred_soft = (off, s, e, np.ones(s.size))
    return ids, official, n, ref_hard, pred_hard, ref_soft, pred_soft


def _paired_ids(ref_col, pred_col) -> tuple[list, np.ndarray, np.ndarray]:
    """The ids in the official order, each reference's row in the prediction file, and
    the reference rows in the official order; `_Decline` unless both files hold the
    same ids, each once (no id is null: `_read` checked every line has one).

    Matched and ordered by Arrow's kernels, without a Python dict of 2 x 100,000 ids
    (only a set of the reference ids, to find a repeated one): string ids sort by their
    UTF-8 bytes, which is the code-point order of Python's ``sorted``; ids that all look
    like integers take `_official_order`."""
    rows = len(ref_col)
    if len(pred_col) != rows:
        raise _Decline
    found = pc.index_in(ref_col, value_set=pred_col)
    if found.null_count:  # an id of one file is not in the other
        raise _Decline
    ref_ids = ref_col.to_pylist()
    if len(set(ref_ids)) != rows:
        raise _Decline
    # As many lines, every reference id found and none repeated: the prediction file
    # holds each id once too.
    to_ref = primitive_values(found).astype(np.int64)
    if ref_ids and all(_is_int(i) for i in ref_ids):
        ids = _official_order(ref_ids)
        ref_at = {k: i for i, k in enumerate(ref_ids)}
        return ids, to_ref, np.array([ref_at[i] for i in ids], dtype=np.int64)
    official = primitive_values(pc.sort_indices(ref_col)).astype(np.int64)
    return [ref_ids[k] for k in official.tolist()], to_ref, official


def _take_rows(flat: tuple, rows: np.ndarray) -> tuple:
    """Flat per-example spans ``(offsets, *columns)`` with the examples ``rows``."""
    offsets, *columns = flat
    if np.array_equal(rows, np.arange(rows.size)):
        return flat
    counts = np.diff(offsets)[rows]
    out = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    at = np.repeat(offsets[:-1][rows] - out[:-1], counts) + np.arange(out[-1])
    return (out, *(c[at] for c in columns))


def _list_offsets(column) -> tuple[pa.Array, np.ndarray]:
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    counts = primitive_values(pc.list_value_length(arr)).astype(np.int64)
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return arr.flatten(), offsets


def _pairs(column, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``[[start, end], ...]`` per example as (offsets, starts, ends), checked."""
    inner, offsets = _list_offsets(column)
    if inner.null_count or (len(inner) and pc.min_max(pc.list_value_length(inner)).as_py()
                            != {"min": 2, "max": 2}):
        raise _Decline
    values = inner.flatten()
    if values.null_count:
        raise _Decline
    flat = primitive_values(values).reshape(-1, 2)
    s, e = flat[:, 0].copy(), flat[:, 1].copy()
    _check(offsets, s, e, n)
    return offsets, s, e


def _soft(column, n, probs: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """``[{start, end, prob}, ...]`` per example as (offsets, starts, ends, probs);
    ``probs`` (when given) replaces the column's probabilities."""
    inner, offsets = _list_offsets(column)
    if inner.null_count:
        raise _Decline
    fields = [inner.field(f) for f in ("start", "end", "prob")]
    if any(f.null_count for f in fields):
        raise _Decline
    s, e, p = (primitive_values(f) for f in fields)
    if probs is not None:
        p = probs
    _check(offsets, s, e, n)
    if not ((p >= 0.0) & (p <= 1.0)).all():
        raise _Decline
    return offsets, s.astype(np.int64), e.astype(np.int64), p.astype(np.float64)


def _check(offsets, s, e, n) -> None:
    limit = np.repeat(n, np.diff(offsets))
    if not ((s >= 0) & (s <= e) & (e <= limit)).all():
        raise _Decline


def _kept_offsets(offsets, kept) -> np.ndarray:
    ex = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    out = np.zeros(offsets.size, dtype=np.int64)
    np.cumsum(np.bincount(ex[kept], minlength=offsets.size - 1), out=out[1:])
    return out


#: Spans (of both sides) whose IoU is computed together: a block's temporaries stay in
#: the cache and their memory is reused (arrays over 100,000 examples are each fresh
#: memory).
_IOU_BLOCK = 1 << 16


def _iou(ref, pred, m: int) -> np.ndarray:
    """Per-example IoU of the index sets of two span batches (1.0 when both are empty),
    a block of about `_IOU_BLOCK` spans at a time."""
    blocks = iv.example_blocks(np.diff(ref[0]) + np.diff(pred[0]), _IOU_BLOCK)
    if len(blocks) <= 1:
        return _iou_block(ref, pred, m)
    return np.concatenate([_iou_block(iv.span_rows(ref, lo, hi), iv.span_rows(pred, lo, hi),
                                      hi - lo) for lo, hi in blocks])


def _iou_block(ref, pred, m: int) -> np.ndarray:
    ea, eb = (np.repeat(np.arange(m, dtype=np.int64), np.diff(o)) for o in (ref[0], pred[0]))
    a = _covered(ea, ref[1], ref[2], m)
    b = _covered(eb, pred[1], pred[2], m)
    union = _covered(np.concatenate([ea, eb]), np.concatenate([ref[1], pred[1]]),
                     np.concatenate([ref[2], pred[2]]), m)
    inter = a + b - union
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / union
    return np.where(union == 0, 1.0, out)


def _covered(ex, s, e, m: int) -> np.ndarray:
    """Characters covered by each example's spans (the size of their union), int64."""
    keep = s < e
    ex, s, e = ex[keep], s[keep], e[keep]
    out = np.zeros(m, dtype=np.int64)
    if s.size == 0:
        return out
    width = int(e.max()) + 1
    ks = ex * width + s  # (example, start) packed: in that order as span lists usually are
    if (ks[1:] < ks[:-1]).any():
        # A union's two sides are each in that order: one stable sort of the packed
        # keys merges the two runs in about linear time.
        order = np.argsort(ks, kind="stable")
        ex, ks, e = ex[order], ks[order], e[order]
    ke = ex * width + e
    reach = iv.running_max(ke)
    head = np.ones(ks.size, dtype=bool)
    head[1:] = ks[1:] > reach[:-1]
    heads = np.flatnonzero(head)
    tails = np.append(heads[1:], ks.size) - 1
    np.add.at(out, ex[heads], reach[tails] - ks[heads])
    return out

# --------------------------------------------------------------------------
# The record path's checks: whether records are what the official submission
# platform accepted (fields present on every line or on none, ids unique and paired,
# spans within the text, probabilities in [0, 1]), and every refusal worded as
# ``<file>[, line <n>]: id '<id>', field '<field>'[, span <j>]: <problem>``, with the
# rule of the task's format checker a span breaks.


class MushroomInputError(MyceliumError, ValueError):
    """A reference or prediction file the official platform would have rejected.

    The message names the file (and, for a record, its id and the field).

    Examples
    --------
    >>> from mycelium.protocols.mushroom import score_records
    >>> try:
    ...     score_records([], [])
    ... except MushroomInputError as exc:
    ...     print(exc)
    reference: the reference file has no records.
    """


def _check_references(refs: list[dict], name: str) -> None:
    if not refs:
        raise MushroomInputError(f"{name}: the reference file has no records.")
    for i, r in enumerate(refs):
        for field in ("id", "model_output_text", "hard_labels", "soft_labels"):
            if field not in r:
                raise MushroomInputError(f"{name}: record {_rid(r, i)} has no '{field}' "
                                         "field; a reference needs id, model_output_text, "
                                         "hard_labels and soft_labels.")
        if not isinstance(r["model_output_text"], str):
            raise MushroomInputError(f"{name}: {_rid(r, i)}, field 'model_output_text': "
                                     f"expected a string, got {r['model_output_text']!r}.")
        for field in ("hard_labels", "soft_labels"):
            if not isinstance(r[field], list):
                raise MushroomInputError(f"{name}: {_rid(r, i)}, field '{field}': expected a "
                                         f"list, got {r[field]!r}.")
        _integer_pairs(r, name)


def refuse_byte_order_mark(path) -> None:
    """Refuse a file that starts with a UTF-8 byte order mark.

    Quirk of the official Mu-SHROOM scorer: its reader (``pandas.read_json``) refuses
    such a file, and the scorer stops with argparse's "invalid value" error, so the
    platform could not score it. `mycelium.protocols.mushroom.read_jsonl` (a reader,
    not the drop-in) still drops the mark.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(3)
    except OSError:
        return  # the reader reports it, with the reason
    if head == b"\xef\xbb\xbf":
        raise MushroomInputError(f"{path}: the file starts with a UTF-8 byte order mark, "
                                 "which the official scorer's reader refuses (the platform "
                                 "could not score it); fix by saving the file as UTF-8 "
                                 "without a BOM.")


def _integer_pairs(record: dict, name: str) -> None:
    """Refuse hard labels that are not ``[int, int]`` pairs.

    Quirk of the official Mu-SHROOM scorer: it reads each hard label with
    ``range(*span)``, which stops the whole file with a TypeError on a float offset
    (even an integral one such as ``3.0``) and on a ``{"start", "end"}`` dict (the
    range of its keys). `mycelium.evaluate` reads both; the drop-in refuses them.
    """
    labels = record.get("hard_labels")
    if not isinstance(labels, list):
        return  # the list check names it
    for j, span in enumerate(labels):
        if isinstance(span, dict):
            problem = (f"expected a [start, end] pair, got the dict {span!r}; the official "
                       "scorer reads a hard label with range(*span), which fails on a dict "
                       "(the platform could not score the file); fix by writing "
                       "[start, end].")
        elif isinstance(span, list) and len(span) == 2 and any(
                isinstance(v, float) for v in span):
            problem = (f"expected integer offsets, got {span!r}; the official scorer reads "
                       "a hard label with range(*span), which fails on a float, even an "
                       "integral one (the platform could not score the file); fix by "
                       "writing integers.")
        else:
            continue
        raise MushroomInputError(f"{name}: id {record.get('id')!r}, field 'hard_labels', "
                                 f"span {j}: {problem}")


def _checked_hard(p: dict, text_len: int, name: str) -> list[list[int]]:
    """The prediction's hard labels as int pairs, validated against the text."""
    from ..core.inputs import from_python
    from ..core.spans import validate

    labels = _listed_hard(p, name)
    _integer_pairs(p, name)
    try:
        batch, _ = from_python([labels], "predictions", single=True)
        validate(batch, "predictions", np.array([text_len]))
    except SpanValidationError as exc:
        raise MushroomInputError(_span_error(exc, name, p, "hard_labels", text_len)) from None
    return [list(pair) for pair in zip(batch.starts.tolist(), batch.ends.tolist())]


def _checked_soft(p: dict, text_len: int, name: str) -> list[dict]:
    """The prediction's soft labels, validated (types, bounds, probabilities)."""
    from ..metrics.soft_spearman import soft_vector

    labels = _listed_soft(p, name)
    try:
        soft_vector(labels, text_len, "soft_predictions", 0)
    except SpanValidationError as exc:
        raise MushroomInputError(_span_error(exc, name, p, "soft_labels", text_len)) from None
    return labels


def _span_error(exc: SpanValidationError, name: str, record: dict, field: str,
                text_len: int) -> str:
    """``<file>[:<line>]: id '<id>', field '<field>', span <j>: <problem>`` and the
    format-checker rule the span breaks."""
    from ..io.mushroom import checker_rule

    at = f"{name}: id {record['id']!r}, field '{field}'"
    rule = ""
    if exc.span is not None:
        at += f", span {exc.span}"
        span = record[field][exc.span]
        if field == "hard_labels" and isinstance(span, (list, tuple)) and len(span) == 2:
            rule = checker_rule(span[0], span[1], text_len)
        elif field == "soft_labels" and isinstance(span, dict):
            rule = checker_rule(span.get("start"), span.get("end"), text_len,
                                has_prob="prob" in span)
    return f"{at}: {_after_location(exc)} {rule}".rstrip()


def _namer(name: str, records: list[dict], lines: list[int] | None):
    """``record -> "<file>:<line>"`` (just the file's name without line numbers)."""
    if lines is None:
        return lambda record: name
    line_of = {id(r): n for r, n in zip(records, lines)}
    return lambda record: f"{name}, line {line_of[id(record)]}"


def _after_location(exc: SpanValidationError) -> str:
    text = str(exc)
    return text.split(": ", 1)[1] if ": " in text else text


def _rid(record: dict, i: int) -> str:
    return f"id {record['id']!r}" if "id" in record else f"#{i + 1}"


def _label_fields(preds: list[dict], name: str) -> tuple[bool, bool]:
    """Which label fields the prediction file has (decided per file, as officially)."""
    present = {}
    for field in ("hard_labels", "soft_labels"):
        have = [field in p for p in preds]
        if any(have) and not all(have):
            i = have.index(False)
            raise MushroomInputError(
                f"{name}: record {_rid(preds[i], i)} has no '{field}' field although other "
                "records have it; give the field on every line or on none.")
        present[field] = bool(preds) and all(have)
    if preds and not (present["hard_labels"] or present["soft_labels"]):
        raise MushroomInputError(f"{name}: no 'hard_labels' or 'soft_labels' field; a "
                                 "prediction file must contain at least one of them.")
    return present["hard_labels"], present["soft_labels"]


def _by_id(records: list[dict], name: str) -> dict[Any, dict]:
    out: dict[Any, dict] = {}
    for i, r in enumerate(records):
        if "id" not in r:
            raise MushroomInputError(f"{name}: record #{i + 1} has no 'id' field.")
        if r["id"] is None:
            # Quirk of the official Mu-SHROOM scorer: it asserts that each pair's ids are
            # equal after sorting by id; a null id (NaN in its frame) fails that.
            raise MushroomInputError(f"{name}: record #{i + 1}, field 'id': the id is null, "
                                     "which the official scorer refuses (its check that "
                                     "paired ids are equal fails); fix by giving every "
                                     "record its id.")
        key = _id_key(r["id"])
        if key in out:
            raise MushroomInputError(f"{name}: id {r['id']!r} appears more than once; ids "
                                     "must be unique.")
        out[key] = r
    return out


def _id_key(value):
    return str(value)


def _same_ids(refs: dict, preds: dict, ref_name: str, pred_name: str) -> None:
    missing = [i for i in refs if i not in preds]
    extra = [i for i in preds if i not in refs]
    if missing:
        raise MushroomInputError(f"{pred_name}: no prediction for id {missing[0]!r} of "
                                 f"{ref_name} ({len(missing)} missing); every reference id "
                                 "needs exactly one prediction.")
    if extra:
        raise MushroomInputError(f"{pred_name}: id {extra[0]!r} is not in {ref_name} "
                                 f"({len(extra)} extra); remove predictions for unknown ids.")


def _listed(p: dict, name: str, field: str, items: str) -> list:
    """Record ``p``'s ``field``, refused unless it is a list (of ``items``)."""
    labels = p[field]
    if not isinstance(labels, list):
        raise MushroomInputError(f"{name}: id {p['id']!r}, field '{field}': expected a "
                                 f"list of {items}, got {labels!r}.")
    return labels


def _listed_soft(p: dict, name: str) -> list:
    return _listed(p, name, "soft_labels", "{start, end, prob}")


def _listed_hard(p: dict, name: str) -> list:
    return _listed(p, name, "hard_labels", "[start, end]")


def _located(exc: SpanValidationError, pairs: list, names: tuple[str, str], namers):
    side = exc.side or ""
    k = 0 if side in ("references", "soft_references") else 1
    field = "soft_labels" if side.startswith("soft") else "hard_labels"
    if exc.example is None:
        return MushroomInputError(f"{names[k]}: a record, field '{field}': {exc}")
    record = pairs[exc.example][k]
    return MushroomInputError(f"{namers[k](record)}: id {record['id']!r}, field "
                              f"'{field}': {exc}")
