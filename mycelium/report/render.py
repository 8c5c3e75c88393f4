"""The HTML face of a view (`mycelium.report.model.ViewData`): escaped text in styled
runs, one row per prediction, a legend; inline CSS only (no scripts, no fonts or images
from the network).

Outcome colours follow Okabe and Ito's colour-blind-safe hues and never rely on hue
alone: *both* is a mid blue and underlined, *reference only* (missed) a pale orange and
underlined, *prediction only* (false alarm) reddish purple, hatched and not underlined.
In grey scale the three stay apart by lightness and texture (relative luminance 0.38,
0.78, and stripes of 0.44 and 0.84; a browser test compares them in a grey screenshot).
Typed reference spans take their type's colour *and* underline pattern (solid, dashed,
dotted, double, wavy; `type_style`), and the legend lists each type with its reference
and predicted spans.
The score heat strip is neutral grey (darker = higher, white text above 0.6), a hue no
outcome uses.

The view's styles reset what a host page sets on tables (JupyterLab right-aligns cells and
stripes rows; a browser test renders the view under a copy of those rules), under its
root ``.myc``. A marked line break, tab or carriage return shows a marker (⏎, →, ␍), so a
false alarm on whitespace stays visible; control, separator and bidi-control characters
are drawn as escapes, as in the terminal view.
"""

from __future__ import annotations

from html import escape

from .glyphs import escaped, obeyed
from .model import MAX_LEGEND_TYPES, ViewData, said_counts, type_counts
from .numbers import fmt, headline
from .segments import runs

__all__ = ["view_html", "page", "CSS", "OUTCOMES", "TYPE_COLOURS", "TYPE_PATTERNS",
           "type_style"]

#: class -> (legend text, meaning)
OUTCOMES = {"myc-both": "both", "myc-ref": "reference only (missed)",
            "myc-pred": "prediction only (false alarm)"}
#: Okabe-Ito without its yellow (1.3:1 on white), for span types in order of appearance
#: (cycled past seven).
TYPE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
                "#000000")
#: The underline of each type, the cue that is not a colour (for readers who cannot tell
#: the hues apart, and in grey scale): cycled with the colours, so the first 35 types
#: (7 colours x 5 patterns, coprime) each get a pair of their own.
TYPE_PATTERNS = ("solid", "dashed", "dotted", "double", "wavy")


def type_style(i: int) -> str:
    """The inline style of the ``i``-th type: its colour and its underline pattern."""
    return (f"--myc-type:{TYPE_COLOURS[i % len(TYPE_COLOURS)]};"
            f"--myc-pattern:{TYPE_PATTERNS[i % len(TYPE_PATTERNS)]}")

CSS = """
.myc{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
"Noto Color Emoji",sans-serif;font-size:14px;line-height:1.9;color:#111;max-width:100%;
text-align:left}
.myc.myc table,.myc.myc thead,.myc.myc tbody,.myc.myc tr,.myc.myc th,.myc.myc td,
.myc.myc details,.myc.myc summary{text-align:left;background:transparent;border:0;margin:0;
padding:0;vertical-align:top;line-height:inherit;font:inherit;color:inherit;
white-space:normal;max-width:none;table-layout:auto;box-shadow:none}
.myc.myc tbody tr:nth-child(odd),.myc.myc tbody tr:nth-child(even),
.myc.myc tbody tr:hover{background:transparent}
.myc.myc table.myc-rows{border-collapse:collapse;width:100%;margin:0 0 .4em 0}
.myc.myc .myc-rows th{font-weight:600;font-size:12px;color:#333;padding:2px 10px 2px 0;
white-space:nowrap;width:1%}
.myc.myc .myc-text{white-space:pre-wrap;overflow-wrap:anywhere;padding:2px 8px 2px 0;
unicode-bidi:plaintext;min-width:14em}
.myc.myc .myc-metrics{font-size:12px;color:#333;padding:2px 0 2px 8px;
width:1%;min-width:9em;font-variant-numeric:tabular-nums}
.myc.myc .myc-metrics span{white-space:nowrap}
@media (min-width:720px){.myc.myc .myc-metrics{white-space:nowrap}}
@media (max-width:719px){.myc.myc .myc-rows th{white-space:normal;overflow-wrap:anywhere;
min-width:6.5em;max-width:8em}}
.myc .myc-example{border-top:1px solid #ccc;padding:.3em 0}
.myc .myc-title{font-size:12px;color:#555;margin:.1em 0;overflow-wrap:anywhere}
.myc.myc details.myc-context{font-size:12px;color:#333;margin:.1em 0 .2em}
.myc.myc details.myc-context>summary{cursor:pointer;color:#555;display:list-item}
.myc .myc-context-text{white-space:pre-wrap;overflow-wrap:anywhere;unicode-bidi:plaintext;
background:#f6f6f6;padding:.2em .5em;line-height:1.5}
.myc .myc-why{font-size:12px;color:#5a3d00;margin:0 0 .3em}
.myc span.myc-both,.myc span.myc-ref,.myc span.myc-span{text-decoration:underline;
text-decoration-thickness:2px;text-underline-offset:4px;text-decoration-skip-ink:none}
.myc span.myc-both{background:#5aaee3;text-decoration-color:#003b5e}
.myc span.myc-ref{background:#ffe2a6;text-decoration-color:#7a4f00}
.myc span.myc-pred{background:repeating-linear-gradient(135deg,#e49ac6 0 3px,#fde6f2 3px 6px);
outline:1px solid #a34d84;outline-offset:-1px}
.myc span.myc-span{background:#e6e6e6;text-decoration-color:var(--myc-type,#0072B2);
text-decoration-style:var(--myc-pattern,solid)}
.myc .myc-legend span.myc-typed{padding:0;white-space:normal;max-width:100%}
.myc .myc-legend span.myc-typed>span{display:inline;white-space:normal;
overflow-wrap:anywhere}
.myc .myc-legend span.myc-typed>span.myc-span{margin-right:.3em}
.myc .myc-legend span.myc-count{padding:0;margin:0;color:#555}
.myc span.myc-soft{background:rgba(34,34,34,var(--p))}
.myc span.myc-soft-hi{color:#fff}
.myc span.myc-ws::before{content:attr(data-ws);color:#555;font-size:.85em}
.myc span.myc-esc{font-family:ui-monospace,monospace;font-size:.85em;color:#7a1f00;
background:#fff3e0}
.myc .myc-legend{font-size:12px;color:#333;margin:.5em 0}
.myc .myc-legend span{padding:0 .4em;margin-right:.8em;white-space:nowrap;display:inline-block;
line-height:1.6}
.myc .myc-legend span.myc-heat{background:linear-gradient(90deg,rgba(34,34,34,.04),
rgba(34,34,34,.75));color:#fff;text-shadow:0 0 2px #000}
.myc .myc-note{font-size:12px;color:#8a5a00}
"""

#: Whitespace shown by a marker inside a marked run (the character itself stays).
WHITESPACE = {"\n": "\u23ce", "\t": "\u2192", "\r": "\u240d"}


def _chunk(text: str, marked: bool) -> str:
    """Escaped HTML of a run of text: control, separator and bidi-control characters as
    visible escapes; in a marked run, line breaks, tabs and carriage returns with a marker
    before them (a CSS ``::before``, so the page's text stays the text)."""
    out = []
    for ch in text:
        if marked and ch in WHITESPACE:
            out.append(f'<span class="myc-ws" data-ws="{WHITESPACE[ch]}"></span>{ch}')
        elif ch not in WHITESPACE and obeyed(ch):
            out.append(f'<span class="myc-esc" title="U+{ord(ch):04X}">'
                       f"{escape(escaped(ch))}</span>")
        else:
            out.append(escape(ch))
    return "".join(out)


def _attrs(run, extra: str = "") -> str:
    return f' data-s="{run.start}" data-e="{run.end}"{extra}'


def _reference_cell(ex, types: list[str]) -> str:
    parts = []
    for run in runs(ex.text, [ex.references]):
        covering = [ex.references[j] for j in run.covers[0]]
        chunk = _chunk(ex.text[run.start:run.end], bool(covering))
        if not covering:
            parts.append(chunk)
            continue
        labels = sorted({s.label for s in covering if s.label is not None})
        style = ""
        if labels:  # overlapping types: the first in sorted order styles the run
            style = f' style="{type_style(types.index(labels[0]))}"'
        tip = "; ".join(f"[{s.start}, {s.end})" + (f" {s.label}" if s.label else "")
                        for s in covering)
        kind = "".join(f" myc-type-{types.index(lb)}" for lb in labels)
        parts.append(f'<span class="myc-span{kind}"{_attrs(run, style)} '
                     f'title="{escape(tip)}">{chunk}</span>')
    return "".join(parts)


def _row_cell(ex, preds) -> str:
    parts = []
    for run in runs(ex.text, [ex.references, preds]):
        ref, pred = bool(run.covers[0]), bool(run.covers[1])
        chunk = _chunk(ex.text[run.start:run.end], ref or pred)
        if not (ref or pred):
            parts.append(chunk)
            continue
        cls = "myc-both" if ref and pred else "myc-ref" if ref else "myc-pred"
        spans = [preds[j] for j in run.covers[1]]
        tip = OUTCOMES[cls] + "".join(f"; predicted [{s.start}, {s.end})"
                                      + (f" {s.label}" if s.label else "") for s in spans)
        parts.append(f'<span class="{cls}"{_attrs(run)} title="{escape(tip)}">{chunk}</span>')
    return "".join(parts)


def _soft_cell(ex) -> str:
    """The heat strip: ``ex.soft`` holds the core's pieces of constant character score
    (either score form, SPEC section 9), so each run has one score."""
    from .segments import Span

    spans = [Span(s, e) for s, e, _ in ex.soft]
    parts = []
    for run in runs(ex.text, [spans]):
        chunk = _chunk(ex.text[run.start:run.end], bool(run.covers[0]))
        if not run.covers[0]:
            parts.append(chunk)
            continue
        # a run inside one cluster's snap can touch two pieces: the cluster's first wins
        prob = ex.soft[min(run.covers[0])][2]
        cls = "myc-soft myc-soft-hi" if prob > 0.6 else "myc-soft"
        parts.append(f'<span class="{cls}"{_attrs(run)} style="--p:{0.75 * prob:.3f}" '
                     f'title="{ex.score_name} {prob:.3f}">{chunk}</span>')
    return "".join(parts)


def _metrics_cell(values) -> str:
    shown = headline(values)
    if not shown:
        return ""
    full = "; ".join(f"{m} {k} {fmt(float(v))}" for m, d in (values or {}).items()
                     if isinstance(d, dict) for k, v in d.items())
    return (f'<td class="myc-metrics" title="{escape(full)}">'
            + " · ".join(f"<span>{escape(k)} <b>{fmt(v)}</b></span>" for k, v in shown)
            + "</td>")


#: What one example may draw on a page: its text is cut after this many code points, or
#: before the first span past `MAX_SPANS_SHOWN` of any of its rows, whichever comes
#: first (one 1 MB text with 100k spans made a 32 MB page). The page says what was left.
MAX_TEXT_SHOWN = 100_000
MAX_SPANS_SHOWN = 2_000


def bounded(ex):
    """``ex`` cut to what a page holds (`MAX_TEXT_SHOWN`, `MAX_SPANS_SHOWN`), with a note
    saying what was left out; ``ex`` itself when it fits. The values beside the rows
    are still those of the whole example."""
    from dataclasses import replace

    from .segments import cluster_boundary

    sides = [ex.references] + [row for _, row in ex.rows]
    if ex.soft is not None:
        sides.append(ex.soft)
    cut = len(ex.text)
    if cut > MAX_TEXT_SHOWN:
        cut = MAX_TEXT_SHOWN
    for spans in sides:
        if len(spans) > MAX_SPANS_SHOWN:
            starts = sorted(s[0] if isinstance(s, tuple) else s.start for s in spans)
            cut = min(cut, starts[MAX_SPANS_SHOWN])
    if cut >= len(ex.text):
        return ex
    cut = cluster_boundary(ex.text, cut)

    def kept(spans):
        return [replace(s, end=min(s.end, cut)) for s in spans if s.start < cut]

    refs = kept(ex.references)
    rows = [(name, kept(row)) for name, row in ex.rows]
    soft = None if ex.soft is None else [(a, min(b, cut), p) for a, b, p in ex.soft if a < cut]
    counts = [f"{len(refs)} of {len(ex.references)} reference spans"]
    counts += [f"{len(new)} of {len(old)} spans of {name}"
               for (name, new), (_, old) in zip(rows, ex.rows)]
    note = (f"Shown: characters 0 to {cut} of {len(ex.text)} characters, {', '.join(counts)}; "
            f"the rest is left out (a page draws at most {MAX_TEXT_SHOWN} characters and "
            f"{MAX_SPANS_SHOWN} spans per row of an example). The values beside the rows are "
            "those of the whole example.")
    return replace(ex, text=ex.text[:cut], references=refs, rows=rows, soft=soft,
                   notes=ex.notes + (note,))


def _example_html(ex, types: list[str], k: int) -> str:
    ex = bounded(ex)
    rows = [f'<tr class="myc-row myc-reference"><th>reference</th>'
            f'<td class="myc-text" dir="auto">{_reference_cell(ex, types)}</td><td></td></tr>']
    for (name, preds), values in zip(ex.rows, ex.metrics):
        rows.append(f'<tr class="myc-row myc-prediction"><th>{_chunk(name, False)}</th>'
                    f'<td class="myc-text" dir="auto">{_row_cell(ex, preds)}</td>'
                    f'{_metrics_cell(values) or "<td></td>"}</tr>')
    if ex.soft is not None:
        rows.append('<tr class="myc-row myc-scores"><th>scores</th>'
                    f'<td class="myc-text" dir="auto">{_soft_cell(ex)}</td>'
                    f'{_metrics_cell(ex.score_metrics) or "<td></td>"}</tr>')
    title = f'<div class="myc-title">{_chunk(ex.title, False)}</div>' if ex.title else ""
    context = "" if ex.context is None else (
        '<details class="myc-context"><summary>context</summary>'
        f'<div class="myc-context-text" dir="auto">{_chunk(ex.context, False)}</div></details>')
    notes = "".join(f'<div class="myc-why">{_chunk(n, False)}</div>' for n in ex.notes)
    return (f'<div class="myc-example" data-example="{k}">{title}{context}'
            f'<table class="myc-rows">{"".join(rows)}</table>{notes}</div>')


def legend(types: list[str], scores: bool = False,
           counts: dict[str, tuple[int, int]] | None = None) -> str:
    """The outcome swatches, one per span type (its colour and underline, then its
    reference and predicted spans when ``counts`` gives them), and the score scale when
    scores are shown."""
    items = [f'<span class="{cls}">{escape(text)}</span>' for cls, text in OUTCOMES.items()]
    if not types:
        items.append('<span class="myc-span">reference span</span>')
    for i, t in enumerate(types[:MAX_LEGEND_TYPES]):
        count = "" if counts is None or t not in counts else \
            f'<span class="myc-count">{said_counts(*counts[t])}</span>'
        # one box per type, so that a line break never parts a swatch from its counts
        items.append(f'<span class="myc-typed"><span class="myc-span myc-type-{i}" '
                     f'style="{type_style(i)}">{escape(t)}</span>{count}</span>')
    rest = types[MAX_LEGEND_TYPES:]
    if rest:
        n_ref = sum((counts or {}).get(t, (0, 0))[0] for t in rest)
        n_pred = sum((counts or {}).get(t, (0, 0))[1] for t in rest)
        items.append(f'<span class="myc-count">and {len(rest):,} more types '
                     f"({said_counts(n_ref, n_pred)})</span>")
    if scores:
        items.append('<span class="myc-heat">score 0 \u2192 1</span>')
    return '<div class="myc-legend">' + "".join(items) + "</div>"


def view_html(view: ViewData) -> str:
    """The HTML fragment of ``view`` (its own ``<style>``, classes prefixed ``myc``)."""
    note = f'<div class="myc-note">{_chunk(view.note, False)}</div>' if view.note else ""
    body = "".join(_example_html(ex, view.types, k) for k, ex in enumerate(view.examples))
    scores = any(ex.soft is not None for ex in view.examples)
    return (f'<div class="myc"><style>{CSS}</style>{note}'
            f"{legend(view.types, scores, type_counts(view))}{body}</div>")


def page(title: str, body: str, css: str = "") -> str:
    """A complete HTML document around ``body``: UTF-8, no external resources."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>body{{margin:1.5em;max-width:1100px}}"
            f"{css}</style></head><body>{body}</body></html>\n")
