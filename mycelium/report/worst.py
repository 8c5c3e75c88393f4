"""The report's example sections: each detector's worst examples per group (titled by
their id, ties broken by the characters marked on either side), and the examples that
drive the largest disagreement between two detectors (`mycelium.explain`).
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

import numpy as np
import pandas as pd

from .explain import explain
from .frame import frame_view
from .render import view_html
from .view import show

__all__ = ["example_views", "disagreement"]


def _sample(frame: pd.DataFrame, options) -> tuple[pd.DataFrame, str]:
    if len(frame) <= options.max_view_rows:
        return frame, ""
    rng = np.random.default_rng(options.seed)
    rows = np.sort(rng.choice(len(frame), options.max_view_rows, replace=False))
    note = (f'<p class="note">The report has {len(frame):,} rows: the example views are '
            f"drawn from a random sample of {options.max_view_rows:,} of them (seed "
            f"{options.seed}); the tables and figures use every row.</p>")
    return frame.iloc[rows], note


def _titled(part: pd.DataFrame, example_col: str | None, name: str) -> tuple[pd.DataFrame,
                                                                           str | None]:
    """``part`` with the id column under the name shown in titles (when it is free)."""
    if example_col is None:
        return part, None
    if name != example_col and name in part.columns:
        return part, example_col
    return part.rename(columns={example_col: name}), name


def example_views(frame: pd.DataFrame, cols: dict, detector_col: str, options, by: list[str],
                  example_col: str | None = None, example_name: str = "id", bar=None) -> str:
    """Each detector's ``options.examples`` worst examples in each group of ``by`` (from a
    seeded sample when the frame is large), each collapsible, titled by its id."""
    if cols.get("text") is None:
        return '<p class="note">No text column: the example views need the texts.</p>'
    frame, note = _sample(frame, options)
    out = [note]
    per = f"{options.examples} per group of {', '.join(by)}" if by else \
        f"{options.examples} in all"
    for detector, part in frame.groupby(detector_col, sort=True, dropna=False):
        part, id_col = _titled(part, example_col, example_name)
        view = frame_view(part, cols["ref"], cols["pred"], text=cols["text"],
                          sort_by=options.sort_by, n=options.examples, by=by or None,
                          labels=[str(detector)], profile=options.profile, id_col=id_col,
                          context=cols.get("context"),
                          type_field=getattr(options, "type_field", None) or "label_type")
        out.append(f'<details class="myc-worst" open><summary><b>{escape(str(detector))}'
                   f"</b>: lowest {escape(options.sort_by)} first, {escape(per)}; ties: the "
                   "most characters marked on either side first</summary>"
                   + view_html(replace(view, note="")) + "</details>")
        if bar is not None:
            bar.update(1)
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


def _explained_table(out, keys, a: str, b: str, example_name: str) -> str:
    table = [f'<div class="myc-scroll"><table class="myc-results"><thead><tr>'
             f"<th>{escape(example_name)}</th><th>contribution</th><th>iou {escape(a)}</th>"
             f"<th>iou {escape(b)}</th></tr></thead><tbody>"]
    for _, r in out.iterrows():
        table.append(f"<tr><td>{escape(str(keys[int(r['example'])]))}</td>"
                     f"<td>{r['contribution']:+.4f}</td><td>{r['value_a']:.3f}</td>"
                     f"<td>{r['value_b']:.3f}</td></tr>")
    table.append("</tbody></table></div>")
    return "".join(table)


def disagreement(frame, overall, cols: dict, detector_col: str, example_col: str | None,
                 options, example_name: str = "id") -> str:
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
    keys = rows_a[example_col].to_numpy()
    table = _explained_table(out, keys, str(a), str(b), example_name)
    if texts is None:
        return head + table
    pick = out["example"].to_numpy()
    refs, pa_, pb_ = (rows[c].to_numpy() for rows, c in
                      ((rows_a, cols["ref"]), (rows_a, cols["pred"]), (rows_b, cols["pred"])))
    context = None if cols.get("context") is None else \
        [None if pd.isna(v) else str(v) for v in rows_a[cols["context"]].to_numpy()[pick]]
    shown = show([texts[i] for i in pick], [refs[i] for i in pick],
                 {str(a): [pa_[i] for i in pick], str(b): [pb_[i] for i in pick]},
                 context=context,
                 type_field=getattr(options, "type_field", None) or "label_type")
    titled = [replace(ex, title=f"{example_name} {keys[i]} · contribution {c:+.4f}")
              for ex, i, c in zip(shown.examples, pick, out["contribution"])]
    return head + table + view_html(replace(shown, examples=titled))
