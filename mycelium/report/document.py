"""The self-contained HTML report of one or more detectors: the settings signature,
per-group tables with intervals, a figure of each detector's measures per group, the
metric-agreement heatmap, and each detector's worst examples in the span view.

One file, inline CSS and SVG, no scripts and nothing fetched: it opens from disk.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from html import escape

import numpy as np
import pandas as pd

from ..core.signature import parse_signature, signature_with
from ..errors import EmptySpanWarning
from ..evaluate import statistics
from ..stats.agreement import metric_agreement
from .figures import bars, heatmap
from .glossary import glossary_html
from .progress import Phases
from .render import page
from .types import TYPES_CSS, type_html, type_table
from .worst import disagreement, example_views

__all__ = ["build_report", "ReportOptions", "MAX_VIEW_ROWS", "HEADLINE", "MIN_AGREEMENT"]

#: Above this many rows the example views are drawn from a random sample of this size.
MAX_VIEW_ROWS = 200_000
#: Bootstrap resamples by default, and above `MAX_VIEW_ROWS` rows (where a thousand
#: resamples of millions of rows take minutes); the page says which was used.
RESAMPLES, LARGE_RESAMPLES = 1000, 200
#: The measure shown per metric in tables and figures (its score, else its F1).
HEADLINE = {"iou": "score", "character": "f1", "exact_span": "f1", "deteval_1d": "f1",
            "cleval_1d": "f1", "span_coverage": "f1", "soft_spearman": "score"}
#: Detectors the metric-agreement heatmap needs: with k detectors Kendall's tau moves in
#: steps of 4 / (k (k - 1)), and two rankings of 3 agree perfectly by chance one time in
#: 3! = 6; of 4, one time in 24 (below 5%).
MIN_AGREEMENT = 4

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
table.myc-results .why{text-align:left;color:#5a3d00}
table.myc-results .ci{color:#555;font-size:11px}
.myc-scroll{overflow-x:auto;max-width:100%}
table.myc-glossary{border-collapse:collapse;font-size:12px;margin:.3em 0}
table.myc-glossary th,table.myc-glossary td{border:1px solid #ccc;padding:3px 6px;
text-align:left;vertical-align:top;min-width:8em}
ul.myc-terms{font-size:13px;padding-left:1.2em}
.note{color:#8a5a00;font-size:13px}
svg.myc-figure{display:block;margin:.4em 0 1em}
.myc-figures{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}
.myc-figures-title{flex-basis:100%;font:600 13px system-ui,sans-serif;margin-top:.6em}
details.myc-worst>summary{cursor:pointer;font-size:14px;margin:.8em 0 .3em}
nav{display:flex;flex-wrap:wrap;gap:.2em 1em}
"""


@dataclass(frozen=True)
class ReportOptions:
    """How the report is computed (everything recorded in the signature or the page)."""

    title: str = "mycelium report"
    ci: float | None = 0.95
    n_resamples: int | None = None  # None: RESAMPLES, or LARGE_RESAMPLES for large frames
    seed: int = 0
    examples: int = 3  # worst examples per detector and group
    max_view_rows: int = MAX_VIEW_ROWS
    profile: object = None
    sort_by: str = "iou"
    progress: bool | None = None  # None: a bar only on a terminal or in a notebook
    float_parse: str | None = None  # the rule the numbers were read from text by, if any
    #: how the data wrote the span ends: the spans reach the report half-open (converted
    #: by the caller, so every view draws them as scored), this is recorded in the signature
    offsets: str = "half-open"
    type_field: str | None = None  # the span field of a type: adds the per-type section
    typed_matching: bool = False  # with type_field: restrict predictions to each type too


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


def results_table(results: pd.DataFrame, detector_col: str,
                  empties: dict | None = None, why: bool = True) -> str:
    """One row per detector, one column per headline measure: value [low, high]; when
    some examples are empty on both sides (``empties``: detector -> (empty examples,
    examples)), a last column counts them and a note under the table says what they do."""
    head = _headline_rows(results)
    names = _measure_names(head)
    empty = {d: (e, n) for d, (e, n) in (empties or {}).items() if e}
    out = ['<div class="myc-scroll"><table class="myc-results"><thead><tr><th>detector</th>'
           "<th>examples</th>"]
    out += [f"<th>{escape(n)}</th>" for n in names]
    out.append('<th class="why">empty on both sides</th>' if empty else "")
    out.append("</tr></thead><tbody>")
    for detector, part in head.groupby(detector_col, sort=True, dropna=False):
        cells = {f"{r['metric']} {r['measure']}": _cell(r) for _, r in part.iterrows()}
        e, n = empty.get(detector, (0, 0))
        note = (f'<td class="why">{e:,} of {n:,}</td>' if e else '<td class="why"></td>') \
            if empty else ""
        out.append(f"<tr><td>{escape(str(detector))}</td>"
                   f"<td>{int(part['examples'].iloc[0])}</td>"
                   + "".join(cells.get(n, "<td></td>") for n in names) + note + "</tr>")
    out.append("</tbody></table></div>")
    if empty and why:
        out.append(f'<p class="note">{WHY}</p>')
    return "".join(out)


#: What an example empty on both sides does to the numbers (said under a table with one).
WHY = ("Empty on both sides: no reference and no predicted span. Each such example scores "
       "iou 1.0 (the official Mu-SHROOM rule) but precision, recall and F1 0/0, written as "
       "the zero_division value, so iou can stand far above the F1 columns.")


def empty_counts(frame: pd.DataFrame, ref_col: str, pred_col: str, keys: list[str]) -> dict:
    """Per key of ``keys`` (the detector, then the groups), (examples empty on both
    sides, examples)."""
    st = statistics(frame[ref_col], frame[pred_col], metrics=["exact_span"],
                    missing="empty")["exact_span"]
    both = (np.asarray(st["n_ref"]) == 0) & (np.asarray(st["n_pred"]) == 0)
    counts = pd.DataFrame({k: frame[k].to_numpy() for k in keys}).assign(__e=both, __n=1)
    summed = counts.groupby(keys, dropna=False, sort=False)[["__e", "__n"]].sum()
    return {k: (int(e), int(n)) for k, e, n in zip(summed.index, summed["__e"], summed["__n"])}


def _group_label(key, by: list[str]) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{b}={'null' if pd.isna(k) else k}" for b, k in zip(by, key))


def group_tables(results: pd.DataFrame, detector_col: str, by: list[str],
                 empties: dict | None = None) -> str:
    if not by:
        return ""
    out = []
    for key, part in results.groupby(by, sort=True, dropna=False):
        key_t = key if isinstance(key, tuple) else (key,)
        mine = None if empties is None else {
            k[0]: v for k, v in empties.items() if _same(k[1:], key_t)}
        out.append(f"<h3>{escape(_group_label(key, by))}</h3>"
                   + results_table(part, detector_col, mine, why=False))
    if empties and any(e for e, _ in empties.values()):
        out.insert(0, f'<p class="note">{WHY}</p>')
    return "".join(out)


def _same(a: tuple, b: tuple) -> bool:
    return all((pd.isna(x) and pd.isna(y)) if not isinstance(x, str) and pd.isna(x) else x == y
               for x, y in zip(a, b))


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
    return '<div class="myc-scroll">' + "".join(out) + "</div>"


def agreement_figure(overall: pd.DataFrame, detector_col: str) -> str:
    """The metric-agreement heatmap over all measures, from `MIN_AGREEMENT` detectors
    up, with the number it rests on and the values tau can take."""
    k = int(overall[detector_col].nunique())
    if k < MIN_AGREEMENT:
        return (f'<p class="note">The metric agreement needs {MIN_AGREEMENT} detectors or '
                f"more; this report has {k}. With {k} detector(s), Kendall's tau between two "
                "rankings takes only the values " + _tau_values(k) + ", and two rankings "
                f"agree perfectly by chance one time in {math.factorial(max(k, 1))}.</p>")
    table = metric_agreement(overall.drop(columns=["ci_low", "ci_high"], errors="ignore"),
                             detector_col, by=[])
    names = _measure_names(overall)
    index = {n: i for i, n in enumerate(names)}
    matrix = [[1.0 if i == j else math.nan for j in range(len(names))]
              for i in range(len(names))]
    for _, r in table.iterrows():
        i, j = index[f"{r['metric_a']} {r['measure_a']}"], index[f"{r['metric_b']} {r['measure_b']}"]
        matrix[i][j] = matrix[j][i] = float(r["kendall_tau"])
    caveat = (f'<p class="note">Each tau compares the rankings of the same {k} detectors '
              f"under two measures: with {k} detectors tau moves in steps of "
              f"{4 / (k * (k - 1)):.3g} (without ties), so read differences smaller than "
              "that as none. Ties between detectors make tau-b undefined (n/a) or uneven.</p>")
    return caveat + '<div class="myc-scroll">' + heatmap(
        f"Metric agreement over {k} detectors", names, matrix) + "</div>"


def _tau_values(k: int) -> str:
    if k < 2:
        return "none (it needs two detectors)"
    pairs = k * (k - 1) // 2
    values = sorted({abs(pairs - 2 * d) for d in range(pairs + 1)})
    return ", ".join(f"\u00b1{v}/{pairs}" if v not in (0, pairs) else
                     ("0" if v == 0 else "\u00b11") for v in values)


def _fewer(resamples: int, options: ReportOptions, rows: int) -> str:
    if options.n_resamples is not None or resamples == RESAMPLES:
        return ""
    return (f" (fewer than the usual {RESAMPLES}: the report has more than "
            f"{options.max_view_rows:,} rows; choose with --resamples)")


def _sizes(frame, detector_col: str, by: list[str], ci: dict, overall_ci: dict,
           resamples: int) -> list[int]:
    """The bar's phases: the overall and grouped scoring (their bootstraps' resamples,
    one per group), the glossary and figures, the disagreement, one step per detector's
    examples, the page."""
    detectors = frame[detector_col].nunique(dropna=False)
    combos = frame.groupby([detector_col, *by], dropna=False, sort=False).ngroups if by else 0
    overall = resamples * detectors if overall_ci else 1
    grouped = (resamples * combos if ci else 1) if by else 0
    return [overall, grouped, 1, 1, detectors, 1]


def build_report(frame: pd.DataFrame, ref_col: str, pred_col: str, *, detector_col: str,
                 text_col: str | None = None, by=None, example_col: str | None = None,
                 context_col: str | None = None, example_name: str = "id",
                 options: ReportOptions = ReportOptions()) -> str:
    """The report of ``frame`` (long format: one row per example and detector) as one
    self-contained HTML document. ``example_col`` keys the examples across detectors and
    titles them (as ``example_name``); ``context_col`` is shown collapsed above each
    example's text."""
    by = [] if by is None else [by] if isinstance(by, str) else list(by)
    common = dict(text=text_col, profile=options.profile)
    resamples = options.n_resamples
    if resamples is None:
        resamples = RESAMPLES if len(frame) <= options.max_view_rows else LARGE_RESAMPLES
    ci = dict(ci=options.ci, n_resamples=resamples, seed=options.seed) if options.ci else {}
    large = len(frame) > options.max_view_rows
    # Above the size guard, with groups, only the per-group tables get intervals: a
    # second bootstrap over millions of rows would double the report's time.
    overall_ci = {} if large and by else ci
    sizes = _sizes(frame, detector_col, by, ci, overall_ci, resamples)
    bar = Phases(sizes, "report", options.progress)
    with bar.phase(sizes[0], "report: scoring"):
        overall = frame.mycelium.evaluate(ref_col, pred_col, by=detector_col, **common,
                                          **overall_ci)
    # The first call told the zero-length spans (one EmptySpanWarning); the report's
    # other calls score the same rows, and say nothing more.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptySpanWarning)
        grouped = overall
        with bar.phase(sizes[1], "report: scoring groups"):
            if by:
                grouped = frame.mycelium.evaluate(ref_col, pred_col, by=[detector_col, *by],
                                                  **common, **ci)
        if options.float_parse is not None:  # the numbers were read from text by this rule
            overall.attrs["mycelium_signature"] = signature_with(
                overall.attrs.get("mycelium_signature"), float_parse=options.float_parse)
        if options.offsets != "half-open":
            overall.attrs["mycelium_signature"] = signature_with(
                overall.attrs.get("mycelium_signature"), offsets=options.offsets)
        cols = {"ref": ref_col, "pred": pred_col, "text": text_col, "context": context_col}
        with bar.phase(sizes[2], "report: figures"):
            empties = empty_counts(frame, ref_col, pred_col, [detector_col, *by])
            sections = _summary(frame, overall, grouped, detector_col, by, ci, overall_ci,
                                resamples, options, empties)
            if options.type_field is not None:  # after the tables, before the figures
                at = next(i for i, (k, _, _) in enumerate(sections) if k == "figures")
                sections.insert(at, ("types", "Per type",
                                     type_section(frame, ref_col, pred_col, detector_col,
                                                  options, common)))
        with bar.phase(sizes[3], "report: disagreement"):
            sections.append(("disagreement", "Largest disagreement",
                             disagreement(frame, overall, cols, detector_col, example_col,
                                          options, example_name)))
        with bar.phase(sizes[4], "report: examples") as phase:
            sections.append(("examples", "Worst examples",
                             example_views(frame, cols, detector_col, options, by, example_col,
                                           example_name, bar=phase)))
        with bar.phase(sizes[5], "report: page"):
            nav = "<nav>" + "".join(f'<a href="#{k}">{escape(t)}</a>'
                                    for k, t, _ in sections) + "</nav>"
            body = (f"<h1>{escape(options.title)}</h1>{nav}"
                    + "".join(f'<section id="{k}"><h2>{escape(t)}</h2>{html}</section>'
                              for k, t, html in sections))
            html = page(options.title, body,
                        css=REPORT_CSS + (TYPES_CSS if options.type_field else ""))
        bar.finish()
    return html


#: What the per-type section's measures are, said above its tables.
TYPES_SAID = ("Per span type ({field}): {which} The predicted spans of a type are those "
              "carrying it; examples are those having a span of the type{either}.")
REFERENCE_SIDE_SAID = ("each type's reference spans scored against all predictions, so only "
                       "the reference-side recalls are meaningful (an untyped prediction "
                       "cannot be charged to one type).")
TYPED_MATCHING_SAID = ("typed matching: both sides restricted to each type, every measure per "
                       "type.")


def type_section(frame: pd.DataFrame, ref_col: str, pred_col: str, detector_col: str,
                 options: ReportOptions, common: dict) -> str:
    """Per detector, its per-type table: the per-type rows of the pandas face (the
    ``by_type`` of `mycelium.evaluate` on that detector's rows), with the predicted spans
    of each type counted from its predictions."""
    field = options.type_field
    typed = frame.mycelium.evaluate(ref_col, pred_col, by=detector_col, type_field=field,
                                    typed_matching=options.typed_matching, **common)
    said = TYPES_SAID.format(
        field=escape(str(field)),
        which=TYPED_MATCHING_SAID if options.typed_matching else REFERENCE_SIDE_SAID,
        either=" on either side" if options.typed_matching else "")
    out = [f'<p class="note">{said}</p>']
    for detector, part in typed.groupby(detector_col, sort=True, dropna=False):
        rows = frame[frame[detector_col] == detector] if not pd.isna(detector) else \
            frame[frame[detector_col].isna()]
        table = type_table(part, rows[pred_col], type_field=field)
        out.append(f"<h3>{escape(str(detector))}</h3>{type_html(table)}")
    return "".join(out)


def _summary(frame, overall, grouped, detector_col, by, ci, overall_ci, resamples, options,
             empties) -> list[tuple[str, str, str]]:
    """The sections before the examples: settings (the signature of ``overall``),
    glossary, tables, figures, agreement."""
    signature = overall.attrs.get("mycelium_signature", "")
    settings = parse_signature(signature) if signature else {}
    metrics = list(dict.fromkeys(overall["metric"]))
    per_detector = {k[0]: (0, 0) for k in empties}
    for k, (e, n) in empties.items():
        per_detector[k[0]] = (per_detector[k[0]][0] + e, per_detector[k[0]][1] + n)
    sections = [
        ("settings", "Settings", f'<code class="sig">{escape(signature)}</code>'
         f"<p>{len(frame):,} rows, {frame[detector_col].nunique()} detector(s)"
         + (f", grouped by {escape(', '.join(by))}" if by else "") + "; intervals: "
         + (f"{options.ci:g} percentile bootstrap, {resamples} resamples"
            + _fewer(resamples, options, len(frame)) if options.ci else "none") + ".</p>"),
        ("glossary", "What the numbers mean", glossary_html(
            metrics, str(settings.get("average", overall["average"].iloc[0])),
            str(settings.get("zero_division", "0.0")))),
        ("overall", "All rows", results_table(overall, detector_col, per_detector)
         + ('<p class="note">Intervals are on the per-group tables only above '
            f"{options.max_view_rows:,} rows.</p>" if ci and not overall_ci else "")),
    ]
    if by:
        sections.append(("groups", "Per group",
                         group_tables(grouped, detector_col, by, empties)))
    sections.append(("figures", "Measures per group",
                     detector_figures(grouped, detector_col, by)))
    sections.append(("agreement", "Metric agreement", agreement_figure(overall, detector_col)))
    return sections
