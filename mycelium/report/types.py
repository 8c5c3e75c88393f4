"""The per-type section of a result: one row per span type with its measures, the number
of reference and predicted spans of the type and the examples having it, as plain text
(a terminal's ``print``), as HTML (a notebook, the report of ``mycelium report
--type-field``) and as a frame.

It reads the ``by_type`` entries of `mycelium.evaluate` (``type_field=``) or the per-type
rows of a tidy frame (the ``type`` column of ``df.mycelium.evaluate(...,
type_field=...)``): the numbers shown are those entries, never recomputed. Which measures
a type has is `mycelium.views.typology`'s rule (reference-side recalls, or every measure
under typed matching). The predicted spans of each type are counted from the predictions
when they are given, as the references' are (each side a set: duplicates and zero-length
spans count none).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from html import escape

import pandas as pd

from .glyphs import columns, safe

__all__ = ["TypeTable", "type_table", "predicted_type_counts", "MAX_TYPES_SHOWN",
           "TYPES_CSS", "NO_TYPE"]

#: How many types a table shows; past it the rarest types (fewest reference spans) are
#: summed into one line, so a page with thousands of distinct types stays small.
MAX_TYPES_SHOWN = 50
#: Longer type names are cut in the middle (the full name in the HTML tooltip).
TYPE_NAME_MAX = 40
#: How the spans without a type (a null type field) are named in the table.
NO_TYPE = "(no type)"
#: Count columns, before the measures.
COUNTS = ("reference spans", "predicted spans", "examples")
#: Metric rows of a tidy frame that hold counts, not measures (`mycelium.frames.engine`).
COUNTS_METRIC = "counts"

TYPES_CSS = """
table.myc-types{border-collapse:collapse;margin:.3em 0 1em;font-size:12px;
font-variant-numeric:tabular-nums}
table.myc-types th,table.myc-types td{border:1px solid #ccc;padding:3px 6px;
text-align:right;white-space:nowrap}
table.myc-types th{font-weight:600;white-space:normal;min-width:4.5em;vertical-align:bottom}
table.myc-types th:first-child,table.myc-types td:first-child{text-align:left;
white-space:normal;overflow-wrap:break-word;min-width:6em;max-width:14em}
.myc-types-note{color:#555;font-size:12px;margin:.2em 0 .6em}
.myc-scroll{overflow-x:auto;max-width:100%}
@media (max-width:600px){
table.myc-types,table.myc-types tbody{display:block}
table.myc-types thead{display:none}
table.myc-types tr{display:grid;grid-template-columns:repeat(auto-fill,minmax(8.5em,1fr));
border:1px solid #ccc;margin:0 0 .5em}
table.myc-types td,table.myc-types td:first-child{border:0;text-align:left;
white-space:normal;max-width:none;overflow-wrap:anywhere}
table.myc-types td::before{content:attr(data-k);display:block;color:#555;font-size:11px}
table.myc-types td:first-child{grid-column:1/-1;font-weight:600;background:#f2f2f2;
overflow-wrap:anywhere}
table.myc-types td:first-child::before{content:none}
}
"""


@dataclass(frozen=True)
class TypeTable:
    """The per-type section: ``frame`` (one row per type: ``type``, ``reference spans``,
    ``predicted spans`` (when known), ``examples``, then one column per ``"metric
    measure"``), what was left out, and a note. ``print`` gives the text table,
    notebooks draw the HTML one."""

    frame: pd.DataFrame
    note: str = ""
    left_out: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return type_text(self)

    def _repr_html_(self) -> str:
        return f"<div><style>{TYPES_CSS}</style>{type_html(self)}</div>"


def type_table(result, predictions=None, *, type_field: str | None = None) -> TypeTable:
    """The per-type section of a result, to print or to draw.

    Parameters
    ----------
    result : dict or DataFrame
        What `mycelium.evaluate` returned with ``type_field=`` (its ``by_type``), or the
        per-type rows of one result frame, pandas, Polars or Spark (a ``type`` column,
        and the ``counts`` / ``n_ref`` rows the frame faces give).
    predictions : span sets, optional
        The predictions that were scored: counts each type's predicted spans (read from
        ``type_field``). Without them the column is left out.
    type_field : str, optional
        The span field holding the type; needed with ``predictions``.

    Returns
    -------
    TypeTable
        ``print(table)`` for a terminal; in a notebook it draws itself as HTML.

    Raises
    ------
    ValueError
        A result without a per-type breakdown, or ``predictions`` without
        ``type_field``.

    Examples
    --------
    >>> import mycelium
    >>> from mycelium.report import type_table
    >>> refs = [[{"start": 0, "end": 5, "label_type": "Evident"},
    ...          {"start": 9, "end": 14, "label_type": "Subtle"}], []]
    >>> preds = [[{"start": 0, "end": 5, "label_type": "Evident"}],
    ...          [{"start": 1, "end": 3, "label_type": "Subtle"}]]
    >>> result = mycelium.evaluate(refs, preds, type_field="label_type",
    ...                            metrics=["character", "exact_span"])
    >>> print(type_table(result, preds, type_field="label_type"))
    type     reference spans  predicted spans  examples  exact_span recall  character recall
    Evident                1                1         1              1.000             1.000
    Subtle                 1                1         1              0.000             0.000
    """
    if predictions is not None and type_field is None:
        raise ValueError("Expected type_field with predictions (the span field holding "
                         "their types), got None; fix by passing type_field=, the field "
                         "given to evaluate.")
    entries = _entries(result)
    predicted = None if predictions is None else predicted_type_counts(predictions,
                                                                       type_field or "")
    if predicted is None and entries and all("n_pred" in e for e in entries.values()):
        # the result counts them itself (soft_spearman_by_label's per-label entries)
        predicted = Counter({t: int(e["n_pred"]) for t, e in entries.items()})
    return _table(entries, predicted, _note(result))


def _entries(result) -> dict:
    """``{type: {"examples", "n_ref", metric: {measure: value}}}`` from either form."""
    result = _as_pandas(result)
    if isinstance(result, pd.DataFrame):
        return by_type_of(result)
    if isinstance(result, dict) and isinstance(result.get("by_type"), dict):
        return result["by_type"]
    raise ValueError("Expected the result of mycelium.evaluate(..., type_field=...) (a dict "
                     "with 'by_type') or a result frame with a 'type' column, got "
                     f"{type(result).__name__}" + (" without 'by_type'" if
                                                   isinstance(result, dict) else "")
                     + "; fix by scoring with type_field= (the span field holding the "
                     "type).")


def _as_pandas(result):
    """A Polars or Spark result frame as pandas (the rows are few: one per type and
    measure); anything else as it is."""
    module = type(result).__module__
    if module.startswith("polars"):
        return result.to_pandas()
    if module.startswith("pyspark") and hasattr(result, "toPandas"):
        return result.toPandas()
    return result


def by_type_of(frame: pd.DataFrame) -> dict:
    """The ``by_type`` entries of one result frame's per-type rows (one group's)."""
    if "type" not in frame.columns:
        raise ValueError("Expected a result frame with a 'type' column (scored with "
                         f"type_field=), got columns {list(frame.columns)}; fix by scoring "
                         "with type_field=.")
    out: dict = {}
    # With soft_spearman_by_label (profile shroom_visions) the rows of a null type are
    # the means over every item, not a "no type" group: labels are never null there.
    labelled = "soft_spearman_by_label" in set(frame["metric"])
    for t, metric, measure, value, examples in zip(
            frame["type"], frame["metric"], frame["measure"], frame["value"],
            frame["examples"]):
        t = None if _missing(t) else t
        if t is None and (metric == "typed_span" or labelled):
            continue  # typed_span's rows are over every type at once (type null)
        entry = out.setdefault(t, {"examples": int(examples), "n_ref": 0})
        if metric == COUNTS_METRIC and measure == "n_ref":
            entry["n_ref"] = int(value)
        elif metric == COUNTS_METRIC and measure == "n_pred":
            entry["n_pred"] = int(value)
        else:
            entry.setdefault(metric, {})[measure] = float(value)
    return out


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def predicted_type_counts(predictions, type_field: str) -> Counter:
    """The predicted spans of each type: distinct ``(example, start, end, type)`` of
    non-zero length, as the references' ``n_ref`` counts them; a span without the field
    counts none, a null type counts under None.

    Examples
    --------
    >>> predicted_type_counts([[{"start": 0, "end": 2, "t": "a"},
    ...                         {"start": 0, "end": 2, "t": "a"}, [3, 4]]], "t")
    Counter({'a': 1})
    """
    from ..core.inputs import convert
    from ..views.typology import ABSENT, span_field

    side = convert(predictions, "predictions")
    types = span_field(predictions, type_field, "predictions", single=side.single)
    batch = side.batch
    seen = {(k, s, e, t) for k, s, e, t in zip(batch.example_ids.tolist(),
                                               batch.starts.tolist(), batch.ends.tolist(),
                                               types.tolist())
            if s < e and t is not ABSENT}
    return Counter(t for *_, t in seen)


def _note(result) -> str:
    result = _as_pandas(result)
    typed_span = ("typed_span" in result if isinstance(result, dict) else
                  isinstance(result, pd.DataFrame) and "metric" in result.columns
                  and bool((result["metric"] == "typed_span").any()))
    if typed_span:
        return ("typed_span is scored over every type at once (its scheme decides what a "
                "type mismatch costs): see the overall table.")
    return ""


def _measure_columns(entries: dict) -> list[str]:
    names: dict[str, None] = {}
    for entry in entries.values():
        for metric, measures in entry.items():
            if isinstance(measures, dict):
                for measure in measures:
                    names.setdefault(f"{metric} {measure}")
    return list(names)


def _table(entries: dict, predicted: Counter | None, note: str) -> TypeTable:
    measures = _measure_columns(entries)
    types = list(entries)
    if predicted is not None:  # a type only predicted still shows, with no measures
        types += sorted((t for t in predicted if t not in entries and t is not None),
                        key=str)
        types += [None] if None in predicted and None not in entries else []
    rows = []
    for t in types:
        entry = entries.get(t, {"examples": 0, "n_ref": 0})
        row: dict = {"type": t, "reference spans": int(entry.get("n_ref", 0))}
        if predicted is not None:
            row["predicted spans"] = int(predicted.get(t, 0))
        row["examples"] = int(entry.get("examples", 0))
        for name in measures:
            metric, measure = name.split(" ", 1)
            row[name] = float(entry.get(metric, {}).get(measure, math.nan))
        rows.append(row)
    cols = ["type", "reference spans"] + (["predicted spans"] if predicted is not None
                                          else []) + ["examples"] + measures
    frame = pd.DataFrame(rows, columns=cols)
    # object, not pandas' string dtype, so that the no-type group stays None (not NaN)
    frame["type"] = pd.Series([r["type"] for r in rows], dtype=object)
    left_out: dict = {}
    if len(frame) > MAX_TYPES_SHOWN:  # keep the most frequent types, in their order
        order = frame["reference spans"].to_numpy()
        keep = sorted(sorted(range(len(frame)), key=lambda i: -order[i])[:MAX_TYPES_SHOWN])
        rest = frame.drop(index=keep)
        left_out = {"types": len(rest), "reference spans": int(rest["reference spans"].sum())}
        if predicted is not None:
            left_out["predicted spans"] = int(rest["predicted spans"].sum())
        frame = frame.iloc[keep].reset_index(drop=True)
    return TypeTable(frame, note, left_out)


def _name(t) -> str:
    return NO_TYPE if _missing(t) else str(t)


def _short(name: str, width: int = TYPE_NAME_MAX) -> str:
    if len(name) <= width:
        return name
    half = (width - 1) // 2
    return name[:half] + "\u2026" + name[len(name) - (width - 1 - half):]


def _value(v: float) -> str:
    return "n/a" if math.isnan(v) else f"{v:.3f}"


def _cells(table: TypeTable) -> tuple[list[str], list[list[str]]]:
    head = list(table.frame.columns)
    body = []
    for row in table.frame.itertuples(index=False):
        values = list(row)
        cells = [_name(values[0])]
        for name, v in zip(head[1:], values[1:]):
            cells.append(f"{int(v):,}" if name in COUNTS else _value(float(v)))
        body.append(cells)
    return head, body


def _left_out_line(table: TypeTable) -> str:
    d = table.left_out
    if not d:
        return ""
    spans = f"{d['reference spans']:,} reference spans"
    if "predicted spans" in d:
        spans += f", {d['predicted spans']:,} predicted spans"
    return (f"{d['types']:,} more types ({spans}) are left out: a table shows the "
            f"{MAX_TYPES_SHOWN} types with the most reference spans.")


def type_text(table: TypeTable) -> str:
    """The table as aligned text (names escaped and cut to `TYPE_NAME_MAX` columns)."""
    head, body = _cells(table)
    rows = [head] + [[_short(safe(r[0]))] + r[1:] for r in body]
    widths = [max(columns(r[i]) for r in rows) for i in range(len(head))]
    lines = []
    for r in rows:
        cells = [r[0] + " " * (widths[0] - columns(r[0]))]
        cells += [" " * (w - columns(c)) + c for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    if not body:
        lines.append("(no typed span)")
    extra = [line for line in (_left_out_line(table), table.note) if line]
    return "\n".join(lines + extra)


def type_html(table: TypeTable) -> str:
    """The table as an HTML fragment (classes ``myc-types``; style in `TYPES_CSS`). In a
    window up to 600 px wide each type becomes a card of labelled values (each cell's
    ``data-k``), so that any number of measures reads without scrolling sideways."""
    head, body = _cells(table)
    out = ['<div class="myc-scroll"><table class="myc-types"><thead><tr>']
    out += [f"<th>{escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for r in body:
        name = r[0]
        tip = f' title="{escape(name)}"' if len(name) > TYPE_NAME_MAX else ""
        out.append(f"<tr><td{tip}>{escape(_short(name))}</td>"
                   + "".join(f'<td data-k="{escape(h)}">{c}</td>'
                             for h, c in zip(head[1:], r[1:])) + "</tr>")
    out.append("</tbody></table></div>")
    if not body:
        out.append('<p class="myc-types-note">No typed span.</p>')
    for line in (_left_out_line(table), table.note):
        if line:
            out.append(f'<p class="myc-types-note">{escape(line)}</p>')
    return "".join(out)
