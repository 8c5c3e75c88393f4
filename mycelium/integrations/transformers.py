"""Hugging Face ``transformers``: `compute_metrics_for` makes the ``compute_metrics`` of a
``Trainer`` (or of any loop that hands over logits and labels) that scores a token
classifier's character spans the way a benchmark does, not its tokens.

A hallucination detector trained as a token classifier (LettuceDetect, PsiloQA's and
RAGTruth's fine-tuned baselines) is usually evaluated per token during training. Here
its logits become token scores (`mycelium.integrations._token_outputs`), the token
scores become character scores through the tokenizer's offsets, and `mycelium.evaluate`
scores them against the reference spans: threshold-free (``char_auroc``, ``char_ap``,
``response_auroc``), at a threshold, or at the threshold that is best on the evaluation
set. The numbers are `mycelium.evaluate`'s on the same data, bit for bit. Nothing here
imports ``transformers`` or ``torch``: an ``EvalPrediction`` is read by its attributes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.arrow_sources import arrow_source
from ..core.columns import text_lengths
from ..evaluate import evaluate
from ..metrics import METRICS
from ..scores.plan import check_threshold
from ..scores.thresholds import tune_threshold
from ._token_outputs import OUTPUTS, TokenLayout, check_labels, token_form, token_layout

__all__ = ["compute_metrics_for", "ComputeMetrics"]


@dataclass(frozen=True, eq=False)
class ComputeMetrics:
    """A ``compute_metrics`` for ``Trainer``: call it with an ``EvalPrediction`` (or a
    ``(predictions, label_ids)`` pair) to get ``{name: float}``; made by
    `compute_metrics_for`, which documents every field."""

    texts: Any
    references: Any
    layout: TokenLayout
    metrics: Any
    profile: Any
    average: Any
    zero_division: Any
    params: Any
    threshold: float | None
    tune: str | None
    scheme: str
    positive_label: Any
    outputs: str

    def __call__(self, eval_pred) -> dict[str, float]:
        """The report of `report`, flat: ``"<metric>_<measure>"`` (``iou_score``,
        ``character_f1``, ``char_auroc_score``, ...) and, with ``tune``, ``threshold``.
        ``Trainer`` logs them with its ``eval_`` prefix."""
        report = self.report(eval_pred)
        out: dict[str, float] = {}
        for metric, measures in report.items():
            if metric in ("meta", "ci", "per_example", "by_type"):
                continue
            for measure, value in measures.items():
                out[f"{metric}_{measure}"] = float(value)
        if self.tune is not None:
            out["threshold"] = float(report["meta"]["threshold"])
        return out

    def report(self, eval_pred) -> dict[str, Any]:
        """`mycelium.evaluate`'s report of one evaluation (with ``meta`` and its
        signature, which records the score form and the threshold)."""
        form = token_form(self.layout, eval_pred, scheme=self.scheme,
                          positive_label=self.positive_label, outputs=self.outputs)
        options = dict(profile=self.profile, average=self.average,
                       zero_division=self.zero_division, params=self.params)
        scores = dict(text=self.texts, token_offsets=form.token_offsets,
                      token_scores=form.token_scores)
        threshold: float | None = self.threshold
        if self.tune is not None:
            best = tune_threshold(self.references, metric=self.tune,
                                  measure=_measure_of(self.tune), **scores, **options)
            threshold = best["threshold"]
        return evaluate(self.references, **scores, metrics=self.metrics,
                        threshold=threshold, **options)


def compute_metrics_for(texts, offset_mapping, references, *, metrics=None, profile=None,
                        threshold: float | None = None, tune: bool | str = False,
                        scheme: str = "binary", positive_label: int | Sequence[int] = 1,
                        outputs: str = "auto", average: str | None = None,
                        zero_division=None,
                        params: Mapping[str, Mapping[str, Any]] | None = None
                        ) -> ComputeMetrics:
    """The ``compute_metrics`` of a token classifier's evaluation set, scored on spans.

    Parameters
    ----------
    texts : sequence of str
        The evaluation set's texts, in the order of the evaluation dataset: the strings
        the offsets point into (for a pair input such as context + answer, the scored
        sequence, the answer).
    offset_mapping : one list of ``(start, end)`` per example
        The tokenizer's offsets of those texts (``return_offsets_mapping=True``), code
        points, one pair per token position of the model's input; a list of lists, an
        ``(examples, tokens, 2)`` array, or a ``datasets`` / Arrow column.
    references : span sets
        The reference spans of each example (``[[start, end], ...]``), any form
        `mycelium.evaluate` takes.
    metrics : str or sequence of str, optional
        As in `mycelium.evaluate`. Default: ``char_auroc``, ``char_ap`` and
        ``response_auroc``; with ``threshold`` or ``tune``, every span metric and
        ``response_level`` too.
    profile : str or Profile, optional
        Benchmark conventions (``"mu_shroom"``, ``"ragtruth"``, ``"psiloqa"``, ...), with
        their average and their score rules.
    threshold : float, optional
        Score the spans at this threshold (tokens scoring > threshold, runs of them one
        span: `mycelium.spans_at`).
    tune : bool or str, default False
        Score the spans at the threshold that maximises a metric on this evaluation set
        (`mycelium.scores.tune_threshold`): ``True`` tunes ``iou``; a metric name tunes
        that one (its ``score``, or its ``f1``). The threshold is logged as ``threshold``.
        A threshold tuned on the set it scores is optimistic: report test numbers at a
        threshold tuned on development data (``threshold=``).
    scheme : {"binary", "bio"}, default "binary"
        ``"binary"``: two labels, the token score is the probability of
        ``positive_label`` (the hallucinated class). ``"bio"``: O, B and I labels, the
        token score is P(B) + P(I), the probability that the token is inside a span.
    positive_label : int or sequence of int, default 1
        ``"binary"``: the hallucinated label's id. ``"bio"``: B's id, I being the next
        one (``["O", "B", "I"]``: the default 1 means B = 1, I = 2), or every label id
        inside a span (``[1, 2, 3, 4]`` for two typed B/I pairs).
    outputs : {"auto", "logits", "probabilities"}, default "auto"
        What the predictions are. ``"auto"``: probabilities when every value of the
        scored tokens is in [0, 1] and each token's values sum to 1 (within 1e-4),
        logits otherwise; predictions of shape (examples, tokens) are read as the
        positive label's probability. Logits go through a softmax over the labels
        (float64), or, one per token with ``outputs="logits"``, a sigmoid.
    average, zero_division, params
        As in `mycelium.evaluate` (default: the profile's).

    Returns
    -------
    ComputeMetrics
        A callable: ``compute_metrics(eval_pred)`` returns ``{name: float}`` with names
        ``"<metric>_<measure>"`` (``char_auroc_score``, ``iou_score``, ``character_f1``,
        ...), plus ``threshold`` when tuned; ``compute_metrics.report(eval_pred)`` returns
        the whole `mycelium.evaluate` report (``meta``, signature).

    Raises
    ------
    ValueError, TypeError
        Bad options now; at evaluation, predictions that do not fit the evaluation set
        (another number of examples, fewer token positions than the offsets have
        tokens, a labelled position past the offsets, labels of another shape,
        non-finite values).
    SpanValidationError
        A scored token past its text's end (named by example and token position).

    Notes
    -----
    Which tokens are scored follows Hugging Face's conventions: a token with offset
    ``(0, 0)`` (a special token such as ``[CLS]``, or padding) marks no character; a
    position labelled -100 in ``label_ids`` (special tokens, padding, and whatever the
    data collator leaves out of the loss, such as the context of a context + answer
    input) is left out; positions past an example's offsets (Trainer pads the
    predictions of shorter batches with -100) are ignored, but a label other than -100
    there raises (the offsets are then not those of the evaluated inputs). A character then takes the
    highest score of the scored tokens covering it, and characters no scored token
    covers score 0 (SPEC section 9). If only the first sub-token of each word is
    labelled (``label_all_tokens=False`` in Hugging Face's examples), the other
    sub-tokens are left out and their characters score 0: label every token of the
    text you score, as LettuceDetect does.

    With ``"bio"``, the spans at a threshold are the runs of tokens whose P(B) + P(I)
    exceeds it: two spans with no token between them come out as one (B's "a new span
    starts here" is not read).

    Examples
    --------
    >>> import numpy as np
    >>> from mycelium.integrations.transformers import compute_metrics_for
    >>> texts = ["Paris is in Peru.", "Water is wet."]
    >>> offsets = [[(0, 0), (0, 5), (6, 8), (9, 11), (12, 16), (16, 17), (0, 0)],
    ...            [(0, 0), (0, 5), (6, 8), (9, 12), (12, 13), (0, 0), (0, 0)]]
    >>> refs = [[[12, 16]], []]
    >>> logits = np.zeros((2, 7, 2))
    >>> logits[0, 4, 1] = logits[1, 2, 1] = 3.0          # "Peru" and "is": hallucinated?
    >>> labels = np.array([[-100, 0, 0, 0, 1, 0, -100], [-100, 0, 0, 0, 0, -100, -100]])
    >>> compute_metrics = compute_metrics_for(texts, offsets, refs, threshold=0.5,
    ...                                       metrics=["iou", "char_auroc"])
    >>> compute_metrics((logits, labels))
    {'iou_score': 0.5, 'char_auroc_score': 1.0}
    """
    texts = arrow_source(texts)
    if isinstance(texts, str) or not hasattr(texts, "__len__"):
        raise TypeError(f"Expected texts as one str per example, got "
                        f"{type(texts).__name__}; fix by passing the evaluation set's texts.")
    lengths = text_lengths(texts, single=False, n_examples=len(texts))
    assert lengths is not None
    if (lengths < 0).any():
        k = int(np.flatnonzero(lengths < 0)[0])
        raise ValueError(f"Expected a text for every example, got None at example {k}; fix "
                         "by giving every example its text.")
    if outputs not in OUTPUTS:
        raise ValueError(f"Expected outputs one of {', '.join(OUTPUTS)}, got {outputs!r}; "
                         "fix by passing one of them.")
    if threshold is not None and tune is not False:
        raise ValueError("Expected threshold or tune, got both; fix by passing threshold= "
                         "to score at a given threshold, or tune= to tune one on the "
                         "evaluation set.")
    t = None if threshold is None else check_threshold(threshold)
    tuned = _tuned_metric(tune)
    check_labels(scheme, positive_label)
    layout = token_layout(offset_mapping, lengths)
    return ComputeMetrics(texts, references, layout, metrics, profile, average,
                          zero_division, params, t, tuned, scheme, positive_label, outputs)


def _tuned_metric(tune) -> str | None:
    if tune is False or tune is None:
        return None
    if tune is True:
        return "iou"
    if isinstance(tune, str) and (tune in METRICS or tune == "response_level"):
        return tune
    valid = [*METRICS, "response_level"]
    raise ValueError(f"Expected tune=True or a span metric to tune ({', '.join(valid)}), "
                     f"got {tune!r}; fix by passing one of them.")


def _measure_of(metric: str) -> str:
    if metric == "response_level":
        return "f1"
    return "score" if "score" in METRICS[metric].measures else "f1"

