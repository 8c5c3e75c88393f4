"""Parts 7-10 against independent paths: the system files against the official scorer's
printed numbers and mycelium's drop-in scorer, every convention against direct
`mycelium.evaluate` calls on the raw records, the leave-one-out scores of a system against
a brute-force vote, and the two-way weights' invariants."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import mycelium
from mycelium.protocols.mushroom import score_files

from _study import LANGUAGES, loo_majority
from validation.conventions import CHANGES

NEW_TABLES = ("systems", "convention_effects", "convention_scores", "winner_noise_floor",
              "systems_vs_loo",
              "humans_vs_systems", "annotators_two_way", "annotator_spread",
              "language_weighting", "provenance_tests", "provenance_systems",
              "token_logit_conventions", "token_classifier", "token_classifier_model",
              "token_thresholds")


def csv(out, name):
    return pd.read_csv(out / f"{name}.csv", keep_default_na=False, na_values=[""])


def close(a, b, tol=1e-12):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def records(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def tables(study, systems_dir):
    _, out = study
    return {name: csv(out, name) for name in NEW_TABLES}


def test_every_part_is_written_for_every_language(tables):
    for name in NEW_TABLES:
        assert len(tables[name]) > 0, name
    eff = tables["convention_effects"]
    assert set(eff["lang"]) == set(LANGUAGES) | {"MEAN"}
    # every change, for both detector sets, in every language and the mean
    assert len(eff) == (len(LANGUAGES) + 1) * len(CHANGES) * 2


def test_system_files_reproduce_the_official_scorer(tables, systems_dir):
    s = tables["systems"]
    assert set(s["lang"]) == set(LANGUAGES)
    official = pd.read_csv(systems_dir / "OFFICIAL.csv")
    official["lang"] = official["lang"].str.upper()
    assert len(s) == int(official["lang"].isin(LANGUAGES).sum())   # every file, both folders
    assert s["iou_matches_official"].all() and s["cor_matches_official"].all()
    # Python-json parsing: the folder's own record of it (MANIFEST.csv), NCL-UoR moved
    man = pd.read_csv(systems_dir / "MANIFEST.csv").set_index("file")
    lb = s[s["role"] != "variant"].set_index("file")
    assert np.allclose(lb["study_cor_exact"].round(8),
                       man.loc[lb.index, "cor_mine_python_json"], atol=1e-12)
    moved = s.loc[s["cor_exact_minus_official"].abs() > 0, "team"]
    assert set(moved) == {"NCL-UoR"}


def test_both_parsings_equal_the_drop_in_scorer(tables, systems_dir, mushroom_dir):
    """`score_files` (mycelium.protocols.mushroom) under each float rule: the study's Cor
    under that rule, and its IoU (files the drop-in rejects for [-1, -1] spans left out)."""
    s = tables["systems"]
    sample = s[s["unlocated_hard_dropped"] == 0]
    sample = pd.concat([sample[sample["team"] == "NCL-UoR"].head(3), sample.head(3)])
    for r in sample.itertuples():
        ref = next(mushroom_dir.rglob(f"mushroom.{r.lang.lower()}-tst.v1*.jsonl"))
        for rule, col in (("pandas-fast", "study_cor_pandas_fast"), ("exact", "study_cor_exact")):
            got = score_files(ref, systems_dir / r.file, float_parse=rule)
            assert close(got.iou_mean, r.study_iou), r.file
            assert close(got.cor_mean, getattr(r, col)), (r.file, rule)


def test_unlocated_spans_are_dropped_and_counted(tables, systems_dir):
    s = tables["systems"].set_index("file")
    row = s.loc["variants/MSA/en.02.jsonl"]
    recs = records(systems_dir / "variants/MSA/en.02.jsonl")
    assert row["unlocated_hard_dropped"] == sum(
        [int(a), int(b)] == [-1, -1] for r in recs for a, b in r["hard_labels"])
    assert row["unlocated_hard_dropped"] > 0 and row["iou_matches_official"]


def _system_records(systems_dir, file):
    out = []
    for r in records(systems_dir / file):
        out.append([[a, b] for a, b in r["hard_labels"] if [a, b] != [-1, -1]])
    return out


def test_conventions_equal_direct_evaluate(tables, systems_dir, mushroom_dir):
    scores = tables["convention_scores"].set_index(["lang", "detector"])
    s = tables["systems"]
    ref_path = next(mushroom_dir.rglob("mushroom.fi-tst.v1*.jsonl"))
    refs = {r["id"]: r for r in records(ref_path)}
    for file in s.loc[s["lang"] == "FI", "file"].head(3):
        recs = records(systems_dir / file)
        ids = [r["id"] for r in recs]
        gold = [refs[i]["hard_labels"] for i in ids]
        text = [refs[i]["model_output_text"] for i in ids]
        pred = [[[a, b] for a, b in r["hard_labels"] if [a, b] != [-1, -1]] for r in recs]
        row = scores.loc[("FI", s.set_index("file").loc[file, "system"])]
        macro = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom")
        assert close(row["iou"], macro["iou"]["score"])
        assert close(row["char_f1"], macro["character"]["f1"])
        assert close(row["exact_f1"], macro["exact_span"]["f1"])
        assert close(row["deteval_f1"], macro["deteval_1d"]["f1"])
        assert close(row["cleval_f1"], macro["cleval_1d"]["f1"])
        assert close(row["spancov_f1"], macro["span_coverage"]["f1"])
        micro = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom", average="micro",
                                  metrics=["iou"])
        assert close(row["iou_micro"], micro["iou"]["score"])
        rag = mycelium.evaluate(gold, pred, text=text, profile="ragtruth", metrics=["character"])
        assert close(row["ragtruth"], rag["character"]["f1"])
        word = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom", metrics=["iou"],
                                 granularity="word")
        assert close(row["iou_word"], word["iou"]["score"])
        sentence = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom",
                                     metrics=["iou"], granularity="sentence")
        assert close(row["iou_sentence"], sentence["iou"]["score"])
        response = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom",
                                     metrics=["response_level"])
        assert close(row["response_f1"], response["response_level"]["f1"])
        import warnings

        from sklearn.metrics import balanced_accuracy_score
        flagged = ([bool(g) for g in gold], [bool(p) for p in pred])
        with warnings.catch_warnings():  # one class only: scikit-learn warns, then averages
            warnings.simplefilter("ignore", UserWarning)
            assert close(row["response_ba"], balanced_accuracy_score(*flagged))
        trim = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom", metrics=["iou"],
                                 trim_spans="whitespace")
        assert close(row["iou_trim_ws"], trim["iou"]["score"])


def test_micro_iou_and_ragtruth_rank_alike(tables):
    """Summed statistics: character F1 = 2J / (1 + J) of the pooled IoU J."""
    c = tables["convention_scores"]
    j = c["iou_micro"].to_numpy()
    assert np.allclose(c["ragtruth"].to_numpy(), 2 * j / (1 + j), atol=1e-12)


def test_interval_brackets_its_estimate(tables):
    eff = tables["convention_effects"]
    per = eff[eff["lang"] != "MEAN"]
    for k in ("tau", "max_rank_move", "median_abs_delta"):
        ok = per[[k, f"{k}_low", f"{k}_high"]].dropna()
        assert (ok[f"{k}_low"] <= ok[f"{k}_high"]).all(), k
    assert ((per["winner_change_share"] >= 0) & (per["winner_change_share"] <= 1)).all()
    sc = tables["convention_scores"]
    assert (sc["iou_low"] <= sc["iou"] + 1e-12).all() and (sc["iou"] <= sc["iou_high"] + 1e-12).all()


def test_every_winner_change_has_its_noise_floor(tables):
    eff = tables["convention_effects"]
    per = eff[(eff["lang"] != "MEAN") & (eff["winner_changes"] == 1)]
    floor = tables["winner_noise_floor"]
    assert len(floor) == len(per)
    assert (floor["winner_from"] != floor["winner_to"]).all()
    assert ((floor["gap_from"] >= 0) & (floor["gap_to"] > 0)).all()
    m = eff[eff["lang"] == "MEAN"]
    assert int(m["winner_changes_significant"].sum()) == int(floor["significant"].sum())
    assert (m["winner_changes_significant"] <= m["winner_changes"]).all()


def test_system_against_leave_one_out_equals_brute_force(tables, systems_dir, mushroom_dir):
    """A system's LOO score: for every (item, annotator) row, IoU against the majority of
    the item's other annotators (clipped, zero-length dropped), averaged over the rows."""
    ref_path = next(mushroom_dir.rglob("mushroom.fi-tst.v1*.jsonl"))
    refs = {r["id"]: r for r in records(ref_path)}
    s = tables["systems"]
    file = s.loc[(s["lang"] == "FI") & (s["team"] == "UZH"), "file"].iloc[0]
    name = s.set_index("file").loc[file, "system"]
    gold, pred, text, human = [], [], [], []
    for r in records(systems_dir / file):
        ref = refs[r["id"]]
        n = len(ref["model_output_text"])
        anns = {a: [[s_, min(e, n)] for s_, e in sp if min(e, n) > s_]
                for a, sp in ref["annotations"].items()}
        for a, spans in anns.items():
            gold.append(loo_majority(anns, a))
            pred.append([[x, y] for x, y in r["hard_labels"] if [x, y] != [-1, -1]])
            human.append(spans)
            text.append(ref["model_output_text"])
    direct = mycelium.evaluate(gold, pred, text=text, profile="mu_shroom", metrics=["iou"])
    ann = mycelium.evaluate(gold, human, text=text, profile="mu_shroom", metrics=["iou"])
    v = tables["systems_vs_loo"].set_index(["lang", "detector"])
    assert close(v.loc[("FI", name), "iou_loo"], direct["iou"]["score"])
    assert close(v.loc[("FI", "annotators"), "iou_loo"], ann["iou"]["score"])
    h = tables["humans_vs_systems"]
    row = h[(h["lang"] == "FI") & (h["detector"] == name)]
    if len(row):
        assert close(row["difference"].iloc[0], direct["iou"]["score"] - ann["iou"]["score"])


def test_two_way_weights_are_multinomial_and_keyed_by_language():
    from validation.twoway import TwoWay
    from validation.uncertainty import RESAMPLES, Resampler

    rs = Resampler([f"i{k}" for k in range(6)])
    lang = ["AA"] * 4 + ["BB"] * 6
    ann = ["a", "b", "c", "a", "x", "y", "z", "x", "y", "w"]
    tw = TwoWay(rs, lang, ann)
    assert tw.ann_weights.shape == (RESAMPLES, 7)
    first = tw.ann_weights[:, :3].sum(axis=1)
    assert (first == 3).all()                          # three annotators in AA, drawn 3 times
    assert (tw.ann_weights[:, 3:].sum(axis=1) == 4).all()
    alone = TwoWay(rs, lang[:4], ann[:4])             # AA's weights without BB
    assert np.array_equal(alone.ann_weights, tw.ann_weights[:, :3])
    est, star = tw.means(np.array([0, 1, 2]), np.array([0, 1, 2]), np.array([1.0, 0.0, 1.0]))
    assert close(est, 2 / 3)
    k = 5
    w = rs.weights[k, [0, 1, 2]] * tw.ann_weights[k, tw.ann_index[[0, 1, 2]]]
    if w.sum() > 0:
        assert close(star[k], float((w * [1.0, 0.0, 1.0]).sum() / w.sum()))
