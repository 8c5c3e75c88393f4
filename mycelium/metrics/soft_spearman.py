"""``soft_spearman``: the official Mu-SHROOM "Cor" between per-character soft labels.

Per example, each side becomes a vector of ``len(text)`` zeros; every soft span
``{start, end, prob}`` writes its ``prob`` over its characters **in list order, the last
writer winning**. Then:

- if either vector is constant after Python ``round(x, 8)``, the score is 1.0 when both
  are constant and 0.0 otherwise — even when the two constants differ;
- otherwise it is Spearman's rho with average ranks, computed on the unrounded values;
- an empty text gives NaN (and so does the file mean, as in the official scorer).

The score is always a mean over examples, whatever ``average`` says (meta records it).
Per-character vectors are inherent to this definition, so it needs the text.

Examples
--------
Soft labels over an 8-character text: the reference writes 1.0 over ``[0, 4)``, the
prediction 0.9 then 0.5; the unmarked characters are 0 on both sides:

>>> import mycelium
>>> ref = [{"start": 0, "end": 4, "prob": 1.0}]
>>> pred = [{"start": 0, "end": 2, "prob": 0.9}, {"start": 2, "end": 4, "prob": 0.5}]
>>> mycelium.evaluate([[0, 4]], [[0, 4]], text="abcdefgh", soft_references=ref,
...                   soft_predictions=pred, metrics="soft_spearman")["soft_spearman"]
{'score': 0.9428090415820632}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from ..errors import SpanValidationError
from .soft_runs import cor_runs

MEASURES = ("score",)


def soft_statistics(soft_references, soft_predictions, prepared, *, text) -> dict:
    """Per-example Cor for the examples kept by ``prepared`` (a `Prepared`)."""
    lengths, flat_a, flat_b = soft_flat(soft_references, soft_predictions, prepared,
                                        text=text)
    return {"score": cor_runs(lengths, flat_a, flat_b, slow=cor)}


def soft_flat(soft_references, soft_predictions, prepared, *, text, labels: bool = False
              ) -> tuple[np.ndarray, tuple, tuple]:
    """The text lengths of the examples kept by ``prepared`` and both sides' soft labels
    as flat ``(offsets, starts, ends, probs)``, validated; with ``labels``, each side's
    tuple ends with the spans' ``label`` strings (an object array), required."""
    if text is None:
        raise ValueError("soft_spearman needs the text of every example (its soft-label "
                         "vectors have one entry per character); pass text=...")
    lengths = prepared.text_lengths
    if lengths is not None and (lengths < 0).any():
        k = int(np.flatnonzero(prepared.kept)[np.flatnonzero(lengths < 0)[0]])
        problem = ("is None; soft_spearman needs the text of every example (its "
                   "soft-label vectors have one entry per character)")
        raise SpanValidationError(f"text example {k}: {problem}; fix by giving that example "
                                  "a str in text=.", side="text", example=k,
                                  problem=problem + ".", fix="text")
    if not prepared.single:
        kept = np.flatnonzero(prepared.kept)
        fast_a = _arrow_flat(soft_references, kept, lengths, prepared.n_input, labels)
        fast_b = None if fast_a is None else _arrow_flat(
            soft_predictions, kept, lengths, prepared.n_input, labels)
        if fast_a is not None and fast_b is not None:
            return lengths, fast_a, fast_b
    # One span at a time: any problem is then reported where it is, in this order.
    refs = _examples(_python(soft_references), "soft_references", prepared)
    preds = _examples(_python(soft_predictions), "soft_predictions", prepared)
    positions = np.flatnonzero(prepared.kept).tolist()
    flat_a: tuple[list, ...] = ([0], [], [], []) + (([],) if labels else ())
    flat_b: tuple[list, ...] = ([0], [], [], []) + (([],) if labels else ())
    for i, pos in enumerate(positions):
        n = int(lengths[i])
        _collect(refs[pos], n, "soft_references", pos, flat_a)
        _collect(preds[pos], n, "soft_predictions", pos, flat_b)
    return lengths, _arrays(flat_a), _arrays(flat_b)


def _python(obj):
    """An Arrow column of soft labels as Python lists (anything else as it is)."""
    return obj.to_pylist() if isinstance(obj, (pa.Array, pa.ChunkedArray)) else obj


def _arrow_flat(obj, kept: np.ndarray, lengths: np.ndarray, n_input: int, labels: bool
                ) -> tuple[np.ndarray, ...] | None:
    """The flat soft labels of the ``kept`` rows of an Arrow ``list<struct<start, end,
    prob[, label]>>`` column, read column-wise, when every span is valid (integer
    offsets within its text, a probability in [0, 1], with ``labels`` a label string);
    None otherwise, and for any other input: the span-by-span path then reads it, and
    names the first problem. Both paths give the same arrays."""
    if not isinstance(obj, (pa.Array, pa.ChunkedArray)) or len(obj) != n_input:
        return None
    kind = obj.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) \
            or not pa.types.is_struct(kind.value_type):
        return None
    fields = {f.name: f.type for f in kind.value_type}
    if not all(k in fields and pa.types.is_integer(fields[k]) for k in ("start", "end")) \
            or "prob" not in fields or not (pa.types.is_floating(fields["prob"])
                                            or pa.types.is_integer(fields["prob"])) \
            or (labels and not ("label" in fields and (pa.types.is_string(fields["label"])
                                or pa.types.is_large_string(fields["label"])))):
        return None
    arr = obj.combine_chunks() if isinstance(obj, pa.ChunkedArray) else obj
    arr = arr.take(pa.array(kept, pa.int64()))
    if arr.null_count:
        return None
    counts = arr.value_lengths().to_numpy(zero_copy_only=False).astype(np.int64)
    spans = arr.flatten()
    names = ["start", "end", "prob"] + (["label"] if labels else [])
    columns = [spans.field(k) for k in names]
    if spans.null_count or any(c.null_count for c in columns):
        return None
    s, e = (c.to_numpy(zero_copy_only=False).astype(np.int64) for c in columns[:2])
    p = columns[2].to_numpy(zero_copy_only=False).astype(np.float64)
    n = np.repeat(np.asarray(lengths, dtype=np.int64), counts)
    if not ((0 <= s) & (s <= e) & (e <= n) & (0.0 <= p) & (p <= 1.0)).all():
        return None
    out: tuple[np.ndarray, ...] = (
        np.concatenate(([0], np.cumsum(counts))).astype(np.int64), s, e, p)
    if labels:
        out += (columns[3].to_numpy(zero_copy_only=False).astype(object),)
    return out


def _examples(obj, side: str, prepared) -> list:
    if prepared.single:
        obj = [obj]
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, Sequence):
        if hasattr(obj, "tolist"):
            obj = obj.tolist()
        else:
            raise TypeError(f"{side} is a {type(obj).__name__}; expected a list of "
                            "[{start, end, prob}, ...] per example.")
    if len(obj) != prepared.n_input:
        raise ValueError(f"{side} has {len(obj)} examples but the spans have "
                         f"{prepared.n_input}; pass one soft-label list per example.")
    return list(obj)


def soft_vector(spans, n: int, side: str, k: int) -> np.ndarray:
    """The per-character probability vector of one example (last writer wins)."""
    vec = np.zeros(n, dtype=np.float64)
    for s, e, p in _checked(spans, n, side, k):
        vec[s:e] = p
    return vec


def _checked(spans, n: int, side: str, k: int, labels: bool = False):
    """``(start, end, prob)`` of every span of one example, in list order, validated;
    with ``labels``, ``(start, end, prob, label)``."""
    if spans is None:
        raise SpanValidationError(f"{side} example {k} is None; expected a list of "
                                  "{start, end, prob} (use [] for no soft labels).",
                                  side=side, example=k)
    for j, span in enumerate(spans):
        where = f"{side} example {k}, span {j}"
        if not isinstance(span, Mapping) or not {"start", "end", "prob"} <= set(span):
            raise SpanValidationError(f"{where}: expected {{'start', 'end', 'prob'}}, "
                                      f"got {span!r}.", side=side, example=k, span=j)
        s, e, p = span["start"], span["end"], span["prob"]
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (s, e)):
            raise SpanValidationError(f"{where}: start and end must be integers, got "
                                      f"{s!r}, {e!r}.", side=side, example=k, span=j)
        if not 0 <= s <= e <= n:
            raise SpanValidationError(
                f"{where}: [{s}, {e}) is not within the text (len {n}); expected "
                "0 <= start <= end <= len(text).", side=side, example=k, span=j)
        if isinstance(p, bool) or not isinstance(p, (int, float, np.number)) \
                or not 0.0 <= float(p) <= 1.0:
            raise SpanValidationError(f"{where}: prob {p!r} is not a probability in "
                                      "[0, 1].", side=side, example=k, span=j)
        if not labels:
            yield int(s), int(e), float(p)
            continue
        label = span.get("label")
        if not isinstance(label, str):
            raise SpanValidationError(
                f"{where}: expected a 'label' string (soft_spearman_by_label reads each "
                f"span's label), got {label!r}; fix by giving every span its label.",
                side=side, example=k, span=j)
        yield int(s), int(e), float(p), label


def soft_arrays(examples: list, lengths: np.ndarray, side: str) -> tuple[np.ndarray, ...]:
    """Flat ``(offsets, starts, ends, probs)`` of soft labels, example k checked against
    ``lengths[k]`` (a `SpanValidationError` names ``side``, the example and the span)."""
    flat: tuple[list, list, list, list] = ([0], [], [], [])
    for k, spans in enumerate(examples):
        _collect(spans, int(lengths[k]), side, k, flat)
    return _arrays(flat)


def _collect(spans, n: int, side: str, k: int, out) -> None:
    starts = out[1]
    for span in _checked(spans, n, side, k, labels=len(out) == 5):
        for column, value in zip(out[1:], span):
            column.append(value)
    out[0].append(len(starts))


def _arrays(flat) -> tuple[np.ndarray, ...]:
    offsets, starts, ends, probs = flat[:4]
    out: tuple[np.ndarray, ...] = (
        np.array(offsets, dtype=np.int64), np.array(starts, dtype=np.int64),
        np.array(ends, dtype=np.int64), np.array(probs, dtype=np.float64))
    if len(flat) == 5:
        labels = np.empty(len(flat[4]), dtype=object)
        labels[:] = flat[4]
        out += (labels,)
    return out


def cor(a: np.ndarray, b: np.ndarray) -> float:
    """Official Mu-SHROOM Cor of two per-character vectors (see module docstring)."""
    if a.size == 0:
        return math.nan  # Quirk of the official scorer: spearmanr([], []) is NaN.
    # Quirk of the official Mu-SHROOM scorer: constancy is tested on Python round(x, 8)
    # and two constant vectors score 1.0 even when their constants differ.
    # (Rounding the distinct values only gives the same set, much faster.)
    const_a = len({round(x, 8) for x in np.unique(a).tolist()}) == 1
    const_b = len({round(x, 8) for x in np.unique(b).tolist()}) == 1
    if const_a or const_b:
        return 1.0 if const_a and const_b else 0.0
    rho = np.corrcoef(average_ranks(a), average_ranks(b))[0, 1]
    return float(rho)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given their average rank (scipy's ``rankdata`` default)."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new = np.ones(x.size, dtype=bool)
    new[1:] = xs[1:] != xs[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, x.size))
    avg = starts + (counts - 1) / 2.0 + 1.0
    ranks = np.empty(x.size, dtype=np.float64)
    ranks[order] = np.repeat(avg, counts)
    return ranks
