"""Parts 7-10: the real system outputs. Called by `validation.run.study` after parts 1-6.

- part 7, baselines: the token-logit tie and whitespace conventions, the token
  classifier (`validation.token_study`);
- part 8, the central table: every detector under every convention
  (`validation.panel`, `validation.conventions`, `validation.ranking`);
- part 9, humans and systems on the same LOO references, with the two-way bootstrap
  (`validation.loo_systems`, `validation.twoway`, `validation.humans`);
- part 10, provenance done properly (`validation.provenance_tests`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import (conventions, data, humans, loo_systems, panel, provenance_tests, ranking,
               real_systems, scoring, systems, token_baselines, token_study)
from .flat import Flat
from .twoway import TwoWay
from .uncertainty import Resampler


def baselines(items, train, rs: Resampler, clock) -> dict:
    """Part 7: token scores, the classifier (fitted on ``train``, the validation items of
    every language, whichever languages are run), thresholds, test spans and tables."""
    toks = token_baselines.tokens(items)
    train_toks = _subset(toks, items, train) or token_baselines.tokens(train)
    model, model_table = token_study.fit_classifier(train, train_toks)
    scores = token_study.score_sets(items, toks, model)
    tuned = token_study.thresholds(train, train_toks,
                                   token_study.score_sets(train, train_toks, model),
                                   items["lang"].unique())
    test = np.flatnonzero(items["split"].to_numpy() == "test")
    per = token_study.per_example(items, toks, scores, tuned, test)
    per_u = token_study.per_example(items, toks, {"token_logit_minmax":
                                                  scores["token_logit_minmax"]},
                                    tuned, test, offsets="untrimmed")
    spans = token_study.spans(items, toks, scores, tuned)
    base = systems.predictors(items, Flat(len(items), *(np.empty(0, np.int64),) * 3))
    mark_all_iou = _iou_per_item(items, base["mark_all"])
    clock("part 7: token baselines (tie and whitespace conventions, classifier)")
    return {"tokens": toks, "spans": {"mark_all": base["mark_all"],
                                      "mark_none": base["mark_none"], **spans},
            "soft": token_study.soft_vectors(items, toks, {k: scores[k] for k in
                                                          panel.BASELINES if k in scores}),
            "tables": {
                "token_logit_conventions": token_study.conventions_table(
                    items, toks, per, per_u, mark_all_iou, tuned, rs),
                "token_classifier": token_study.classifier_table(per, mark_all_iou, tuned, rs),
                "token_classifier_model": model_table,
                "token_thresholds": tuned}}


def _subset(toks, items, train):
    """``toks`` of the ``train`` items when every one of them is in ``items``, else None."""
    index = {i: k for k, i in enumerate(items["id"].tolist())}
    pos = [index.get(i) for i in train["id"].tolist()]
    if any(k is None for k in pos):
        return None
    return token_baselines.Tokens(**{f: [getattr(toks, f)[k] for k in pos]
                                     for f in token_baselines.Tokens.__dataclass_fields__})


def _iou_per_item(items, pred: Flat) -> np.ndarray:
    hard = Flat.from_arrow(_arrow(items["hard_labels"]))
    df = scoring.frame(hard, pred, items["model_output_text"].to_numpy(dtype=object),
                       np.zeros(len(items)))
    return df.mycelium.score("ref", "pred", text="text", profile=scoring.PROFILE,
                             metrics=["iou"])["iou_score"].to_numpy()


def _arrow(series):
    import pyarrow as pa

    arr = pa.array(series)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def run(root: Path, sys_root: Path, items, ann, hard: Flat, part1: dict, per: dict,
        rs: Resampler, clock) -> dict:
    """Every table of parts 7-10."""
    s = real_systems.load(sys_root, items)
    clock(f"loaded {len(s.table)} real system files")
    every = data.load(root)
    b = baselines(items, every[every["split"] == "val"].reset_index(drop=True), rs, clock)
    p = panel.build(items, ann, s, b["spans"], b["soft"])
    lengths = items["text_len"].to_numpy()
    ref_soft = {fp: scoring.CorVectors(_ref_vectors(root, items, fp, lengths))
                for fp in real_systems.FLOAT_PARSE}
    pred_soft = {fp: scoring.CorVectors(p.soft[fp]) for fp in real_systems.FLOAT_PARSE}
    scored = conventions.score_rows(p.rows, p.pred, hard,
                                    items["model_output_text"].tolist(),
                                    {"trimmed": b["tokens"].trimmed,
                                     "untrimmed": b["tokens"].untrimmed},
                                    ref_soft, pred_soft)
    effects, conv_scores, noise = ranking.central(scored, p.detectors, items)
    clock("part 8: the central table (every detector under every convention)")
    out = dict(b["tables"])
    out["systems"] = _systems_table(s, conv_scores)
    out["convention_effects"] = effects
    out["winner_noise_floor"] = noise
    out["convention_scores"] = conv_scores
    loo_ref, loo_vecs = part1["_loo"]
    t = ann.table
    tw = TwoWay(rs, t["lang"].to_numpy(), t["annotator"].to_numpy())
    long = loo_systems.score(items, ann, loo_ref, loo_vecs, p, pred_soft["pandas-fast"],
                             per["vs_loo"])
    out["systems_vs_loo"] = loo_systems.summary(long, p.detectors, conv_scores, rs, tw)
    out["humans_vs_systems"] = loo_systems.tests(long, p.detectors, rs, tw)
    out.update(humans.tables(items, ann, per, rs, tw))
    clock("part 9: humans and systems on the same references, two-way bootstrap")
    out.update(provenance_tests.tables(items, per, scored, p.detectors, rs))
    clock("part 10: provenance (permutation tests, systems by generating model)")
    return out


def _ref_vectors(root, items, fp, lengths) -> list[np.ndarray]:
    soft = real_systems.reference_soft(root, items, fp)
    return [np.zeros(0) if x is None else v
            for x, v in zip(soft, real_systems.soft_vectors([x or [] for x in soft],
                                                            lengths))]


def _systems_table(s, conv_scores: pd.DataFrame) -> pd.DataFrame:
    """Every system file with the official scorer's numbers and the study's."""
    t = s.table.copy()
    mine = conv_scores.set_index(["lang", "detector"])
    key = list(zip(t["lang"], t["system"]))
    t["study_iou"] = [mine.loc[k, "iou"] for k in key]
    t["study_cor_pandas_fast"] = [mine.loc[k, "cor"] for k in key]
    t["study_cor_exact"] = [mine.loc[k, "cor_exact"] for k in key]
    # The official scorer prints %.8f: compare the study's values rounded the same way.
    t["iou_matches_official"] = np.isclose(t["study_iou"].round(8), t["official_iou"],
                                           rtol=0, atol=1e-12)
    t["cor_matches_official"] = np.isclose(t["study_cor_pandas_fast"].round(8),
                                           t["official_cor"], rtol=0, atol=1e-12)
    t["cor_exact_minus_official"] = t["study_cor_exact"] - t["study_cor_pandas_fast"]
    return t.drop(columns=["cor_json_manifest"])
