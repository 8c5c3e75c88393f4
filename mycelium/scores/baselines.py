"""Baseline detectors built from what the benchmark files themselves carry.

`token_logit_scores` turns a Mu-SHROOM record's ``model_output_tokens`` and
``model_output_logits`` (the generating model's logit of each emitted token) into token
offsets and token scores, the score form `evaluate`, `sweep` and `tune_threshold`
take: a real, if weak, uncertainty detector ("the model was unsure here") that needs no
model run. Imports ``adapters`` and ``errors`` only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..adapters.tokens import align_tokens
from ..core.inputs import list_literal

__all__ = ["token_logit_scores"]

_EXTRA = ("raise", "drop_last")


def token_logit_scores(record: Mapping[str, Any], *, extra_logits: str = "raise",
                       report: bool = False):
    """Token offsets and scores in [0, 1] from a record's tokens and their logits.

    Parameters
    ----------
    record : mapping
        A Mu-SHROOM record (a dict read from the JSONL file, or a row of
        ``read_mushroom(..., keep_extra=True)``) with ``model_output_text``,
        ``model_output_tokens`` and ``model_output_logits``. Token and logit lists
        stored as strings (the Catalan test file stores Python-repr strings) are parsed
        as JSON, else as a Python literal; anything else is an error.
    extra_logits : {"raise", "drop_last"}, default "raise"
        What to do when there are more logits than tokens (135 records of the EN and DE
        test files have exactly one more): ``"raise"`` stops with the record's id;
        ``"drop_last"`` ignores the logits after the last token (the files do not say
        which one is spurious; the extra one is at the end in the generation order).
        Fewer logits than tokens is always an error.
    report : bool, default False
        Also return a dict saying what was done: ``tokens``, ``dropped_logits`` (how
        many), ``parsed_strings`` (the lists were strings), ``constant`` (every logit
        equal, scores all 0.0), and the alignment's ``placed`` / ``special`` /
        ``unplaced`` / ``unknown`` token counts (`mycelium.align_tokens`).

    Returns
    -------
    (list of (int, int), numpy.ndarray), or a 3-tuple with the report dict
        One code-point ``(start, end)`` per token (`mycelium.align_tokens` of the tokens
        against ``model_output_text``, ``trim=True``) and one float64 score per token.

    Raises
    ------
    ValueError
        Missing fields, lists that are not lists, non-finite logits, fewer logits than
        tokens, or more with ``extra_logits="raise"``; the message names the record's id.

    Notes
    -----
    The score is the per-example min-max of the negated logit,
    ``s_i = (max(l) - l_i) / (max(l) - min(l))``: monotone decreasing in the logit, so
    the least confident token of the output scores 1.0 and the most confident 0.0.
    Scores are therefore comparable within an output, not across outputs (a threshold
    applies to each output's own range). When every logit is equal, which covers a
    single token, no token is less confident than another and every score is 0.0
    (``constant`` in the report; 9 Swedish records have all-zero logits). No tokens gives
    no offsets and no scores. Special tokens (``<|im_end|>``, ``</s>``) keep their
    score but get zero-length offsets, so they mark no character.

    Examples
    --------
    >>> from mycelium.scores.baselines import token_logit_scores
    >>> rec = {"id": "x", "model_output_text": "Paris is in Peru.",
    ...        "model_output_tokens": ["Paris", "Ġis", "Ġin", "ĠPeru", "."],
    ...        "model_output_logits": [20.0, 25.0, 24.0, 10.0, 30.0]}
    >>> offsets, scores = token_logit_scores(rec)
    >>> offsets
    [(0, 5), (6, 8), (9, 11), (12, 16), (16, 17)]
    >>> scores.tolist()
    [0.5, 0.25, 0.3, 1.0, 0.0]
    >>> import mycelium
    >>> mycelium.spans_at(0.6, token_offsets=offsets, token_scores=scores)
    [[12, 16]]
    """
    if extra_logits not in _EXTRA:
        raise ValueError(f"Expected extra_logits one of {', '.join(_EXTRA)}, got "
                         f"{extra_logits!r}; fix by passing one of them.")
    rid = record.get("id", "?") if hasattr(record, "get") else "?"
    where = f"record {rid!r}"
    for key in ("model_output_text", "model_output_tokens", "model_output_logits"):
        if key not in record or record[key] is None:
            raise ValueError(f"Expected a record with {key!r}, got none, at {where}; fix "
                             "by reading the val v2 or labeled test (.extra) files.")
    parsed = False
    tokens = record["model_output_tokens"]
    logits = record["model_output_logits"]
    if isinstance(tokens, str):
        tokens, parsed = _literal(tokens, "model_output_tokens", where), True
    if isinstance(logits, str):
        logits, parsed = _literal(logits, "model_output_logits", where), True
    tokens = [str(t) for t in _as_list(tokens, "model_output_tokens", where)]
    values = np.asarray(_as_list(logits, "model_output_logits", where), dtype=np.float64)
    dropped = values.size - len(tokens)
    if dropped < 0 or (dropped > 0 and extra_logits == "raise"):
        fix = ("pass extra_logits='drop_last' to ignore the logits after the last token"
               if dropped > 0 else "pass the logits of every token")
        raise ValueError(f"Expected one logit per token, got {values.size} logits for "
                         f"{len(tokens)} tokens, at {where}; fix by {fix}.")
    values = values[:len(tokens)]
    if not np.isfinite(values).all():
        i = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"Expected finite logits, got {float(values[i])!r}, at {where}, "
                         f"token {i}; fix by removing or replacing that record.")
    offsets, rep = align_tokens(record["model_output_text"], tokens, report=True)
    constant = values.size > 0 and bool(values.max() == values.min())
    if values.size == 0 or constant:
        scores = np.zeros(values.size, dtype=np.float64)
    else:
        scores = _min_max(values)
    if not report:
        return offsets, scores
    info = {"tokens": len(tokens), "dropped_logits": max(dropped, 0),
            "parsed_strings": parsed, "constant": constant, "placed": rep.placed,
            "special": rep.special, "unplaced": rep.unplaced, "unknown": rep.unknown}
    return offsets, scores, info


def _min_max(values: np.ndarray) -> np.ndarray:
    """``(max - l) / (max - min)`` for finite logits that are not all equal. Logits so far
    apart that ``max - min`` overflows (±1e308) are halved first, which is exact in
    binary floating point, so every difference and the quotient are what the formula
    gives without the overflow."""
    hi, lo = float(values.max()), float(values.min())
    if not math.isfinite(hi - lo):
        values, hi, lo = values / 2, hi / 2, lo / 2
    return (hi - values) / (hi - lo)


def _literal(value: str, field: str, where: str):
    try:
        return list_literal(value)
    except ValueError:
        raise ValueError(f"Expected {field!r} to be a list or a list literal, got the "
                         f"string {value[:40]!r}, at {where}; fix the file.") from None


def _as_list(value, field: str, where: str) -> list:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"Expected {field!r} to be a list, got {type(value).__name__}, "
                         f"at {where}; fix the file.")
    if field == "model_output_logits" and any(
            isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        bad = next(v for v in value if isinstance(v, bool) or not isinstance(v, (int, float)))
        raise ValueError(f"Expected numeric logits, got {bad!r}, at {where}; fix the file.")
    return list(value)

