"""`score_fava`: FAVA's fine-grained detection scores, per error type, sentence by sentence.

Reproduces ``run_detection`` of abhika-m/FAVA @ 7ec08c2dcbff016a7b6af93152994600b646f0a5
(``utils.py``, called by ``eval/run_eval.py --metric detection``): both tagged texts are
split into sentences; sentence k of the reference is compared with sentence k of the
prediction, for k below the shorter count (**quirk**: sentences are aligned by index and
the longer list is cut, so a prediction that splits one sentence in two shifts every
later comparison, and trailing sentences are never scored); a type is *in* a sentence
when one of its tags opens there. Per example and type, precision is the share of the
predicted sentences with the type whose reference sentence has it, recall the converse.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .._version import __version__
from ..core.exactsum import exact_mean
from ..core.profiles import Profile, get_profile
from ..io.fava import FAVA_ERROR_TYPES

__all__ = ["score_fava", "SENTENCE_ALIGNMENTS"]

#: ``"index"``: FAVA's rule (sentence k with sentence k, cut to the shorter list);
#: ``"strict"``: the same, but sentence lists of different lengths are an error.
SENTENCE_ALIGNMENTS = ("index", "strict")


def _starts(sentences, name: str, k: int) -> np.ndarray:
    out = []
    for j, s in enumerate(sentences):
        v = s.get("start") if isinstance(s, Mapping) else (s[0] if isinstance(
            s, (Sequence, np.ndarray)) and not isinstance(s, str) else s)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"Expected a sentence as (start, end) or a start offset, got "
                             f"{s!r}, at {name} example {k}, sentence {j}; fix by passing "
                             "code-point offsets.")
        out.append(int(v))
    arr = np.asarray(out, dtype=np.int64)
    if arr.size > 1 and (np.diff(arr) <= 0).any():
        raise ValueError(f"Expected sentences in text order, got starts {out}, at {name} "
                         f"example {k}; fix by sorting them.")
    return arr


def _presence(spans, starts: np.ndarray, n: int, types) -> np.ndarray:
    """(n sentences, types) booleans: a span of the type starts in the sentence."""
    out = np.zeros((n, len(types)), dtype=bool)
    col = {t: i for i, t in enumerate(types)}
    for span in spans or ():
        t = span.get("type") if isinstance(span, Mapping) else span[2]
        s = span.get("start") if isinstance(span, Mapping) else span[0]
        if t not in col or not starts.size or s is None:
            continue
        k = int(np.searchsorted(starts, int(s), side="right")) - 1  # last sentence starting <= s
        if 0 <= k < n:
            out[k, col[t]] = True
    return out


def _example(ref, pred, rs, ps, types, alignment, k):
    if alignment == "strict" and rs.size != ps.size:
        raise ValueError(f"Expected as many prediction sentences as reference sentences, "
                         f"got {ps.size} and {rs.size}, at example {k}; fix by splitting "
                         "both the same way, or pass sentence_alignment='index' (FAVA's "
                         "rule: cut to the shorter list).")
    n = min(rs.size, ps.size)  # Quirk of FAVA's run_detection: cut to the shorter list.
    g, p = _presence(ref, rs, n, types), _presence(pred, ps, n, types)
    stats = {"prec_num": (g & p).sum(0), "prec_den": p.sum(0),
             "rec_num": (g & p).sum(0), "rec_den": g.sum(0)}
    return {key: v.astype(np.int64) for key, v in stats.items()}


def _ratio(num, den) -> float:
    return float(num) / float(den) if den else math.nan


def score_fava(references, predictions, *, reference_sentences, prediction_sentences=None,
               types=FAVA_ERROR_TYPES, sentence_alignment: str = "index",
               profile: str | Profile | None = "fava") -> dict:
    """FAVA's per-type, sentence-level precision and recall of typed error spans.

    Parameters
    ----------
    references, predictions : sequence of span lists
        One list per example of typed spans, ``{"start", "end", "type"}`` or
        ``(start, end, type)`` (`mycelium.read_fava`'s ``labels``), each side into its
        own text.
    reference_sentences, prediction_sentences : sequence of lists
        Per example, the sentences of each side's text as ``(start, end)`` or start
        offsets, in order (FAVA splits the tagged texts with spaCy's
        ``en_core_web_sm``). Without ``prediction_sentences`` both sides use
        ``reference_sentences`` (the same text). A span belongs to the last sentence
        starting at or before its start (where its opening tag stands).
    types : sequence of str, default `mycelium.io.fava.FAVA_ERROR_TYPES`
        The error types scored; spans of other types are not counted.
    sentence_alignment : {"index", "strict"}, default "index"
        ``"index"``: FAVA's quirk (module docstring); ``"strict"``: different sentence
        counts are an error.
    profile : str or Profile, default "fava"
        Recorded in the signature.

    Returns
    -------
    dict
        ``per_example``: per example ``{"precision": {type: v}, "recall": {type: v},
        "overall_precision", "overall_recall"}`` as FAVA's ``run_detection`` writes
        them (a type with no sentence to average over is absent; an overall value with
        no type is NaN where FAVA writes -1); ``precision`` / ``recall``: per type the
        mean of the defined per-example values (NaN when none), and ``overall_precision``
        / ``overall_recall`` the mean of the defined per-example overall values (FAVA's
        code stops at per-example values; these means are mycelium's);
        ``meta``: ``examples``, ``sentence_alignment``, ``signature``.

    Examples
    --------
    >>> ref = [[{"start": 0, "end": 3, "type": "entity"}]]
    >>> pred = [[{"start": 0, "end": 3, "type": "entity"},
    ...          {"start": 9, "end": 12, "type": "invented"}]]
    >>> r = score_fava(ref, pred, reference_sentences=[[(0, 8), (8, 14)]])
    >>> r["per_example"][0]["precision"], r["per_example"][0]["recall"]
    ({'entity': 1.0, 'invented': 0.0}, {'entity': 1.0})
    >>> r["overall_precision"], r["overall_recall"]
    (0.5, 1.0)
    """
    if sentence_alignment not in SENTENCE_ALIGNMENTS:
        raise ValueError(f"Expected sentence_alignment one of "
                         f"{', '.join(map(repr, SENTENCE_ALIGNMENTS))}, got "
                         f"{sentence_alignment!r}; fix by passing one of them.")
    refs, preds = list(references), list(predictions)
    rsent = list(reference_sentences)
    psent = rsent if prediction_sentences is None else list(prediction_sentences)
    if not len(refs) == len(preds) == len(rsent) == len(psent):
        raise ValueError(f"Expected one entry per example on every side, got "
                         f"{len(refs)} references, {len(preds)} predictions, {len(rsent)} "
                         f"and {len(psent)} sentence lists; fix by aligning them.")
    types = tuple(types)
    per, prec_t, rec_t, overall_p, overall_r = [], [], [], [], []
    for k, (g, p, gs, ps) in enumerate(zip(refs, preds, rsent, psent)):
        st = _example(g, p, _starts(gs, "reference_sentences", k),
                      _starts(ps, "prediction_sentences", k), types, sentence_alignment, k)
        prec = {t: _ratio(st["prec_num"][i], st["prec_den"][i])
                for i, t in enumerate(types) if st["prec_den"][i]}
        rec = {t: _ratio(st["rec_num"][i], st["rec_den"][i])
               for i, t in enumerate(types) if st["rec_den"][i]}
        op = exact_mean(np.array(list(prec.values()))) if prec else math.nan
        orr = exact_mean(np.array(list(rec.values()))) if rec else math.nan
        per.append({"precision": prec, "recall": rec, "overall_precision": op,
                    "overall_recall": orr})
        prec_t.append(prec)
        rec_t.append(rec)
        overall_p.append(op)
        overall_r.append(orr)
    prof = get_profile(profile)
    sig = (f"mycelium:{__version__}|profile:{prof.tag if prof else 'none'}|"
           f"metrics:fava_detection|types:{','.join(types)}|"
           f"sentence_alignment:{sentence_alignment}|average:macro|offsets:half-open")
    return {"per_example": per,
            "precision": {t: _mean([d[t] for d in prec_t if t in d]) for t in types},
            "recall": {t: _mean([d[t] for d in rec_t if t in d]) for t in types},
            "overall_precision": _mean([v for v in overall_p if not math.isnan(v)]),
            "overall_recall": _mean([v for v in overall_r if not math.isnan(v)]),
            "meta": {"examples": len(refs), "sentence_alignment": sentence_alignment,
                     "profile": prof.name if prof else None, "signature": sig}}


def _mean(values) -> float:
    return exact_mean(np.array(values, dtype=np.float64)) if values else math.nan
