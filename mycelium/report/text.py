"""The plain-text face of a view (`mycelium.report.model.ViewData`, a terminal's
``repr``): the text, and under it one marker line per row, aligned by display width
(wide CJK and emoji take two columns, combining marks none), wrapped at `WIDTH` columns.

Markers: ``^`` a reference character; ``=`` both marked, ``-`` reference only (missed),
``+`` prediction only (false alarm); a space for neither. The scores row (soft or token
scores) writes each character's score as a digit ``floor(10 * score)`` (9 up to 1.0),
a space for 0.
"""

from __future__ import annotations

import unicodedata

from .model import ViewData
from .numbers import fmt, headline
from .segments import Span, cluster_boundary, runs

__all__ = ["view_text", "WIDTH", "clusters", "columns"]

WIDTH = 72
NAME = 12
SHOWN = {"\n": "\u23ce", "\r": "\u240d", "\t": "\u2192"}  # one column each, kept aligned


def clusters(text: str) -> list[tuple[int, int]]:
    """The grapheme clusters of ``text`` as code-point ranges (`cluster_boundary`'s rule)."""
    out, i = [], 0
    while i < len(text):
        j = cluster_boundary(text, i + 1)
        out.append((i, j))
        i = j
    return out


def columns(cluster: str) -> int:
    """Terminal columns of one cluster: 2 for wide (CJK, emoji), else 1."""
    first = cluster[0]
    if unicodedata.east_asian_width(first) in ("W", "F") or ord(first) >= 0x1F000:
        return 2
    return 1


def _marks(text: str, sides, cells, pick) -> list[str]:
    """One marker per cluster: ``pick(covers)`` for the run the cluster starts in."""
    out = []
    pieces = runs(text, sides)
    r = 0
    for start, _ in cells:
        while pieces[r].end <= start:
            r += 1
        out.append(pick(pieces[r].covers))
    return out


def _ref_mark(covers) -> str:
    return "^" if covers[0] else " "


def _row_mark(covers) -> str:
    ref, pred = bool(covers[0]), bool(covers[1])
    return "=" if ref and pred else "-" if ref else "+" if pred else " "


def _score_mark(ex):
    def pick(covers) -> str:
        if not covers[0]:
            return " "
        return str(min(9, int(10 * ex.soft[min(covers[0])][2])))
    return pick


def _example_lines(ex) -> list[str]:
    cells = clusters(ex.text)
    glyphs = [SHOWN.get(ex.text[s:e], ex.text[s:e]) for s, e in cells]
    widths = [columns(g) for g in glyphs]
    lines_of = [("", glyphs)]
    lines_of.append(("reference", _marks(ex.text, [ex.references], cells, _ref_mark)))
    for name, preds in ex.rows:
        lines_of.append((name, _marks(ex.text, [ex.references, preds], cells, _row_mark)))
    metrics = list(ex.metrics)
    if ex.soft is not None:
        pieces = [Span(s, e) for s, e, _ in ex.soft]
        lines_of.append(("scores", _marks(ex.text, [pieces], cells, _score_mark(ex))))
        metrics.append(ex.score_metrics)
    tails = ["", ""] + ["    " + "  ".join(f"{k} {fmt(v)}" for k, v in headline(m))
                        for m in metrics]
    out = []
    for lo, hi in _chunks(widths):
        for (name, marks), tail in zip(lines_of, tails):
            body = "".join(m if name == "" else m * w
                           for m, w in zip(marks[lo:hi], widths[lo:hi]))
            last = hi >= len(cells)
            out.append((f"{name[:NAME - 1]:<{NAME}} " + body + (tail if last else "")).rstrip())
    if not cells:
        out.append(f"{'':<{NAME}} (empty text)")
    return out


def _chunks(widths: list[int]) -> list[tuple[int, int]]:
    out, lo, used = [], 0, 0
    for i, w in enumerate(widths):
        if used + w > WIDTH and i > lo:
            out.append((lo, i))
            lo, used = i, 0
        used += w
    if lo < len(widths) or not out:
        out.append((lo, len(widths)))
    return [c for c in out if c[1] > c[0]] if widths else []


def view_text(view: ViewData) -> str:
    """The terminal rendering of ``view``."""
    out = [f"SpanView: {len(view.examples)} example(s){'; ' + view.note if view.note else ''}"]
    for ex in view.examples:
        if ex.title:
            out.append(f"-- {ex.title}")
        out.extend(_example_lines(ex))
    out.append("markers: ^ reference   = both   - reference only   + prediction only")
    if any(ex.soft is not None for ex in view.examples):
        out.append("scores: digit d = score in [d/10, (d+1)/10) (9 up to 1), blank = 0")
    return "\n".join(out)
