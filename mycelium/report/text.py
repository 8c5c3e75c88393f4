"""The plain-text face of a view (`mycelium.report.model.ViewData`, a terminal's
``repr``): the text, and under it one marker line per row, aligned by display width
(`mycelium.report.glyphs.columns`: wide CJK and emoji take two columns, a Devanagari
spacing vowel sign one, combining marks none), wrapped at `WIDTH` columns.

Markers: ``^`` a reference character; ``=`` both marked, ``-`` reference only (missed),
``+`` prediction only (false alarm); a space for neither. The scores row (soft or token
scores) writes each character's score as a digit ``floor(10 * score)`` (9 up to 1.0),
a space for 0.

Control characters, line separators and bidi controls of a text are drawn as visible
escapes (`mycelium.report.glyphs.glyph`), never passed to the terminal. A line holding
right-to-left letters is written in logical order (its first character at the left, as
the markers under it) between LEFT-TO-RIGHT OVERRIDE and POP DIRECTIONAL FORMATTING, so
that a renderer applying the bidi algorithm (a notebook's ``print``, a bidi terminal)
keeps that order too; the view says so under the examples.
"""

from __future__ import annotations

from .glyphs import LTR_OVERRIDE, POP, columns, glyph, right_to_left, safe
from .model import MAX_LEGEND_TYPES, ViewData, said_counts, type_counts
from .numbers import fmt, headline
from .segments import Span, cluster_boundary, runs

__all__ = ["view_text", "WIDTH", "clusters", "name_labels"]

WIDTH = 72
#: The name column is as wide as the longest name, at least `NAME_MIN` and at most
#: `NAME_MAX` columns.
NAME_MIN, NAME_MAX = 12, 24
CONTEXT_LINES = 2
#: The reference marker of each span type, in the view's order (``^`` past the last).
TYPE_MARKS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
RTL_NOTE = ("right-to-left text is written in logical order (its first character at the "
            "left), as its markers are")


def clusters(text: str) -> list[tuple[int, int]]:
    """The grapheme clusters of ``text`` as code-point ranges (`cluster_boundary`'s rule)."""
    out, i = [], 0
    while i < len(text):
        j = cluster_boundary(text, i + 1)
        out.append((i, j))
        i = j
    return out


def _shorten(name: str, width: int) -> str:
    """``name`` cut to ``width`` columns in the middle (``head…tail``), so names that share
    a prefix keep their different ends."""
    if columns(name) <= width:
        return name
    cells = [name[s:e] for s, e in clusters(name)]
    tail: list[str] = []
    while cells and columns("".join(tail)) < (width - 1) // 3:
        tail.insert(0, cells.pop())
    head: list[str] = []
    for c in cells:
        if columns("".join(head) + c) + 1 + columns("".join(tail)) > width:
            break
        head.append(c)
    return "".join(head) + "\u2026" + "".join(tail)


def name_labels(names: list[str], width: int = NAME_MAX) -> tuple[list[str], list[str]]:
    """Distinct labels of at most ``width`` columns for ``names`` (escaped, cut in the
    middle when too long, numbered when two would still print alike), and the key lines
    that give each shortened name in full.

    Examples
    --------
    >>> labels, key = name_labels(["detector-2025-alpha", "detector-2025-beta"], 12)
    >>> labels
    ['detector…pha', 'detector…eta']
    >>> key
    ['detector…pha = detector-2025-alpha', 'detector…eta = detector-2025-beta']
    """
    shown = [safe(n) for n in names]
    labels = [_shorten(n, width) for n in shown]
    for label in set(labels):
        same = [i for i, lb in enumerate(labels) if lb == label]
        if len(same) > 1 and len(set(shown[i] for i in same)) > 1:
            for k, i in enumerate(same, 1):
                labels[i] = _shorten(shown[i], width - len(f"#{k}")) + f"#{k}"
    key = [f"{lb} = {full}" for lb, full in dict(zip(labels, shown)).items() if lb != full]
    return labels, key


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


def _typed_ref_mark(refs, types: list[str]):
    """Typed references mark with their type's letter (overlapping types: the first in
    sorted order, as the HTML view styles them); an untyped one with ``^``."""
    index = {t: i for i, t in enumerate(types)}

    def pick(covers) -> str:
        if not covers[0]:
            return " "
        labels = sorted({refs[j].label for j in covers[0] if refs[j].label is not None})
        i = index[labels[0]] if labels else len(TYPE_MARKS)
        return TYPE_MARKS[i] if i < len(TYPE_MARKS) else "^"
    return pick


def type_legend(view: ViewData) -> list[str]:
    """One line per type: its marker, its name (escaped, cut) and its spans in the view;
    past `MAX_LEGEND_TYPES` types one line sums the rest."""
    counts = type_counts(view)
    out = ["types: the reference row marks a span of each type with its letter"]
    for i, t in enumerate(view.types[:MAX_LEGEND_TYPES]):
        mark = TYPE_MARKS[i] if i < len(TYPE_MARKS) else "^"
        out.append(f"{'':<7}{mark} {_shorten(safe(t), 40)} ({said_counts(*counts[t])})")
    rest = view.types[MAX_LEGEND_TYPES:]
    if rest:
        n_ref = sum(counts[t][0] for t in rest)
        n_pred = sum(counts[t][1] for t in rest)
        out.append(f"{'':<7}^ {len(rest):,} more types ({said_counts(n_ref, n_pred)})")
    return out


def _row_mark(covers) -> str:
    ref, pred = bool(covers[0]), bool(covers[1])
    return "=" if ref and pred else "-" if ref else "+" if pred else " "


def _score_mark(ex):
    def pick(covers) -> str:
        if not covers[0]:
            return " "
        return str(min(9, int(10 * ex.soft[min(covers[0])][2])))
    return pick


def _pad(label: str, width: int) -> str:
    return label + " " * (width - columns(label) + 1)


def _context_lines(context: str, width: int) -> list[str]:
    """The first lines of a context, each at most `WIDTH` columns, escaped."""
    shown = [glyph(context[s:e]) for s, e in clusters(context)]
    lines, line, used = [], "", 0
    for g in shown:
        w = columns(g)
        if used + w > WIDTH:
            lines.append(line)
            line, used = "", 0
        line, used = line + g, used + w
    lines.append(line)
    cut = lines[:CONTEXT_LINES]
    if len(lines) > CONTEXT_LINES:
        cut[-1] = cut[-1] + f" \u2026 ({len(context):,} characters)"
    return [_pad("context" if k == 0 else "", width) + text for k, text in enumerate(cut)]


def _example_lines(ex, labels: dict[str, str], width: int, types: list[str]) -> list[str]:
    cells = clusters(ex.text)
    glyphs = [glyph(ex.text[s:e]) for s, e in cells]
    widths = [columns(g) for g in glyphs]
    wrap = right_to_left(ex.text)
    lines_of = [("", glyphs)]
    ref_mark = _typed_ref_mark(ex.references, types) if types else _ref_mark
    lines_of.append(("reference", _marks(ex.text, [ex.references], cells, ref_mark)))
    for name, preds in ex.rows:
        lines_of.append((labels[name], _marks(ex.text, [ex.references, preds], cells,
                                              _row_mark)))
    metrics = list(ex.metrics)
    if ex.soft is not None:
        pieces = [Span(s, e) for s, e, _ in ex.soft]
        lines_of.append(("scores", _marks(ex.text, [pieces], cells, _score_mark(ex))))
        metrics.append(ex.score_metrics)
    tails = ["", ""] + ["    " + "  ".join(f"{k} {fmt(v)}" for k, v in headline(m))
                        for m in metrics]
    out = [] if ex.context is None else _context_lines(ex.context, width)
    for lo, hi in _chunks(widths):
        for k, ((name, marks), tail) in enumerate(zip(lines_of, tails)):
            body = "".join(m if k == 0 else m * w for m, w in zip(marks[lo:hi], widths[lo:hi]))
            if k == 0 and wrap:
                body = LTR_OVERRIDE + body + POP
            last = hi >= len(cells)
            out.append((_pad(name, width) + body + (tail if last else "")).rstrip())
    if not cells:
        out.append(f"{'':<{width + 1}}(empty text)")
    out.extend(_pad("note", width) + safe(note) for note in ex.notes)
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
    names = list(dict.fromkeys(name for ex in view.examples for name, _ in ex.rows))
    shown, key = name_labels(names)
    labels = dict(zip(names, shown))
    fixed = ["reference", "context"] + (["scores"] if any(ex.soft is not None for ex in
                                                           view.examples) else [])
    width = max([NAME_MIN] + [columns(label) for label in fixed + shown])
    note = "; " + safe(view.note) if view.note else ""
    out = [f"SpanView: {len(view.examples)} example(s){note}"]
    for ex in view.examples:
        if ex.title:
            out.append(f"-- {safe(ex.title)}")
        out.extend(_example_lines(ex, labels, width, view.types))
    out.append("markers: ^ reference   = both   - reference only   + prediction only")
    out.extend(type_legend(view) if view.types else [])
    if any(ex.soft is not None for ex in view.examples):
        out.append("scores: digit d = score in [d/10, (d+1)/10) (9 up to 1), blank = 0")
    if any(right_to_left(ex.text) for ex in view.examples):
        out.append(RTL_NOTE)
    out.extend(f"names: {line}" for line in key)
    return "\n".join(out)
