"""The self-contained HTML report of one or more detectors: the settings signature,
per-group tables with intervals, a figure of each detector's measures per group, the
metric-agreement heatmap, and each detector's worst examples in the span view.

One file, inline CSS and SVG, no scripts and nothing fetched: it opens from disk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from html import escape

import numpy as np
import pandas as pd

from ..stats.agreement import metric_agreement
from .figures import bars, heatmap
from .explain import explain
from .frame import frame_view
from .progress import phase_bar
from .render import page, view_html
from .view import show

__all__ = ["build_report", "ReportOptions", "MAX_VIEW_ROWS", "HEADLINE"]

#: Above this many rows the example views are drawn from a random sample of this size.
MAX_VIEW_ROWS = 200_000
#: Bootstrap resamples by default, and above `MAX_VIEW_ROWS` rows (where a thousand
#: resamples of millions of rows take minutes); the page says which was used.
RESAMPLES, LARGE_RESAMPLES = 1000, 200
#: The measure shown per metric in tables and figures (its score, else its F1).
HEADLINE = {"iou": "score", "character": "f1", "exact_span": "f1", "deteval_1d": "f1",
            "cleval_1d": "f1", "span_coverage": "f1", "soft_spearman": "score"}

REPORT_CSS = """
h1{font:600 22px system-ui,sans-serif;margin:.2em 0}
h2{font:600 17px system-ui,sans-serif;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}
h3{font:600 14px system-ui,sans-serif;margin:1em 0 .3em}
body{font:14px system-ui,sans-serif;color:#111}
code.sig{display:block;white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;
padding:.5em;font-size:12px}
table.myc-results{border-collapse:collapse;margin:.3em 0 1em;font-size:12px;
font-variant-numeric:tabular-nums}
table.myc-results th,table.myc-results td{border:1px solid #ccc;padding:3px 6px;
text-align:right;white-space:nowrap}
table.myc-results th:first-child,table.myc-results td:first-child{text-align:left}
table.myc-results .ci{color:#555;font-size:11px}
.note{color:#8a5a00;font-size:13px}
svg.myc-figure{display:block;margin:.4em 0 1em;max-width:100%;height:auto}
nav a{margin-right:1em}
"""


@dataclass(frozen=True)
class ReportOptions:
    """How the report is computed (everything recorded in the signature or the page)."""

    title: str = "mycelium report"
    ci: float | None = 0.95
    n_resamples: int | None = None  # None: RESAMPLES, or LARGE_RESAMPLES for large frames
    seed: int = 0
    examples: int = 5
    max_view_rows: int = MAX_VIEW_ROWS
    profile: object = None
    sort_by: str = "iou"
    progress: bool | None = None  # None: a bar only on a terminal or in a notebook


def _cell(row) -> str:
    value = row["value"]
    text = "n/a" if not math.isfinite(value) else f"{value:.3f}"
    if "ci_low" in row and math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"]):
        text += f' <span class="ci">[{row["ci_low"]:.3f}, {row["ci_high"]:.3f}]</span>'
    return f"<td>{text}</td>"


def _headline_rows(results: pd.DataFrame) -> pd.DataFrame:
    keep = [HEADLINE.get(m) == s for m, s in zip(results["metric"], results["measure"])]
    return results[np.asarray(keep, dtype=bool)]


def _measure_names(results: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(f"{m} {s}" for m, s in zip(results["metric"],
                                                           results["measure"])))


def results_table(results: pd.DataFrame, detector_col: str) -> str:
    """One row per detector, one column per headline measure: value [low, high]."""
    head = _headline_rows(results)
    names = _measure_names(head)
    out = ['<table class="myc-results"><thead><tr><th>detector</th><th>examples</th>']
    out += [f"<th>{escape(n)}</th>" for n in names]
    out.append("</tr></thead><tbody>")
    for detector, part in head.groupby(detector_col, sort=True, dropna=False):
        cells = {f"{r['metric']} {r['measure']}": _cell(r) for _, r in part.iterrows()}
        out.append(f"<tr><td>{escape(str(detector))}</td>"
                   f"<td>{int(part['examples'].iloc[0])}</td>"
                   + "".join(cells.get(n, "<td></td>") for n in names) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _group_label(key, by: list[str]) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{b}={'null' if pd.isna(k) else k}" for b, k in zip(by, key))


def group_tables(results: pd.DataFrame, detector_col: str, by: list[str]) -> str:
    if not by:
        return ""
    out = []
    for key, part in results.groupby(by, sort=True, dropna=False):
        out.append(f"<h3>{escape(_group_label(key, by))}</h3>"
                   + results_table(part, detector_col))
    return "".join(out)


def detector_figures(results: pd.DataFrame, detector_col: str, by: list[str]) -> str:
    """Per detector, its headline measures in each group (whiskers: the intervals)."""
    head = _headline_rows(results)
    measures = _measure_names(head)
    out = []
    for detector, part in head.groupby(detector_col, sort=True, dropna=False):
        labels = ([_group_label(k, by) for k in zip(*(part[b] for b in by))]
                  if by else ["all"] * len(part))
        names = [f"{m} {s}" for m, s in zip(part["metric"], part["measure"])]
        values = {(n, g): float(v) for n, g, v in zip(names, labels, part["value"])}
        intervals = None
        if "ci_low" in part:
            intervals = {(n, g): (float(lo), float(hi)) for n, g, lo, hi in
                         zip(names, labels, part["ci_low"], part["ci_high"])}
        groups = list(dict.fromkeys(labels))
        out.append(bars(f"{detector}: measures per group", measures, groups, values,
                        intervals))
    return "".join(out)


def agreement_figure(overall: pd.DataFrame, detector_col: str) -> str:
    """The metric-agreement heatmap over all measures (needs two detectors or more)."""
    if overall[detector_col].nunique() < 2:
        return '<p class="note">The metric agreement needs two detectors or more.</p>'
    table = metric_agreement(overall.drop(columns=["ci_low", "ci_high"], errors="ignore"),
                             detector_col, by=[])
    names = _measure_names(overall)
    index = {n: i for i, n in enumerate(names)}
    matrix = [[1.0 if i == j else math.nan for j in range(len(names))]
              for i in range(len(names))]
    for _, r in table.iterrows():
        i, j = index[f"{r['metric_a']} {r['measure_a']}"], index[f"{r['metric_b']} {r['measure_b']}"]
        matrix[i][j] = matrix[j][i] = float(r["kendall_tau"])
    return heatmap("Metric agreement over detectors", names, matrix)


def example_views(frame: pd.DataFrame, cols: dict, detector_col: str,
                  options: ReportOptions, by: list[str]) -> str:
    """Each detector's worst examples (from a seeded sample when the frame is large)."""
    if cols.get("text") is None:
        return '<p class="note">No text column: the example views need the texts.</p>'
    note = ""
    if len(frame) > options.max_view_rows:
        rng = np.random.default_rng(options.seed)
        rows = np.sort(rng.choice(len(frame), options.max_view_rows, replace=False))
        note = (f'<p class="note">The report has {len(frame):,} rows: the example views are '
                f"drawn from a random sample of {options.max_view_rows:,} of them (seed "
                f"{options.seed}); the tables and figures use every row.</p>")
        frame = frame.iloc[rows]
    out = [note]
    for detector, part in frame.groupby(detector_col, sort=True, dropna=False):
        view = frame_view(part, cols["ref"], cols["pred"], text=cols["text"],
                          sort_by=options.sort_by, n=options.examples,
                          labels=[str(detector)], profile=options.profile)
        out.append(f"<h3>{escape(str(detector))}: lowest {escape(options.sort_by)} first</h3>"
                   + view_html(view))
    return "".join(out)


def _pair_rows(frame, detector_col: str, example_col: str, a, b):
    """The rows of detectors ``a`` and ``b`` for the same examples (by ``example_col``),
    or None when their examples differ."""
    pa_ = frame[frame[detector_col] == a].drop_duplicates(example_col)
    pb_ = frame[frame[detector_col] == b].drop_duplicates(example_col)
    keys = pa_[example_col]
    if len(pa_) != len(pb_) or not keys.isin(pb_[example_col]).all():
        return None
    order = pd.Index(pb_[example_col]).get_indexer(keys)
    return pa_, pb_.iloc[order]


def disagreement(frame, overall, cols: dict, detector_col: str, example_col: str | None,
                 options: ReportOptions) -> str:
    """`explain` for the two detectors whose headline IoU differ most."""
    iou = overall[(overall["metric"] == "iou") & (overall["measure"] == "score")]
    if iou[detector_col].nunique() < 2 or example_col is None:
        return ('<p class="note">Needs two detectors or more, with examples keyed across '
                "detectors (an id column).</p>")
    ranked = iou.sort_values("value", kind="stable")
    a, b = ranked[detector_col].iloc[-1], ranked[detector_col].iloc[0]
    pair = _pair_rows(frame, detector_col, example_col, a, b)
    if pair is None:
        return f'<p class="note">{escape(str(a))} and {escape(str(b))} scored different examples.</p>'
    rows_a, rows_b = pair
    texts = None if cols.get("text") is None else rows_a[cols["text"]].tolist()
    out = explain(rows_a[cols["ref"]], rows_a[cols["pred"]], rows_b[cols["pred"]],
                  text=texts, metric="iou", n=options.examples)
    head = (f"<p>{escape(str(a))} minus {escape(str(b))} on {escape(out.attrs['quantity'])}: "
            f"{out.attrs['difference']:.3f}. The examples that contribute most (each one's "
            "share of the difference; the shares add up to it):</p>")
    table = ['<table class="myc-results"><thead><tr><th>example</th><th>contribution</th>'
             f"<th>iou {escape(str(a))}</th><th>iou {escape(str(b))}</th></tr></thead><tbody>"]
    keys = rows_a[example_col].to_numpy()
    for _, r in out.iterrows():
        table.append(f"<tr><td>{escape(str(keys[int(r['example'])]))}</td>"
                     f"<td>{r['contribution']:+.4f}</td><td>{r['value_a']:.3f}</td>"
                     f"<td>{r['value_b']:.3f}</td></tr>")
    table.append("</tbody></table>")
    view = ""
    if texts is not None:
        pick = out["example"].to_numpy()
        refs, pa_, pb_ = (rows[c].to_numpy() for rows, c in
                          ((rows_a, cols["ref"]), (rows_a, cols["pred"]), (rows_b, cols["pred"])))
        shown = show([texts[i] for i in pick], [refs[i] for i in pick],
                     {str(a): [pa_[i] for i in pick], str(b): [pb_[i] for i in pick]})
        titled = [replace(ex, title=f"{keys[i]} · contribution {c:+.4f}")
                  for ex, i, c in zip(shown.examples, pick, out["contribution"])]
        view = view_html(replace(shown, examples=titled))
    return head + "".join(table) + view


def _fewer(resamples: int, options: ReportOptions, rows: int) -> str:
    if options.n_resamples is not None or resamples == RESAMPLES:
        return ""
    return (f" (fewer than the usual {RESAMPLES}: the report has more than "
            f"{options.max_view_rows:,} rows; choose with --resamples)")


def build_report(frame: pd.DataFrame, ref_col: str, pred_col: str, *, detector_col: str,
                 text_col: str | None = None, by=None, example_col: str | None = None,
                 options: ReportOptions = ReportOptions()) -> str:
    """The report of ``frame`` (long format: one row per example and detector) as one
    self-contained HTML document."""
    by = [] if by is None else [by] if isinstance(by, str) else list(by)
    common = dict(text=text_col, profile=options.profile)
    resamples = options.n_resamples
    if resamples is None:
        resamples = RESAMPLES if len(frame) <= options.max_view_rows else LARGE_RESAMPLES
    ci = dict(ci=options.ci, n_resamples=resamples, seed=options.seed) if options.ci else {}
    bar = phase_bar(6 if by else 5, "report", options.progress)
    bar.set_description("report: scoring")
    quiet = dict(progress=False) if ci else {}  # one bar at a time
    large = len(frame) > options.max_view_rows
    # Above the size guard, with groups, only the per-group tables get intervals: a
    # second bootstrap over millions of rows would double the report's time.
    overall_ci = {} if large and by else ci
    overall = frame.mycelium.evaluate(ref_col, pred_col, by=detector_col, **common,
                                      **overall_ci, **(quiet if overall_ci else {}))
    bar.update(1)
    grouped = overall
    if by:
        grouped = frame.mycelium.evaluate(ref_col, pred_col, by=[detector_col, *by],
                                          **common, **ci, **quiet)
        bar.update(1)
    signature = overall.attrs.get("mycelium_signature", "")
    cols = {"ref": ref_col, "pred": pred_col, "text": text_col}
    sections = [
        ("settings", "Settings", f'<code class="sig">{escape(signature)}</code>'
         f"<p>{len(frame):,} rows, {frame[detector_col].nunique()} detector(s)"
         + (f", grouped by {escape(', '.join(by))}" if by else "") + "; intervals: "
         + (f"{options.ci:g} percentile bootstrap, {resamples} resamples"
            + _fewer(resamples, options, len(frame)) if options.ci else "none") + ".</p>"),
        ("overall", "All rows", results_table(overall, detector_col)
         + ('<p class="note">Intervals are on the per-group tables only above '
            f"{options.max_view_rows:,} rows.</p>" if ci and not overall_ci else "")),
    ]
    if by:
        sections.append(("groups", "Per group", group_tables(grouped, detector_col, by)))
    bar.set_description("report: figures")
    sections.append(("figures", "Measures per group",
                     detector_figures(grouped, detector_col, by)))
    sections.append(("agreement", "Metric agreement", agreement_figure(overall, detector_col)))
    sections.append(("disagreement", "Largest disagreement",
                     disagreement(frame, overall, cols, detector_col, example_col, options)))
    bar.update(1)
    bar.set_description("report: examples")
    sections.append(("examples", "Worst examples",
                     example_views(frame, cols, detector_col, options, by)))
    bar.update(1)
    nav = "<nav>" + "".join(f'<a href="#{k}">{escape(t)}</a>' for k, t, _ in sections) + "</nav>"
    body = (f"<h1>{escape(options.title)}</h1>{nav}"
            + "".join(f'<section id="{k}"><h2>{escape(t)}</h2>{html}</section>'
                      for k, t, html in sections))
    bar.update(1)
    bar.close()
    return page(options.title, body, css=REPORT_CSS)
