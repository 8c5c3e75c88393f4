"""The detectors of the central table, on each language's test items: the real systems
(every file, leaderboard rows and variants), the annotators scored as detectors, and
the baselines — one row per (detector, item) with its spans and its Cor vector.

Annotators: every annotator who labelled at least `MIN_COVERAGE` of the language's test
items, scored on the items they labelled. EN and ZH spread 9-12 and 5-7 labels per item
over 95 and 53 people (none labels more than a third of the items), so there the
detectors are the first three annotator *slots* (the first, second and third annotator
listed on each item), which cover every item as three people per item do elsewhere.
Baselines: mark-all, mark-none, the mid-rank token-logit baseline and the token
classifier (`validation.token_study`), spans at their validation-tuned thresholds and
soft labels from their character scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import real_systems, scoring
from .flat import Flat, concat

MIN_COVERAGE = 0.9
SLOTS = 3
SLOT_LANGUAGES = ("EN", "ZH")
BASELINES = ("mark_all", "mark_none", "token_logit_midrank", "token_classifier")


@dataclass(frozen=True)
class Panel:
    """``rows``: ``detector, kind, lang, item`` per scored row; ``pred`` their spans;
    ``soft[float_parse]`` their Cor vectors; ``detectors`` one row per detector."""

    rows: pd.DataFrame
    pred: Flat
    soft: dict
    detectors: pd.DataFrame


def build(items: pd.DataFrame, ann, systems: real_systems.Systems, baselines: dict,
          baseline_soft: dict) -> Panel:
    """Every detector on the test items (``baselines``: name -> `Flat` over items)."""
    test = items["split"].to_numpy() == "test"
    lengths = items["text_len"].to_numpy()
    parts = [_systems(systems, lengths), _annotators(items, ann, test, lengths),
             _baselines(items, test, lengths, baselines, baseline_soft)]
    rows = pd.concat([p[0] for p in parts], ignore_index=True)
    pred = concat([p[1] for p in parts])
    soft = {fp: [v for p in parts for v in p[2][fp]] for fp in real_systems.FLOAT_PARSE}
    det = pd.concat([p[3] for p in parts], ignore_index=True)
    return Panel(rows, pred, soft, det)


def _systems(s: real_systems.Systems, lengths):
    t = s.table
    rows = pd.DataFrame({"detector": t["system"].to_numpy()[s.rows["system"]],
                         "kind": "system", "lang": t["lang"].to_numpy()[s.rows["system"]],
                         "item": s.rows["item"].to_numpy()})
    n = lengths[rows["item"].to_numpy()]
    soft = {fp: real_systems.soft_vectors(s.soft[fp], n) for fp in real_systems.FLOAT_PARSE}
    det = t[["system", "lang", "team", "role", "file"]].rename(columns={"system": "detector"})
    det.insert(1, "kind", "system")
    return rows, s.hard, soft, det


def chosen_annotators(items: pd.DataFrame, ann) -> pd.DataFrame:
    """Annotation rows (of ``ann.table``) used as annotator detectors, and their name."""
    t = ann.table
    test = items["split"].to_numpy()[t["item"].to_numpy()] == "test"
    n_test = items[items["split"] == "test"].groupby("lang").size()
    sel = t[test].copy()
    sel["row"] = np.flatnonzero(test)
    cover = sel.groupby(["lang", "annotator"])["item"].transform("size") / sel["lang"].map(
        n_test)
    person = ~sel["lang"].isin(SLOT_LANGUAGES) & (cover >= MIN_COVERAGE)
    slot = sel["lang"].isin(SLOT_LANGUAGES) & (sel["slot"] < SLOTS)
    out = sel[person | slot].copy()
    out["detector"] = np.where(out["lang"].isin(SLOT_LANGUAGES),
                               "annotator slot " + (out["slot"] + 1).astype(str),
                               "annotator " + out["annotator"].map(short_annotator))
    return out


def short_annotator(annotator: str) -> str:
    """``annotator_ab370c058d36e761`` -> ``ab370c05`` (unique within each language)."""
    return str(annotator).removeprefix("annotator_")[:8]


def _annotators(items, ann, test, lengths):
    sel = chosen_annotators(items, ann)
    rows = sel[["detector", "lang", "item"]].assign(kind="annotator")[
        ["detector", "kind", "lang", "item"]].reset_index(drop=True)
    pred = ann.clean.take(sel["row"].to_numpy())
    vecs = scoring.binary_vectors(pred, lengths[sel["item"].to_numpy()])
    det = (rows.drop_duplicates(["lang", "detector"])[["detector", "kind", "lang"]]
           .assign(team="annotators", role="annotator", file=""))
    return rows, pred, {fp: vecs for fp in real_systems.FLOAT_PARSE}, det


def _baselines(items, test, lengths, baselines: dict, baseline_soft: dict):
    idx = np.flatnonzero(test)
    rows, preds, vecs, det = [], [], [], []
    lang = items["lang"].to_numpy()
    for name in BASELINES:
        flat = baselines[name].take(idx)
        rows.append(pd.DataFrame({"detector": name, "kind": "baseline", "lang": lang[idx],
                                  "item": idx}))
        preds.append(flat)
        if name in baseline_soft:
            vecs += [baseline_soft[name][i] for i in idx.tolist()]
        else:
            vecs += scoring.binary_vectors(flat, lengths[idx])
    for lg in sorted(set(lang[idx])):
        for name in BASELINES:
            det.append({"detector": name, "kind": "baseline", "lang": lg,
                        "team": "baseline", "role": "baseline", "file": ""})
    return (pd.concat(rows, ignore_index=True), concat(preds),
            {fp: vecs for fp in real_systems.FLOAT_PARSE}, pd.DataFrame(det))
