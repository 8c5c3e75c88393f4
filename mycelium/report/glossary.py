"""The report's glossary: what each metric means and what it does with an empty example,
read from the metric module's own docstring (its first line and the sentences of its
"Edge cases" section about empty sides and 0/0), so the page cannot drift from the
definitions; and what macro, micro and ``zero_division`` mean.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from html import escape

__all__ = ["Entry", "entry", "glossary_html", "AVERAGES"]

#: The averages, in the words of SPEC section 3.
AVERAGES = {
    "macro": "each example's value first, then their mean over the examples (Mu-SHROOM's "
             "procedure); every example weighs the same",
    "micro": "the per-example statistics summed over the examples first, then the formula "
             "(RAGTruth's pooling); long spans weigh more",
}
_EMPTY = re.compile(r"empty|0/0|nothing (predicted|annotated)|no (reference|prediction)",
                    re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One metric's line: what it measures, and its rules for empty examples."""

    metric: str
    meaning: str
    empty: str


def _plain(text: str) -> str:
    """RST inline markup as plain text, whitespace collapsed."""
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.sub(r"\*([^*]+)\*", r"\1", text)
    return " ".join(text.split())


def _section(doc: str, title: str) -> str:
    """The indented body under a numpydoc-like ``title`` line of a module docstring."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == title:
            body = []
            for nxt in lines[i + 1:]:
                if nxt and not nxt.startswith(" "):
                    break
                body.append(nxt)
            return "\n".join(body)
    return ""


def entry(metric: str) -> Entry:
    """The glossary line of ``metric`` from ``mycelium.metrics.<metric>``'s docstring.

    Examples
    --------
    >>> e = entry("iou")
    >>> e.meaning
    'intersection over union of the merged character masks (official Mu-SHROOM IoU).'
    >>> e.empty.split(";")[0]
    'Both sides empty → score 1.0, as the official Mu-SHROOM scorer (and micro is 1.0 when Σ union = 0)'
    """
    doc = importlib.import_module(f"..metrics.{metric}", __package__).__doc__ or ""
    first = _plain(doc.strip().splitlines()[0])
    meaning = first.split(": ", 1)[1] if first.startswith(f"{metric}: ") else first
    edges = _plain(_section(doc, "Edge cases"))
    sentences = re.split(r"(?<=\.)\s+", edges)
    empty = " ".join(s for s in sentences if _EMPTY.search(s))
    return Entry(metric, meaning, empty)


def glossary_html(metrics: list[str], average: str, zero_division: str) -> str:
    """The glossary section: one row per metric shown, then the averages and the
    ``zero_division`` value this report used."""
    rows = []
    for m in metrics:
        e = entry(m)
        rows.append(f"<tr><th>{escape(m)}</th><td>{escape(e.meaning)}</td>"
                    f"<td>{escape(e.empty) or '&mdash;'}</td></tr>")
    avg = "".join(f"<li><b>{escape(k)}</b>: {escape(v)}"
                  f"{' <i>(this report)</i>' if k == average else ''}</li>"
                  for k, v in AVERAGES.items())
    return ('<div class="myc-scroll"><table class="myc-glossary"><thead><tr><th>metric</th>'
            "<th>what it measures</th><th>empty examples and 0/0</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></div>"
            f"<ul class=\"myc-terms\">{avg}<li><b>zero_division</b>: the value an undefined "
            f"(0/0) precision or recall takes; here {escape(zero_division)} (F1 is 0.0 when "
            "precision and recall are both 0)</li></ul>")
