"""The HTML report of one SHROOM-Visions result (`mycelium.protocols.shroom_visions`): the
kit's numbers, the per-label breakdown (`VisionsResult.per_label`) beside the Cor of the
same items, and the items where Cor+Lbl falls furthest below Cor.

Cor+Lbl is the mean, over the items, of each item's mean over its label union of Cor
restricted to one label. A label's row therefore says how that label pulls Cor+Lbl away
from Cor: its ``Cor`` (restricted to the label) against ``Cor, all labels`` (the
unrestricted Cor of the same items). One file, inline CSS, no scripts.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

import numpy as np

from .render import page
from .types import TYPES_CSS

if TYPE_CHECKING:
    import pandas as pd

    from ..protocols.shroom_visions import VisionsResult

__all__ = ["visions_report", "label_rows", "MAX_ITEMS_SHOWN"]

#: Items listed in "where Cor+Lbl falls below Cor" (the largest gaps first).
MAX_ITEMS_SHOWN = 20

CSS = """
h1{font:600 22px system-ui,sans-serif;margin:.2em 0}
h2{font:600 17px system-ui,sans-serif;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}
body{font:14px system-ui,sans-serif;color:#111}
code.sig{display:block;white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;
padding:.5em;font-size:12px}
.note{color:#8a5a00;font-size:13px}
pre.kit{background:#f4f4f4;padding:.5em;font-size:13px;overflow-x:auto}
"""


def label_rows(result: VisionsResult) -> pd.DataFrame:
    """`VisionsResult.per_label` with, per label, the unrestricted Cor of the same items
    (``Cor all labels``) and the gap ``Cor - Cor all labels``: where the label pulls
    Cor+Lbl below (negative) or above Cor.

    Examples
    --------
    >>> from mycelium.protocols.shroom_visions import score_records
    >>> gold = [{"id": "a", "response": "Two red buses.", "labels": [
    ...     {"start": 0, "end": 3, "prob": 1.0, "label": "miscounting"},
    ...     {"start": 4, "end": 7, "prob": 0.5, "label": "mischaracterization"}]}]
    >>> pred = [{"id": "a", "labels": [
    ...     {"start": 0, "end": 3, "prob": 0.8, "label": "miscounting"}]}]
    >>> label_rows(score_records(gold, pred))[["label", "Cor", "Cor all labels", "gap"]]
                     label  Cor  Cor all labels       gap
    0  mischaracterization  0.0        0.797724 -0.797724
    1          miscounting  1.0        0.797724  0.202276
    """
    frame = result.per_label()
    s = result.scores
    same = []
    for name in frame["label"]:
        at = s.pair_label == result.label_names.index(name)
        same.append(float(np.mean(result.cor[s.pair_item[at]])))
    frame.insert(2, "Cor all labels", same)
    frame.insert(3, "gap", frame["Cor"] - frame["Cor all labels"])
    return frame


def _n(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.8f}"


def _gap(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:+.8f}"


def _table(head: list[str], body: list[list[str]]) -> str:
    out = ['<div class="myc-scroll"><table class="myc-types"><thead><tr>']
    out += [f"<th>{escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in body:
        out.append(f"<tr><td>{escape(row[0])}</td>" + "".join(
            f'<td data-k="{escape(h)}">{escape(c)}</td>' for h, c in zip(head[1:], row[1:]))
            + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _labels_section(rows: pd.DataFrame) -> str:
    head = ["label", "Cor", "Cor, all labels", "difference", "IoU", "items",
            "spans", "predicted spans"]
    body = [[str(r["label"]), _n(r["Cor"]), _n(r["Cor all labels"]), _gap(r["gap"]),
             _n(r["IoU"]), f"{int(r['items']):,}", f"{int(r['spans']):,}",
             f"{int(r['pred_spans']):,}"] for _, r in rows.iterrows()]
    said = ('<p class="note">Per label, over the items whose label union (gold or '
            "predicted) holds it: Cor and IoU restricted to the label (the terms Cor+Lbl "
            "averages), the unrestricted Cor of the same items, and the difference. A "
            "label only one side uses, or a span placed well but typed wrongly, scores 0.0 "
            "there (the constant rule), which is where Cor+Lbl falls below Cor.</p>")
    if not body:
        return said + '<p class="note">No item has a label on either side.</p>'
    return said + _table(head, body)


def _items_section(result: VisionsResult) -> str:
    gap = result.cor - result.cor_lbl
    n = int(gap.size)
    differ = int(np.count_nonzero(result.cor_lbl != result.cor))
    lower = int(np.count_nonzero(result.cor_lbl < result.cor))
    order = np.argsort(-gap, kind="stable")[:MAX_ITEMS_SHOWN]
    order = order[gap[order] > 0]
    s = result.scores
    names = []
    for k in order.tolist():
        codes = s.pair_label[s.pair_item == k]
        names.append(", ".join(result.label_names[c] for c in codes.tolist()))
    head = ["id", "Cor", "Cor+Lbl", "Cor \u2212 Cor+Lbl", "labels (either side)"]
    body = [[str(result.ids[k]), _n(result.cor[k]), _n(result.cor_lbl[k]), _gap(gap[k]),
             label] for k, label in zip(order.tolist(), names)]
    said = (f"<p>Cor+Lbl differs from Cor on {differ:,} of {n:,} items, and is lower on "
            f"{lower:,}. " + (f"The {len(body)} items with the largest drop"
                              + (f" (at most {MAX_ITEMS_SHOWN})" if len(body) ==
                                 MAX_ITEMS_SHOWN else "") + ":</p>" if body else "</p>"))
    return said + (_table(head, body) if body else "")


def visions_report(result: VisionsResult, *, title: str = "SHROOM-Visions") -> str:
    """A self-contained HTML page of a SHROOM-Visions result: the kit's lines, the
    signature, the per-label breakdown (Cor, IoU, items and spans per label, beside the
    Cor of the same items) and the items where Cor+Lbl falls furthest below Cor.

    Parameters
    ----------
    result : VisionsResult
        What `mycelium.protocols.shroom_visions.score_files` returned.
    title : str
        The page's title.

    Returns
    -------
    str
        The page (``mycelium shroom-visions REF PRED OUT --html FILE`` writes it).

    Examples
    --------
    >>> from mycelium.protocols.shroom_visions import score_records
    >>> gold = [{"id": "a", "response": "Two red buses.", "labels": [
    ...     {"start": 0, "end": 3, "prob": 1.0, "label": "miscounting"}]}]
    >>> pred = [{"id": "a", "labels": [
    ...     {"start": 0, "end": 3, "prob": 0.8, "label": "OCR"}]}]
    >>> html = visions_report(score_records(gold, pred))
    >>> "<td>miscounting</td>" in html and "Cor lbl: 0.00000000" in html
    True
    """
    rows = label_rows(result)
    body = (f"<h1>{escape(title)}</h1>"
            f'<section id="scores"><h2>The kit\'s numbers</h2><pre class="kit">'
            f"{escape(result.printed)}</pre><p>{len(result.ids):,} items.</p>"
            f'<code class="sig">{escape(result.signature)}</code></section>'
            f'<section id="labels"><h2>Per label</h2>{_labels_section(rows)}</section>'
            f'<section id="items"><h2>Where Cor+Lbl falls below Cor</h2>'
            f"{_items_section(result)}</section>")
    return page(title, body, css=CSS + TYPES_CSS)
