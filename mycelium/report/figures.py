"""Inline SVG figures of the report: a detector's measures per group (bars with interval
whiskers) and the metric-agreement heatmap. Plain SVG text: no scripts, no fonts or
images from the network, readable without a server.

Groups are told apart by colour only while the colours are safe: up to `SAFE_GROUPS`
groups (Okabe and Ito's palette without its yellow, which has a 1.3:1 contrast on white;
every bar outlined in dark grey). With more groups each measure gets a small panel of its
own, one labelled bar per group, so no colour repeats and every group is named where it
is drawn. Figures keep their drawn size (text stays legible); the page scrolls them
sideways inside their own box when they are wider than the window.
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

__all__ = ["bars", "heatmap", "GROUP_COLOURS", "SAFE_GROUPS"]

#: Okabe-Ito (colour-blind safe) without its yellow, one per group in order.
GROUP_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
                 "#555555")
#: Past this many groups, `bars` draws small multiples instead of colours.
SAFE_GROUPS = len(GROUP_COLOURS)
OUTLINE = "#333333"
FONT = 'font-family="system-ui,sans-serif"'


def _num(x: float) -> str:
    return f"{x:.1f}"


def bars(title: str, measures: Sequence[str], groups: Sequence[str],
         values: dict, intervals: dict | None = None) -> str:
    """Grouped bars on [0, 1]: one cluster per measure, one bar per group.

    ``values[(measure, group)]`` is the value (NaN or absent: no bar, marked "n/a");
    ``intervals[(measure, group)]`` an optional ``(low, high)`` drawn as a whisker.
    More than `SAFE_GROUPS` groups: `small_multiples`.
    """
    if len(groups) > SAFE_GROUPS:
        return small_multiples(title, measures, groups, values, intervals)
    bar, gap, left, top, height = 12, 22, 44, 34, 180
    width_cluster = max(len(groups), 1) * bar
    legend_rows = math.ceil(len(groups) / 6)
    top += 16 * legend_rows
    width = left + len(measures) * (width_cluster + gap) + 10
    width = max(width, 360)
    total = top + height + 64
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="myc-figure" width="{width}" '
           f'height="{total}" viewBox="0 0 {width} {total}" role="img" '
           f'aria-label="{escape(title)}"><title>{escape(title)}</title>',
           f'<text x="4" y="16" {FONT} font-size="13" font-weight="600">{escape(title)}</text>']
    for i, group in enumerate(groups):  # legend
        x, y = 4 + (i % 6) * 110, 24 + 16 * (i // 6)
        colour = GROUP_COLOURS[i % len(GROUP_COLOURS)]
        out.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{x + 14}" y="{y + 9}" {FONT} font-size="11">'
                   f'{escape(str(group)[:16])}</text>')
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        ty = top + height * (1 - tick)
        out.append(f'<line x1="{left}" x2="{width - 6}" y1="{_num(ty)}" y2="{_num(ty)}" '
                   f'stroke="#ddd"/><text x="{left - 4}" y="{_num(ty + 4)}" {FONT} '
                   f'font-size="10" text-anchor="end">{tick:g}</text>')
    for m, measure in enumerate(measures):
        x0 = left + gap / 2 + m * (width_cluster + gap)
        for g, group in enumerate(groups):
            out.append(_bar(x0 + g * bar, bar, top, height, values.get((measure, group)),
                            (intervals or {}).get((measure, group)),
                            GROUP_COLOURS[g % len(GROUP_COLOURS)], f"{measure}, {group}"))
        cx = x0 + width_cluster / 2
        out.append(f'<text x="{_num(cx)}" y="{top + height + 14}" {FONT} font-size="10" '
                   f'text-anchor="end" transform="rotate(-30 {_num(cx)} {top + height + 14})">'
                   f'{escape(measure)}</text>')
    out.append("</svg>")
    return "".join(out)


def _bar(x, w, top, height, value, interval, colour, label) -> str:
    if value is None or not math.isfinite(value):
        return (f'<text x="{_num(x + w / 2)}" y="{top + height - 3}" {FONT} font-size="8" '
                f'text-anchor="middle" fill="#777">n/a</text>')
    v = min(max(value, 0.0), 1.0)
    y = top + height * (1 - v)
    tip = f"{label}: {value:.3f}"
    parts = [f'<rect class="myc-bar" x="{_num(x + 1)}" y="{_num(y)}" width="{w - 2}" '
             f'height="{_num(top + height - y)}" fill="{colour}" stroke="{OUTLINE}" '
             f'stroke-width="0.6"><title>{escape(tip)}</title></rect>']
    if interval is not None and all(math.isfinite(b) for b in interval):
        lo, hi = (top + height * (1 - min(max(b, 0.0), 1.0)) for b in interval)
        cx = _num(x + w / 2)
        parts.append(f'<path d="M{cx} {_num(lo)}V{_num(hi)}M{_num(x + 3)} {_num(lo)}'
                     f'H{_num(x + w - 3)}M{_num(x + 3)} {_num(hi)}H{_num(x + w - 3)}" '
                     f'stroke="#222" stroke-width="1.2" fill="none"/>')
    return "".join(parts)


def small_multiples(title: str, measures: Sequence[str], groups: Sequence[str],
                    values: dict, intervals: dict | None = None) -> str:
    """One small panel per measure: a horizontal bar per group, labelled with the group's
    name and its value (whiskers: the intervals); the panels wrap to the page's width."""
    label, plot, row, top = 96, 150, 15, 34
    width, height = label + plot + 44, top + row * len(groups) + 20
    panels = []
    for measure in measures:
        name = f"{title}: {measure}"
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="myc-figure myc-multiple" '
               f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
               f'role="img" aria-label="{escape(name)}"><title>{escape(name)}</title>',
               f'<text x="4" y="14" {FONT} font-size="12" font-weight="600">'
               f'{escape(measure)}</text>']
        for tick in (0, 0.5, 1.0):
            tx = label + plot * tick
            out.append(f'<line x1="{_num(tx)}" x2="{_num(tx)}" y1="{top - 6}" '
                       f'y2="{height - 18}" stroke="#ddd"/><text x="{_num(tx)}" '
                       f'y="{height - 6}" {FONT} font-size="10" text-anchor="middle">'
                       f'{tick:g}</text>')
        for g, group in enumerate(groups):
            y = top + g * row
            out.append(f'<text x="{label - 4}" y="{y + 10}" {FONT} font-size="11" '
                       f'text-anchor="end">{escape(str(group)[:16])}</text>')
            out.append(_hbar(label, y, plot, row, values.get((measure, group)),
                             (intervals or {}).get((measure, group)), f"{measure}, {group}"))
        out.append("</svg>")
        panels.append("".join(out))
    return (f'<div class="myc-figures" role="group" aria-label="{escape(title)}">'
            f'<div class="myc-figures-title">{escape(title)}</div>' + "".join(panels)
            + "</div>")


def _hbar(left, y, plot, row, value, interval, label) -> str:
    if value is None or not math.isfinite(value):
        return (f'<text x="{left + 2}" y="{y + 10}" {FONT} font-size="10" '
                f'fill="#777">n/a</text>')
    v = min(max(value, 0.0), 1.0)
    parts = [f'<rect class="myc-bar" x="{left}" y="{y + 2}" width="{_num(plot * v)}" '
             f'height="{row - 4}" fill="{GROUP_COLOURS[0]}" stroke="{OUTLINE}" '
             f'stroke-width="0.6"><title>{escape(f"{label}: {value:.3f}")}</title></rect>']
    end = plot * v
    if interval is not None and all(math.isfinite(b) for b in interval):
        lo, hi = (left + plot * min(max(b, 0.0), 1.0) for b in interval)
        cy = y + row / 2
        parts.append(f'<path d="M{_num(lo)} {_num(cy)}H{_num(hi)}" stroke="#222" '
                     'stroke-width="1.2" fill="none"/>')
        end = max(end, hi - left)
    parts.append(f'<text x="{_num(left + end + 4)}" y="{y + 10}" {FONT} font-size="10">'
                 f"{value:.3f}</text>")
    return "".join(parts)


def _diverging(t: float) -> str:
    """Colour of a correlation in [-1, 1]: orange (-1), white (0), blue (+1) (PuOr-like,
    safe for colour-blind readers); grey for NaN."""
    if not math.isfinite(t):
        return "#cccccc"
    a, b = ((179, 88, 6), (33, 102, 172))
    end = b if t > 0 else a
    k = min(abs(t), 1.0)
    rgb = [round(255 + (c - 255) * k) for c in end]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def heatmap(title: str, names: Sequence[str], matrix: Sequence[Sequence[float]]) -> str:
    """A square heatmap of ``matrix[i][j]`` (in [-1, 1]) with its values written in."""
    cell, label = 34, 150
    n = len(names)
    width = max(label + n * cell + 110, label + 430)  # room for the slanted labels
    height = label + n * cell + 26
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="myc-figure myc-heatmap" '
           f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{escape(title)}"><title>{escape(title)}</title>',
           f'<text x="4" y="16" {FONT} font-size="13" font-weight="600">{escape(title)}</text>']
    for i, name in enumerate(names):
        y = label + i * cell + cell / 2 + 4
        out.append(f'<text x="{label - 6}" y="{_num(y)}" {FONT} font-size="10" '
                   f'text-anchor="end">{escape(name)}</text>')
        x = label + i * cell + cell / 2
        out.append(f'<text x="{_num(x)}" y="{label - 6}" {FONT} font-size="10" '
                   f'transform="rotate(-45 {_num(x)} {label - 6})">{escape(name)}</text>')
    for i in range(n):
        for j in range(n):
            t = matrix[i][j]
            x, y = label + j * cell, label + i * cell
            ink = "#fff" if math.isfinite(t) and abs(t) > 0.6 else "#111"
            shown = f"{t:.2f}" if math.isfinite(t) else "n/a"
            out.append(f'<rect class="myc-cell" x="{x}" y="{y}" width="{cell - 1}" '
                       f'height="{cell - 1}" fill="{_diverging(t)}"><title>'
                       f'{escape(names[i])} vs {escape(names[j])}: {shown}</title></rect>'
                       f'<text x="{x + cell / 2}" y="{y + cell / 2 + 3}" {FONT} '
                       f'font-size="9" text-anchor="middle" fill="{ink}">{shown}</text>')
    out.append(f'<text x="{label}" y="{height - 8}" {FONT} font-size="10" fill="#333">'
               "Kendall's tau-b between the rankings of the detectors: "
               "blue agrees, orange reverses</text></svg>")
    return "".join(out)
