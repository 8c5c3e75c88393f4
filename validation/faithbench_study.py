"""FaithBench: its 8 detectors under each gold rule, and per type of hallucination.

FaithBench's detector table (`mycelium.protocols.faithbench.detector_table`) ranks 8
detectors by balanced accuracy against a response-level gold label that a **gold rule**
builds from the annotators' typed spans. Each choice of the rule enters here as one
change from the paper's rule (`RULES`), named by what it is:

- provenance: the public release's files instead of the authors' exports;
- annotator selection: every annotator instead of the paper's per-batch selection, and
  no "Consistent" padded for an absent annotator;
- pooling: best instead of worst;
- typology: Benign counted as hallucinated instead of consistent;
- metric: macro F1 instead of balanced accuracy.

For each change: Kendall's tau-b between the two rankings, whether the winner changes,
and that change's noise floor (`validation.ranking.noise_floor`: how often item
resampling alone flips the pair). **Per type** (`TYPES`): each detector's balanced
accuracy on the items whose pooled class is that type against the consistent items
(worst pooling, the paper's rule otherwise), and tau between the types' rankings.

Uncertainty: `validation.ranking.CENTRAL_RESAMPLES` resamples of the library's Poisson
bootstrap keyed by the item (batch and in-batch id, which the two sources share), so a
change compares the two rules on the same resampled items. Every statistic is a
weighted sum of per-item indicators (one matrix product per rule). Annotators never
appear: the protocol module reads them as pseudonymous ids and the tables hold none.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from mycelium.protocols import faithbench as fb
from mycelium.stats.bootstrap import percentile_interval

from .ranking import floor_table, item_weights, noise_floor, ranks
from .uncertainty import LEVEL, tau_b

ENV_VAR = "MYCELIUM_FAITHBENCH_DIR"
OFFICIAL = "paper"
#: name: (family, label, GoldRule fields changed from the paper's, measure).
RULES = {
    "paper": ("official", "paper's rule (balanced accuracy, worst pooling)", {}, "ba"),
    "release": ("provenance", "public release files", {"source": "release"}, "ba"),
    "all_annotators": ("annotator selection", "every annotator kept",
                       {"annotators": "all"}, "ba"),
    "no_padding": ("annotator selection", "absent annotators not counted as consistent",
                   {"pad": "none"}, "ba"),
    "best": ("pooling", "best pooling", {"pooling": "best"}, "ba"),
    "benign_hallucinated": ("typology", "Benign counted as hallucinated",
                            {"hallucinated": ("Unwanted", "Questionable", "Benign")}, "ba"),
    "f1_macro": ("metric", "macro F1", {}, "f1"),
}
#: The pooled classes ranked one at a time against the consistent items.
TYPES = ("Unwanted", "Questionable", "Benign")


def data_dir(path: str | None = None) -> Path | None:
    """The FaithBench folder: ``path``, else ``$MYCELIUM_FAITHBENCH_DIR``, else None."""
    value = path or os.environ.get(ENV_VAR)
    return Path(value) if value else None


def _keys(items: pd.DataFrame) -> list[str]:
    return [f"{b}-{s}" for b, s in zip(items["batch"], items["sample_id"])]


def _weighted(w: np.ndarray, gold: np.ndarray, pred: np.ndarray, measure: str
              ) -> tuple[np.ndarray, np.ndarray]:
    """Full-data (D,) and resampled (R, D) balanced accuracy or macro F1 of 0/1
    predictions ``pred`` (items x detectors) against ``gold``, each item weighted.

    Balanced accuracy: the mean over the classes present (total weight > 0) of
    ``sum w [pred = gold = c] / sum w [gold = c]``; macro F1: the mean over the classes
    present on either side of ``2 sum w [pred = gold = c] / (sum w [pred = c] + sum w
    [gold = c])``, as `mycelium.protocols.faithbench` (scikit-learn's definitions).
    """
    full = np.ones((1, gold.size))
    out = []
    for weights in (full, w):
        parts, present = [], []
        for c in (0, 1):
            hit = weights @ ((pred == c) & (gold == c)[:, None]).astype(np.float64)
            g = weights @ (gold == c).astype(np.float64)
            if measure == "ba":
                with np.errstate(invalid="ignore", divide="ignore"):
                    parts.append(hit / g[:, None])
                present.append(np.broadcast_to((g > 0)[:, None], hit.shape))
            else:
                p = weights @ (pred == c).astype(np.float64)
                den = p + g[:, None]
                with np.errstate(invalid="ignore", divide="ignore"):
                    parts.append(np.where(den > 0, 2 * hit / den, 0.0))
                present.append(den > 0)
        num = sum(np.where(ok, v, 0.0) for v, ok in zip(parts, present))
        k = sum(ok.astype(np.float64) for ok in present)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(num / k)
    return out[0][0], out[1]


def rule_values(folder: Path) -> tuple[dict, dict]:
    """Per rule: ``(full (D,), resampled (R, D))`` values of the detectors; and per rule
    its gold frame (for the scores table)."""
    values, golds = {}, {}
    for name, (_, _, fields, measure) in RULES.items():
        rule = replace(fb.GoldRule(), **fields)
        items = fb.gold_labels(folder, rule)
        pred = np.column_stack([fb.predictions(items, d, rule) for d in fb.DETECTORS])
        w = item_weights(_keys(items))
        values[name] = _weighted(w, items["gold"].to_numpy(), pred, measure)
        golds[name] = items
    return values, golds


def type_values(folder: Path) -> dict:
    """Per type: balanced accuracy on the items pooled as that type (hallucinated) and
    the consistent items, under the paper's rule otherwise."""
    rule = fb.GoldRule()
    items = fb.gold_labels(folder, rule)
    out = {}
    for t in TYPES:
        sub = items[items["pooled"].isin([t, "Consistent"])].reset_index(drop=True)
        sub["gold"] = (sub["pooled"] == "Consistent").astype(np.int64)
        pred = np.column_stack([fb.predictions(sub, d, rule) for d in fb.DETECTORS])
        out[t] = (_weighted(item_weights(_keys(sub)), sub["gold"].to_numpy(), pred, "ba"),
                  len(sub))
    return out


def _pair(name_a: str, name_b: str, va, vb) -> tuple[dict, dict | None]:
    (ea, sa), (eb, sb) = va, vb
    names = list(fb.DETECTORS)
    tau = float(tau_b(ea[None, :], eb[None, :])[0])
    lo, hi = percentile_interval(tau_b(sa, sb), LEVEL, tau)
    a, b = int(np.argmax(ea)), int(np.argmax(eb))
    changed = bool(eb[a] < eb.max())
    row = {"from": name_a, "to": name_b, "tau": tau, "tau_low": lo, "tau_high": hi,
           "winner_from": names[a], "winner_to": names[b],
           "winner_changes": int(changed),
           "max_rank_move": float(np.abs(ranks(ea) - ranks(eb)).max())}
    floor = None
    if changed:
        floor = {"from": name_a, "to": name_b, "winner_from": names[a],
                 "winner_to": names[b], "gap_from": float(ea[a] - ea[b]),
                 "gap_to": float(eb[b] - eb[a])} | noise_floor(sa, sb, a, b)
    return row, floor


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    """``faithbench_scores`` (every detector under every rule, with intervals),
    ``faithbench_rules`` (each change from the paper's rule), ``faithbench_types`` (tau
    between the per-type rankings) and ``faithbench_noise_floor`` (each change of
    winner against item resampling alone)."""
    values, golds = rule_values(folder)
    scores = []
    for name, (family, label, _, measure) in RULES.items():
        est, star = values[name]
        for k, d in enumerate(fb.DETECTORS):
            lo, hi = percentile_interval(star[:, k], LEVEL, float(est[k]))
            scores.append({"rule": name, "family": family, "label": label,
                           "measure": "balanced accuracy" if measure == "ba" else "macro F1",
                           "items": len(golds[name]), "detector": d, "value": float(est[k]),
                           "low": lo, "high": hi, "rank": float(ranks(est)[0][k])})
    rows, floor = [], []
    for name, (family, label, _, _) in RULES.items():
        if name == OFFICIAL:
            continue
        row, fl = _pair(OFFICIAL, name, values[OFFICIAL], values[name])
        rows.append({"family": family, "change": f"paper's rule -> {label}"} | row)
        if fl is not None:
            floor.append({"family": family, "detectors": "faithbench"} | fl)
    types = type_values(folder)
    type_rows = []
    for i, a in enumerate(TYPES):
        for b in TYPES[i + 1:]:
            row, fl = _pair(a, b, types[a][0], types[b][0])
            type_rows.append({"items_from": types[a][1], "items_to": types[b][1]} | row)
            if fl is not None:
                floor.append({"family": "type", "detectors": "faithbench"} | fl)
    for t in TYPES:
        est, star = types[t][0]
        for k, d in enumerate(fb.DETECTORS):
            lo, hi = percentile_interval(star[:, k], LEVEL, float(est[k]))
            scores.append({"rule": f"type:{t}", "family": "type",
                           "label": f"{t} against consistent items",
                           "measure": "balanced accuracy", "items": types[t][1],
                           "detector": d, "value": float(est[k]), "low": lo, "high": hi,
                           "rank": float(ranks(est)[0][k])})
    return {"faithbench_scores": pd.DataFrame(scores),
            "faithbench_rules": pd.DataFrame(rows),
            "faithbench_types": pd.DataFrame(type_rows),
            "faithbench_noise_floor": floor_table(floor)}
