"""`read_lettucedetect_predictions`: a LettuceDetect detector's outputs, one per answer, as
the columns `mycelium.evaluate` and the frame faces take.

Format (KRLabsOrg/LettuceDetect@102f7f29009aeca4365a9d9731e46f13bab099b6):
``HallucinationDetector.predict`` / ``predict_prompt`` return, per answer, a list —
``output_format="spans"``: ``{"start", "end", "confidence", "text"}`` objects
(lettucedetect/detectors/transformer.py builds them from runs of positive tokens;
the LLM detector gives ``start``/``end``/``text``); ``output_format="tokens"``:
``{"token", "pred", "prob"}`` objects, one per answer token including the trailing
special token — and the ``lettucedetect`` command prints that list as JSON
(lettucedetect/cli.py). Its web API wraps the list as ``{"predictions": [...]}`` with
``hallucination_score`` in place of ``confidence`` / ``prob`` (lettucedetect_api/models.py).
A file holds one such output per answer, in the answers' order: a JSON array of them, or
JSON lines. The outputs carry no id, so rows pair with the samples
(`mycelium.read_lettucedetect`) by position.

Offsets. ``start`` and ``end`` are code points into the answer, half-open: the detector
takes them from the tokenizer's offset mapping, relative to the first answer token's
start (so an answer whose first token does not start at 0 — leading whitespace that the
tokenizer skips — gets every span shifted by that much; `read_lettucedetect_predictions`
with ``answers=`` finds such files, as a span's ``text`` then differs from
``answer[start:end]``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Sequence

import pandas as pd
import pyarrow as pa

from ..errors import SpanValidationError
from . import records as rec
from .lettucedetect import array_values
from .provenance import attach_dataset

__all__ = ["read_lettucedetect_predictions", "LETTUCEDETECT_PREDICTION_TYPE"]

#: Arrow type of ``pred``: the predicted spans with the detector's confidence (null when
#: the output gives none).
LETTUCEDETECT_PREDICTION_TYPE = pa.list_(pa.struct([
    ("start", pa.int64()), ("end", pa.int64()), ("confidence", pa.float64()),
]))
_SCORE_KEYS = ("confidence", "hallucination_score")
_TOKEN_SCORE_KEYS = ("prob", "hallucination_score")


def read_lettucedetect_predictions(path, *, answers: Sequence[str] | None = None,
                                   name: str | None = None) -> pd.DataFrame:
    """Read a LettuceDetect detector's outputs (spans or tokens), one per answer.

    Parameters
    ----------
    path : str or path
        A ``.json`` file holding a JSON array with one output per answer, or a
        ``.jsonl`` file with one output per line. An output is the detector's list, or
        the API's ``{"predictions": [...]}``; every output of a file has one form.
    answers : sequence of str, optional
        The answers, in the same order (e.g. ``read_lettucedetect(...)["answer"]``). With
        them, spans are checked to lie within their answer and to read their ``text``
        there; token outputs get ``token_offsets`` from `mycelium.align_tokens`.
    name : str, optional
        The name recorded in the provenance (default ``"lettucedetect_predictions"``).

    Returns
    -------
    pandas.DataFrame
        A ``RangeIndex``, one row per answer. Span outputs: column ``pred``
        (``pd.ArrowDtype(LETTUCEDETECT_PREDICTION_TYPE)``). Token outputs: columns
        ``tokens`` (list of str), ``token_scores`` (the probability of the hallucinated
        class), ``token_preds`` (the detector's 0/1 decision, null where the output gives
        none), and with ``answers`` ``token_offsets`` (``[start, end]`` per token).
        ``attrs["mycelium_dataset"]`` records the file (`mycelium.io.provenance`).

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        Not JSON, an output that is not a list, outputs of two forms, ``answers`` of
        another length than the outputs, or a span whose ``text`` is not
        ``answer[start:end]``. Messages name the file, the line and the span.
    mycelium.SpanValidationError
        A span that is not ``0 <= start <= end`` (``<= len(answer)`` with ``answers``).

    Examples
    --------
    >>> import json, pathlib, tempfile, mycelium
    >>> from mycelium.io import read_lettucedetect_predictions
    >>> outputs = [[{"start": 8, "end": 16, "confidence": 0.93, "text": "ran home"}], []]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "predictions.json")
    ...     _ = path.write_text(json.dumps(outputs), encoding="utf-8")
    ...     df = read_lettucedetect_predictions(path, answers=["The fox ran home.",
    ...                                                         "It slept."])
    >>> [[(s["start"], s["end"]) for s in row] for row in df["pred"]]
    [[(8, 16)], []]
    >>> mycelium.evaluate([[[8, 12]], []], df["pred"], profile="lettucedetect")["character"]
    {'precision': 0.5, 'recall': 1.0, 'f1': 0.6666666666666666}
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{str(p)!r} does not exist; expected a .json or .jsonl "
                                "file of LettuceDetect outputs.")
    outputs = list(_outputs(p))
    if answers is not None:
        answers = list(answers)
        if len(answers) != len(outputs):
            raise ValueError(f"Expected one output per answer, got {len(outputs)} outputs "
                             f"in {p} for {len(answers)} answers; fix by passing the "
                             "answers the detector scored, in the same order.")
    forms = {_form(items, where) for where, items in outputs if items}
    if len(forms) > 1:
        raise ValueError(f"{p}: expected outputs of one form, got both span and token "
                         "outputs; fix by writing spans and tokens to separate files.")
    form = forms.pop() if forms else "spans"
    if form == "spans":
        frame = _spans_frame(outputs, answers)
    else:
        frame = _tokens_frame(outputs, answers)
    return attach_dataset(frame, name or "lettucedetect_predictions", [p])


def _outputs(path: Path) -> Iterator[tuple[rec.Where, list]]:
    """Each output with where it starts: a JSON array's items, else JSON lines."""
    text = rec.decode_text(path.read_bytes(), str(path))
    if text.lstrip(" \t\r\n").startswith("[") and path.suffix != ".jsonl":
        pairs: Iterator[tuple[rec.Where, Any]] = array_values(path, text, "detector outputs")
    else:
        pairs = (_line(path, i + 1, line) for i, line in enumerate(text.split("\n"))
                 if line.strip())
    for where, value in pairs:
        if isinstance(value, dict) and "predictions" in value:
            value = value["predictions"]
        if not isinstance(value, list):
            where.fail("predictions", f"expected the detector's list of spans or tokens, "
                       f"got {type(value).__name__} {rec.show(value)}.")
        yield where, value


def _line(path: Path, lineno: int, line: str) -> tuple[rec.Where, Any]:
    try:
        return rec.Where(str(path), lineno), json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg}); expected one "
                         "detector output (a JSON list) per line.") from None


def _form(items: list, where: rec.Where) -> str:
    first = items[0]
    if isinstance(first, dict) and "token" in first:
        return "tokens"
    if isinstance(first, dict) and "start" in first:
        return "spans"
    where.fail("predictions", f"expected span objects (start, end) or token objects "
               f"(token, pred, prob), got {rec.show(first)}.")


def _score(item: dict, keys: tuple[str, ...]) -> float | None:
    value = next((item[k] for k in keys if item.get(k) is not None), None)
    return None if value is None else float(value)


def _spans_frame(outputs, answers) -> pd.DataFrame:
    column = rec.StructLists(LETTUCEDETECT_PREDICTION_TYPE)
    for k, (where, items) in enumerate(outputs):
        answer = None if answers is None else answers[k]
        rows = []
        for j, item in enumerate(items):
            if not isinstance(item, dict):
                where.fail("predictions", f"expected a span object, got {rec.show(item)}.",
                           span=j, cls=SpanValidationError)
            s, e = rec.pair(item, "predictions", where, j)
            rec.check_bounds(s, e, None if answer is None else len(answer), "predictions",
                             where, j)
            said = item.get("text")
            if answer is not None and isinstance(said, str) and answer[s:e] != said:
                where.fail("predictions", f"text {rec.show(said)} is not answer[{s}:{e}] = "
                           f"{rec.show(answer[s:e])} (answer {k}); expected offsets into "
                           "the answer. Fix by passing the answers in the outputs' order; "
                           "an answer whose first token does not start at 0 gets shifted "
                           "offsets from the detector.", span=j)
            rows.append((s, e, _score(item, _SCORE_KEYS)))
        column.append(rows)
    return rec.to_pandas(pa.table({"pred": column.finish()}))


def _tokens_frame(outputs, answers) -> pd.DataFrame:
    from ..adapters.tokens import align_tokens

    tokens: list[list[str]] = []
    scores: list[list[float | None]] = []
    preds: list[list[Any]] = []
    for where, items in outputs:
        t_row: list[str] = []
        s_row: list[float | None] = []
        p_row: list[Any] = []
        for j, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("token"), str):
                where.fail("predictions", f"expected a token object with a 'token' string, "
                           f"got {rec.show(item)}.", span=j)
            score = _score(item, _TOKEN_SCORE_KEYS)
            if score is None:
                where.fail("predictions", f"expected 'prob' or 'hallucination_score', got "
                           f"keys {sorted(item)}.", span=j)
            t_row.append(item["token"])
            s_row.append(score)
            p_row.append(None if item.get("pred") is None else int(item["pred"]))
        tokens.append(t_row)
        scores.append(s_row)
        preds.append(p_row)
    table = {"tokens": pa.array(tokens, pa.list_(pa.string())),
             "token_scores": pa.array(scores, pa.list_(pa.float64())),
             "token_preds": pa.array(preds, pa.list_(pa.int64()))}
    if answers is not None:
        offsets = [[list(o) for o in align_tokens(a, t)] for a, t in zip(answers, tokens)]
        table["token_offsets"] = pa.array(offsets, pa.list_(pa.list_(pa.int64())))
    return rec.to_pandas(pa.table(table))
