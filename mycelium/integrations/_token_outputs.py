"""A token classifier's outputs as token scores: which tokens count, and the probability
of the hallucinated class of each, in the token form `mycelium.evaluate` takes.

`TokenLayout` holds the evaluation set's offset mappings once (flat, per token: example,
position, start, end); `token_form` reads one evaluation's predictions and labels
against it. Numpy only; nothing here imports ``transformers``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..core.arrow_sources import arrow_source
from ..core.token_input import offset_arrays
from ..errors import SpanValidationError

__all__ = ["TokenLayout", "token_layout", "token_form", "token_scores", "check_labels",
           "SCHEMES", "OUTPUTS", "IGNORE_INDEX"]

SCHEMES = ("binary", "bio")
OUTPUTS = ("auto", "logits", "probabilities")
#: The label of a position left out of the loss and the metrics (PyTorch's
#: ``CrossEntropyLoss(ignore_index=-100)``, which Hugging Face's collators write for
#: special tokens, padding and any token not to be scored).
IGNORE_INDEX = -100
#: How far a row of probabilities may sum from 1 (float32 softmax rounding) and still be
#: read as probabilities by ``outputs="auto"``.
_SUM_TOLERANCE = 1e-4


@dataclass(frozen=True, eq=False)
class TokenLayout:
    """The evaluation set's tokens, flat: example, position within the example, start
    and end (int64 code points), and each example's text length."""

    n: int
    example: np.ndarray
    position: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    text_lengths: np.ndarray


def token_layout(offset_mapping, text_lengths: np.ndarray) -> TokenLayout:
    """The `TokenLayout` of ``offset_mapping``: one list of ``(start, end)`` pairs per
    example (``return_offsets_mapping=True``'s lists, a ``(examples, tokens, 2)`` array,
    an Arrow list column or a ``datasets`` column)."""
    n = int(text_lengths.size)
    obj = arrow_source(offset_mapping)
    if isinstance(obj, np.ndarray) and obj.dtype != object and obj.ndim == 3:
        obj = list(obj)  # (examples, tokens, 2): one (tokens, 2) array per example
    read = offset_arrays(obj)
    if read is None:
        raise TypeError("Expected offset_mapping as one list of (start, end) integer pairs "
                        f"per example, got {type(offset_mapping).__name__} that does not "
                        "read as such; fix by passing the tokenizer's offset_mapping "
                        "(return_offsets_mapping=True) of the evaluation set.")
    counts, starts, ends = read
    if counts.size != n:
        raise ValueError(f"Expected one offset mapping per text ({n}), got {counts.size}; "
                         "fix by passing the offset_mapping of the same examples as texts.")
    example = np.repeat(np.arange(n, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    position = np.arange(example.size, dtype=np.int64) - first[example]
    bad = np.flatnonzero((starts < 0) | (starts > ends))
    if bad.size:
        i = int(bad[0])
        raise SpanValidationError(
            f"offset_mapping example {int(example[i])}, token {int(position[i])}: Expected "
            f"0 <= start <= end, got ({int(starts[i])}, {int(ends[i])}); fix by passing "
            "the tokenizer's offset_mapping unchanged.", side="token_offsets",
            example=int(example[i]), span=int(position[i]))
    return TokenLayout(n, example, position, starts, ends, text_lengths)


def _predictions_of(eval_pred):
    """(predictions, label_ids or None) of an ``EvalPrediction`` or a pair."""
    if hasattr(eval_pred, "predictions"):
        predictions, labels = eval_pred.predictions, getattr(eval_pred, "label_ids", None)
    elif isinstance(eval_pred, (tuple, list)) and len(eval_pred) >= 2:
        predictions, labels = eval_pred[0], eval_pred[1]
    else:
        raise TypeError(f"Expected an EvalPrediction or a (predictions, label_ids) pair, got "
                        f"{type(eval_pred).__name__}; fix by passing what Trainer passes "
                        "to compute_metrics.")
    if isinstance(predictions, (tuple, list)):
        # A model that returns more than its logits (hidden states, attentions): the
        # logits come first, as Trainer's own metrics read them.
        predictions = predictions[0]
    return np.asarray(predictions), None if labels is None else np.asarray(labels)


def check_labels(scheme: str, positive_label) -> None:
    """The label options, checked before the number of labels is known."""
    if scheme not in SCHEMES:
        raise ValueError(f"Expected scheme one of {', '.join(SCHEMES)}, got {scheme!r}; fix "
                         "by passing 'binary' (two labels) or 'bio' (O, B, I).")
    many = isinstance(positive_label, (list, tuple, np.ndarray))
    values = list(positive_label) if many else [positive_label]
    if not values or any(isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, np.integer)) or v < 0 for v in values):
        raise ValueError(f"Expected positive_label as a label id (an int >= 0) or a list of "
                         f"them, got {positive_label!r}; fix by passing ids of label2id.")
    if scheme == "binary" and many:
        raise ValueError(f"Expected one positive_label with scheme='binary', got "
                         f"{positive_label!r}; fix by passing scheme='bio' for several "
                         "labels inside a span.")


def _positives(scheme: str, positive_label, n_labels: int) -> list[int]:
    """The label ids whose probabilities add up to a token's score."""
    check_labels(scheme, positive_label)
    many = isinstance(positive_label, (list, tuple, np.ndarray))
    labels = [int(x) for x in positive_label] if many else [int(positive_label)]
    if scheme == "binary" and n_labels != 2:
        raise ValueError(f"Expected scheme='binary' with two labels, got {n_labels}; fix by "
                         "passing scheme='bio' (with positive_label the labels inside a "
                         "span) for more labels.")
    if scheme == "bio":
        if n_labels < 3:
            raise ValueError(f"Expected scheme='bio' with at least three labels (O, B, I), "
                             f"got {n_labels}; fix by passing scheme='binary'.")
        if not many:
            labels = [labels[0], labels[0] + 1]  # B, then its I: ["O", "B-X", "I-X"]
    bad = [x for x in labels if x >= n_labels]
    if bad or len(set(labels)) != len(labels):
        raise ValueError(f"Expected positive labels among the {n_labels} labels "
                         f"(0..{n_labels - 1}), each once, got {labels}; fix by passing the "
                         "label ids of the hallucinated class (label2id).")
    return labels


def token_scores(rows: np.ndarray, *, scheme: str = "binary", positive_label=1,
                 outputs: str = "auto") -> np.ndarray:
    """The hallucinated-class probability of each token, float64 in [0, 1].

    ``rows``: ``(tokens, labels)`` logits or probabilities, or ``(tokens,)`` for one
    output per token. Logits go through a softmax over the labels (float64, shifted by
    each row's maximum), one output per token through a sigmoid; the score is the
    probability of the positive label (``"binary"``), or the sum of the positive labels'
    probabilities (``"bio"``: B and I). ``outputs="auto"`` reads ``(tokens, labels)`` rows
    as probabilities when every value is in [0, 1] and every row sums to 1 (within 1e-4),
    ``(tokens,)`` rows as probabilities (values outside [0, 1] are then an error).
    """
    if outputs not in OUTPUTS:
        raise ValueError(f"Expected outputs one of {', '.join(OUTPUTS)}, got {outputs!r}; "
                         "fix by passing one of them.")
    x = np.asarray(rows, dtype=np.float64)
    if not np.isfinite(x).all():
        raise ValueError("Expected finite predictions, got NaN or infinity; fix by checking "
                         "the model's outputs (a diverged run gives NaN logits).")
    if x.ndim == 1:
        if outputs == "logits":
            with np.errstate(over="ignore"):  # exp(-x) = inf for x < -709: the score is 0
                return 1.0 / (1.0 + np.exp(-x))
        if x.size and (x.min() < 0.0 or x.max() > 1.0):
            raise ValueError(f"Expected probabilities in [0, 1] with one output per token, "
                             f"got values in [{x.min()!r}, {x.max()!r}]; fix by passing "
                             "outputs='logits' for a single logit per token.")
        return x
    labels = _positives(scheme, positive_label, x.shape[1])
    if outputs == "auto":
        outputs = "probabilities" if _are_probabilities(x) else "logits"
    if outputs == "logits":
        e = np.exp(x - x.max(axis=1, keepdims=True))
        p = e[:, labels].sum(axis=1) / e.sum(axis=1)
    else:
        p = x[:, labels].sum(axis=1) if len(labels) > 1 else x[:, labels[0]]
    # The sum of two float32 probabilities may round past 1.0 by an ulp.
    return np.clip(p, 0.0, 1.0)


def _are_probabilities(x: np.ndarray) -> bool:
    return bool(x.size == 0 or (x.min() >= 0.0 and x.max() <= 1.0 and np.abs(
        x.sum(axis=1) - 1.0).max() <= _SUM_TOLERANCE))


@dataclass(frozen=True, eq=False)
class TokenForm:
    """One evaluation's scored tokens as Arrow lists (``token_offsets``,
    ``token_scores``), one list per example."""

    token_offsets: pa.Array
    token_scores: pa.Array
    tokens: int


def _no_labels_past_offsets(layout: TokenLayout, labels: np.ndarray) -> None:
    """Raise when a position past an example's offsets is labelled (not `IGNORE_INDEX`):
    its prediction would be dropped silently, so the offsets are not those of the
    evaluated inputs (the reverse, offsets past the predictions, raises too)."""
    counts = np.bincount(layout.example, minlength=layout.n)
    width = labels.shape[1]
    past = (np.arange(width)[None, :] >= counts[:, None]) & (labels != IGNORE_INDEX)
    if not past.any():
        return
    k, pos = (int(v) for v in np.argwhere(past)[0])
    raise ValueError(f"Expected label {IGNORE_INDEX} past the offset mapping of example {k} "
                     f"({int(counts[k])} token offsets), got label {labels[k, pos].item()} at "
                     f"position {pos} of the {width} positions of the predictions; fix by "
                     "passing the offset_mapping of the inputs the model was evaluated on "
                     "(the same tokenizer, special tokens and truncation).")


def token_form(layout: TokenLayout, eval_pred, *, scheme: str, positive_label,
               outputs: str) -> TokenForm:
    """The scored tokens of one evaluation: every token with a non-empty offset, inside
    the predictions, and not labelled `IGNORE_INDEX` (when labels are given)."""
    predictions, labels = _predictions_of(eval_pred)
    if predictions.ndim not in (2, 3):
        raise ValueError(f"Expected predictions of shape (examples, tokens, labels) or "
                         f"(examples, tokens), got shape {predictions.shape}; fix by passing "
                         "the token classifier's logits (or probabilities).")
    if predictions.shape[0] != layout.n:
        raise ValueError(f"Expected predictions for the {layout.n} examples given to "
                         f"compute_metrics_for, got {predictions.shape[0]}; fix by building "
                         "compute_metrics from the texts, offsets and references of the "
                         "same evaluation set, in its order.")
    width = predictions.shape[1]
    if labels is not None and labels.shape[:2] != predictions.shape[:2]:
        raise ValueError(f"Expected label_ids of shape {predictions.shape[:2]} (one label "
                         f"per token), got {labels.shape}; fix by passing the labels "
                         "Trainer gives with the predictions.")
    if labels is not None:
        _no_labels_past_offsets(layout, labels)
    inside = layout.position < width
    empty = layout.ends == layout.starts
    cut = np.flatnonzero(~inside & ~empty)
    if cut.size:
        i = int(cut[0])
        raise ValueError(f"Expected predictions for every token of the offset mapping, got "
                         f"{width} positions, at example {int(layout.example[i])}, token "
                         f"{int(layout.position[i])} ({int(layout.starts[i])}, "
                         f"{int(layout.ends[i])}); fix by tokenizing the texts with the "
                         "truncation the model was evaluated with.")
    keep = inside & ~empty
    ex, pos = layout.example[keep], layout.position[keep]
    if labels is not None:
        scored = labels[ex, pos] != IGNORE_INDEX
        ex, pos = ex[scored], pos[scored]
        keep[np.flatnonzero(keep)[~scored]] = False
    starts, ends = layout.starts[keep], layout.ends[keep]
    past = np.flatnonzero(ends > layout.text_lengths[ex])
    if past.size:
        i = int(past[0])
        raise SpanValidationError(
            f"offset_mapping example {int(ex[i])}, token {int(pos[i])}: Expected a token "
            f"within the text (len {int(layout.text_lengths[ex[i]])}), got "
            f"({int(starts[i])}, {int(ends[i])}); fix by passing the texts that were "
            "tokenized (for a pair input, the scored sequence), and label -100 the tokens "
            "of any other sequence.", side="token_offsets", example=int(ex[i]),
            span=int(pos[i]))
    scores = token_scores(predictions[ex, pos], scheme=scheme,
                          positive_label=positive_label, outputs=outputs)
    counts = np.bincount(ex, minlength=layout.n)
    bounds = np.zeros(layout.n + 1, dtype=np.int32 if ex.size < 2**31 else np.int64)
    np.cumsum(counts, out=bounds[1:])
    list_of = pa.ListArray if bounds.dtype == np.int32 else pa.LargeListArray
    pairs = pa.FixedSizeListArray.from_arrays(
        pa.array(np.stack([starts, ends], axis=1).ravel()), 2)
    return TokenForm(list_of.from_arrays(pa.array(bounds), pairs),
                     list_of.from_arrays(pa.array(bounds), pa.array(scores)), int(ex.size))
