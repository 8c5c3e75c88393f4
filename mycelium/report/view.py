"""`mycelium.show`: one example or a few, its reference and predicted spans over the text,
as HTML in notebooks (`SpanView._repr_html_`) and as marked plain text in a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..core.pipeline import empty_spans_told
from .model import (DEFAULT_METRICS, SCORE_METRICS, ExampleView, ViewData, surprises,
                    types_of)
from .render import page, view_html
from .segments import parse_spans
from .text import view_text

__all__ = ["show", "SpanView", "ExampleView", "DEFAULT_METRICS", "SCORE_METRICS"]

@dataclass(frozen=True)
class SpanView(ViewData):
    """Examples to look at: ``_repr_html_`` for notebooks, ``repr`` for terminals,
    `html` for a page of its own."""

    def _repr_html_(self) -> str:
        return view_html(self)

    def __repr__(self) -> str:
        return view_text(self)

    def html(self, title: str = "mycelium: spans") -> str:
        """A complete, self-contained HTML page of this view (no scripts, no network)."""
        return page(title, self._repr_html_())


def show(text, references, predictions=None, *, soft_predictions=None, token_offsets=None,
         token_scores=None, labels=None, metrics=DEFAULT_METRICS, context=None,
         type_field: str = "label_type") -> SpanView:
    """Look at spans: references and predictions marked over the text of one example or
    a few.

    Parameters
    ----------
    text : str or sequence of str
        One example's text, or a few examples' texts (a batch).
    references : span set, or a batch of span sets
        Spans as `mycelium.evaluate` takes them; ``{"start", "end", "label_type"}`` dicts
        style the reference spans by type: a colour and an underline pattern in HTML, the
        type's letter as the terminal's marker, and a legend listing each type with its
        reference and predicted spans.
    predictions : optional
        One example: a span set, a list of span sets (one row each: detectors or
        annotators) or a dict ``{name: span set}``. A batch: a batch of span sets, or a
        dict ``{name: batch}``.
    soft_predictions : optional
        ``[{start, end, prob}]`` for one example (a list of them for a batch): drawn as a
        heat strip, each span overwriting the characters before it in list order (the
        Mu-SHROOM rule).
    token_offsets, token_scores : optional
        The other score form (SPEC section 9): a tokenizer's ``[(start, end)]`` and one
        score per token (a list of each for a batch); a character takes the highest
        score of the non-empty tokens covering it. Drawn as the same heat strip.
    labels : sequence of str, optional
        Names of the prediction rows when ``predictions`` is not a dict (default
        ``prediction``, or ``prediction 1``, ``prediction 2``, ...).
    metrics : sequence of str or None
        Metrics computed per example with `mycelium.evaluate` and shown beside each
        row; ``None`` shows none. With scores, the score metrics named here
        (``char_auroc``, ``char_ap``; by default both) are shown beside the scores row.
    context : str or sequence of str, optional
        What the text answers (a question, a retrieved passage, the model's input): one
        string per example, shown collapsed above its text (HTML) or as its first lines
        (terminal). None for an example shows none.
    type_field : str, default "label_type"
        The span field holding a span's type (``"label"`` for SHROOM-Visions).

    Returns
    -------
    SpanView
        Renders itself in Jupyter and VS Code; ``print(view)`` or ``repr`` marks the
        text: ``^`` reference (a typed one: its type's letter, ``a``, ``b``, ..., as the
        legend lists the types), ``=`` both, ``-`` reference only (missed), ``+``
        prediction only (false alarm); the scores row writes each character's score
        as a digit, ``floor(10 * score)`` (``9`` up to 1.0), blank for 0. A cluster of code points that reads as one
        character (an accent, an emoji sequence) takes the style of its first code point.

    Raises
    ------
    SpanValidationError
        A span outside its text, as `mycelium.evaluate` raises it.

    Examples
    --------
    >>> import mycelium
    >>> view = mycelium.show("Paris is in Italy.", [[12, 17]], [[9, 17]],
    ...                      metrics=["iou"])
    >>> print(view)
    SpanView: 1 example(s)
                 Paris is in Italy.
    reference                ^^^^^
    prediction            +++=====     iou 0.625
    markers: ^ reference   = both   - reference only   + prediction only

    Token scores, with the threshold-free metrics of the example:

    >>> print(mycelium.show("Paris is in Italy.", [[12, 17]],
    ...                     token_offsets=[(0, 5), (6, 8), (9, 11), (12, 17), (17, 18)],
    ...                     token_scores=[0.1, 0.0, 0.4, 0.95, 0.2]))
    SpanView: 1 example(s)
                 Paris is in Italy.
    reference                ^^^^^
    scores       11111    44 999992    char_auroc 1.000  char_ap 1.000
    markers: ^ reference   = both   - reference only   + prediction only
    scores: digit d = score in [d/10, (d+1)/10) (9 up to 1), blank = 0
    """
    single = isinstance(text, str)
    texts = [text] if single else [str(t) for t in text]
    refs_batch = [references] if single else list(references)
    rows = _rows(predictions, single, labels)
    _check_lengths(texts, refs_batch, rows)
    names = _names(metrics)
    span_names = [m for m in names if m not in SCORE_METRICS]
    # Zero-length spans told once: the references once, every row's predictions (the
    # rows, and the scores, are each scored against the same references).
    with empty_spans_told(hold=True) as told:
        per_row = [_metrics(refs_batch, preds, texts, span_names) for _, preds in rows]
        if not rows:  # validates the references
            _metrics(refs_batch, [[] for _ in refs_batch], texts, ["iou"])
        forms = dict(soft_predictions=soft_predictions, token_offsets=token_offsets,
                     token_scores=token_scores)
        softs, score_name = _pieces(texts, single, forms)
        score_names = ([m for m in names if m in SCORE_METRICS]
                       or (list(SCORE_METRICS) if metrics is DEFAULT_METRICS else []))
        per_score = None
        if softs is not None and score_names:
            from ..evaluate import evaluate

            def batch(v):  # one example's scores as a batch of one, like refs_batch
                return [v] if single and v is not None else v

            per_score = evaluate(
                refs_batch, text=texts, metrics=score_names, include_per_example=True,
                soft_predictions=batch(soft_predictions),
                token_offsets=batch(token_offsets),
                token_scores=batch(token_scores))["per_example"]
    told.tell(parts="detectors")
    contexts = _contexts(context, single, len(texts))
    examples = []
    for k, t in enumerate(texts):
        refs_k = parse_spans(refs_batch[k], type_field)
        rows_k = [(name, parse_spans(preds[k], type_field)) for name, preds in rows]
        values_k = [values[k] if values else None for values in per_row]
        examples.append(ExampleView(
            text=t, references=refs_k, rows=rows_k, metrics=values_k,
            soft=softs[k] if softs is not None else None, score_name=score_name,
            score_metrics=per_score[k] if per_score else None,
            title="" if single else f"example {k}", context=contexts[k],
            notes=surprises(refs_k, rows_k, values_k)))
    return SpanView(examples, types=types_of(examples))


def _contexts(context, single: bool, n: int) -> list[str | None]:
    if context is None:
        return [None] * n
    values = [context] if single or isinstance(context, str) and n == 1 else list(context)
    if isinstance(context, str) and not single and n != 1:
        raise TypeError("Expected one context per text (a sequence of str) for a batch, got "
                        "one str; fix by passing a list of contexts.")
    if len(values) != n:
        raise ValueError(f"Expected a context for each of the {n} texts, got {len(values)}; "
                         "fix by passing one context (or None) per text.")
    return [None if v is None or _missing(v) else str(v) for v in values]


def _missing(value) -> bool:
    try:
        return bool(value != value)  # NaN, as pandas gives for a missing cell
    except (TypeError, ValueError):
        return False


def _is_span_set_list(obj) -> bool:
    """One example's predictions given as several span sets (rows) rather than one set."""
    if not isinstance(obj, Sequence) or isinstance(obj, (str, bytes)) or not obj:
        return False
    first = obj[0]
    if isinstance(first, Mapping) or not isinstance(first, Sequence) or isinstance(first, str):
        return False
    return len(first) == 0 or (isinstance(first[0], (Mapping, Sequence))
                               and not isinstance(first[0], str))


def _rows(predictions, single: bool, labels) -> list[tuple[str, list]]:
    if predictions is None:
        return []
    if isinstance(predictions, Mapping):
        return [(str(name), [p] if single else list(p)) for name, p in predictions.items()]
    several = single and _is_span_set_list(predictions)
    sets = list(predictions) if several else [predictions]
    names = list(labels) if labels is not None else (
        [f"prediction {i + 1}" for i in range(len(sets))] if len(sets) > 1 else ["prediction"])
    if len(names) != len(sets):
        raise ValueError(f"Expected one label per prediction row ({len(sets)}), got "
                         f"{len(names)} labels; fix by passing {len(sets)} names.")
    return [(str(name), [s] if single else list(s)) for name, s in zip(names, sets)]


def _check_lengths(texts, refs, rows) -> None:
    sizes = {"references": len(refs), **{f"predictions {n!r}": len(p) for n, p in rows}}
    for what, size in sizes.items():
        if size != len(texts):
            raise ValueError(f"Expected {what} for each of the {len(texts)} texts, got "
                             f"{size}; fix by passing one span set per text.")


def _names(metrics) -> list[str]:
    if metrics is None:
        return []
    return [metrics] if isinstance(metrics, str) else list(metrics)


def _metrics(refs, preds, texts, names) -> list[dict] | None:
    if not names:
        return None
    from ..evaluate import evaluate

    report = evaluate(refs, preds, text=texts, metrics=names, include_per_example=True)
    return report["per_example"]


def _pieces(texts, single: bool, forms: dict) -> tuple[list | None, str]:
    """Each example's character scores as pieces ``(start, end, score)`` of non-zero
    score, validated and built by the core's rule for either form (SPEC section 9)."""
    if all(v is None for v in forms.values()):
        return None, "prob"
    import numpy as np

    from ..core.scores import score_input, score_pieces

    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    scores = score_input(lengths, single=single, **forms)
    out: list[list[tuple[int, int, float]]] = [[] for _ in texts]
    for k, s, e, p in zip(*(a.tolist() for a in score_pieces(scores, lengths))):
        if p > 0.0:
            out[k].append((s, e, p))
    return out, "prob" if scores.form == "soft" else "score"
