"""Parts 4-6 and the intervals, against direct library calls on records read with
``json``: the bootstrap intervals are the library's, the token-logit numbers are
`evaluate` / `tune_threshold` on the raw records, the published mark-all baseline is
recomputed, and ``--check`` catches a changed committed number."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mycelium
from mycelium.scores.baselines import token_logit_scores
from mycelium.stats.agreement import kendall_tau_b

from _study import LANGUAGES, have_matplotlib

NEW_TABLES = ("token_logit", "token_logit_data", "same_reference", "same_reference_tests",
              "humans_and_systems", "leaderboard", "leaderboard_tau",
              "detectable_difference", "provenance", "provenance_spread", "granularity",
              "granularity_tau", "typology_illustrative", "annotators_vs_hard_test",
              "annotators_vs_loo_test", "detector_scores_test")
ROOT = Path(__file__).resolve().parents[2]


def csv(out, name):
    return pd.read_csv(out / f"{name}.csv", keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def split_records(mushroom_dir):
    out = {}
    for lang in LANGUAGES:
        for split, pat in (("val", "val.v2"), ("test", "tst.v1")):
            files = sorted(mushroom_dir.rglob(f"mushroom.{lang.lower()}-{pat}*.jsonl"))
            out[(lang, split)] = [json.loads(x) for f in files
                                  for x in f.read_text(encoding="utf-8").splitlines()]
    return out


def test_every_new_table_is_written(study):
    _, out = study
    for name in NEW_TABLES:
        assert len(csv(out, name)) > 0, name
    assert (out / "real_detectors.md").read_text(encoding="utf-8").startswith("# ")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["bootstrap"]["resamples"] == 10_000 and manifest["bootstrap"]["seed"] == 0


def test_item_intervals_are_the_librarys(study, split_records):
    """mark_all vs the hard labels has one row per item: its interval must be exactly
    evaluate(ci=0.95, n_resamples=RESAMPLES, ids=item ids) on the raw records."""
    from validation.uncertainty import RESAMPLES

    _, out = study
    scores = csv(out, "detector_scores")
    row = scores[(scores["lang"] == "EN") & (scores["detector"] == "mark_all")].iloc[0]
    recs = split_records[("EN", "val")] + split_records[("EN", "test")]
    refs = [r["hard_labels"] for r in recs]
    preds = [[[0, len(r["model_output_text"])]] for r in recs]
    rep = mycelium.evaluate(refs, preds, text=[r["model_output_text"] for r in recs],
                            profile="mu_shroom", metrics=["iou"], ci=0.95,
                            n_resamples=RESAMPLES, ids=[r["id"] for r in recs])
    assert math.isclose(row["iou_score"], rep["iou"]["score"], rel_tol=1e-12)
    assert math.isclose(row["iou_score_low"], rep["ci"]["iou"]["score"]["low"], rel_tol=1e-9)
    assert math.isclose(row["iou_score_high"], rep["ci"]["iou"]["score"]["high"],
                        rel_tol=1e-9)
    assert row["iou_score_low"] < row["iou_score"] < row["iou_score_high"]


def test_token_logit_equals_direct_calls(study, split_records):
    _, out = study
    table = csv(out, "token_logit")

    def inputs(recs):
        scored = [token_logit_scores(r, extra_logits="drop_last") for r in recs]
        return dict(text=[r["model_output_text"] for r in recs],
                    token_offsets=[o for o, _ in scored],
                    token_scores=[s for _, s in scored], profile="mu_shroom")

    val, test = split_records[("EN", "val")], split_records[("EN", "test")]
    best = mycelium.tune_threshold([r["hard_labels"] for r in val], **inputs(val),
                                   thresholds=[k / 100 for k in range(100)])
    at = mycelium.evaluate([r["hard_labels"] for r in test], **inputs(test),
                           threshold=best["threshold"], metrics=["iou"])
    free = mycelium.evaluate([r["hard_labels"] for r in test], **inputs(test),
                             metrics=["char_auroc", "char_ap"])
    row = table[(table["lang"] == "EN") & (table["split"] == "test")].iloc[0]
    assert row["threshold"] == float(best["threshold"])
    assert math.isclose(row["iou"], at["iou"]["score"], rel_tol=1e-12)
    assert math.isclose(row["char_auroc"], free["char_auroc"]["score"], rel_tol=1e-12)
    assert math.isclose(row["char_ap"], free["char_ap"]["score"], rel_tol=1e-12)
    data = csv(out, "token_logit_data")
    en = data[(data["lang"] == "EN") & (data["split"] == "test")].iloc[0]
    assert en["records_with_dropped_logit"] == 107 and en["dropped_logits"] == 107


def test_published_mark_all_baseline_is_recomputed(study):
    _, out = study
    hs = csv(out, "humans_and_systems")
    assert set(hs["lang"]) == set(LANGUAGES)
    # the leaderboard prints 6 decimals
    assert (hs["mark_all_abs_difference"] < 5e-7).all()


def test_same_reference_rows_agree_with_part_one(study):
    _, out = study
    same = csv(out, "same_reference")
    hard, loo = csv(out, "annotators_vs_hard"), csv(out, "annotators_vs_loo")
    for lang in LANGUAGES + ["ALL"]:
        s = same[(same["split"] == "all") & (same["lang"] == lang)
                 & (same["predictor"] == "annotator")].set_index("reference")
        assert math.isclose(s.loc["hard", "iou"],
                            hard.set_index("lang").loc[lang, "iou_score"], rel_tol=1e-12)
        assert math.isclose(s.loc["loo", "iou"], loo.set_index("lang").loc[lang, "iou_score"],
                            rel_tol=1e-12)
        assert math.isclose(s.loc["loo", "cor"], loo.set_index("lang").loc[lang, "cor"],
                            rel_tol=1e-12)


def test_paired_tests_are_consistent(study):
    _, out = study
    t = csv(out, "same_reference_tests")
    same = csv(out, "same_reference")
    en = t[(t["lang"] == "EN") & (t["a"] == "mark_all vs hard")].iloc[0]
    s = same[(same["split"] == "test") & (same["lang"] == "EN")
             & (same["predictor"] == "mark_all")].set_index("reference")
    assert math.isclose(en["difference"], s.loc["hard", "iou"] - s.loc["loo", "iou"],
                        abs_tol=1e-12)
    assert (t["ci_low"] <= t["difference"]).all() and (t["difference"] <= t["ci_high"]).all()
    assert (t["p_holm"] >= t["p_value"] - 1e-15).all()
    assert (t["significant"] == ((t["p_holm"] < 0.05)
                                 & ((t["ci_low"] > 0) | (t["ci_high"] < 0)))).all()


def test_leaderboard_tau_is_kendall_over_the_teams(study, mushroom_dir):
    _, out = study
    board = csv(out, "leaderboard")
    tau = csv(out, "leaderboard_tau").set_index(["ranking", "lang"])
    for ranking in ("iou", "cor"):
        teams = board[(board["lang"] == "ZH") & ~board["baseline"]
                      & (board["ranking"] == ranking)]
        assert math.isclose(tau.loc[(ranking, "ZH"), "tau_iou_cor"],
                            kendall_tau_b(teams["iou"], teams["cor"]), rel_tol=1e-12)
    assert round(tau.loc[("iou", "ZH"), "tau_iou_cor"], 2) == 0.27
    assert round(tau.loc[("iou", "MEAN"), "tau_iou_cor"], 2) == 0.66       # every language
    assert round(tau.loc[("iou", "MEAN"), "median_adjacent_gap"], 3) == 0.012
    assert tau.loc[("iou", "ZH"), "tau_low"] < 0 < tau.loc[("iou", "ZH"), "tau_high"]
    # Each ranking's top team comes from its own file: EN's Cor ranking is led by
    # Swushroomsia, whose best-IoU submission is not the IoU ranking's top.
    assert tau.loc[("iou", "EN"), "top_team"] == "iai_MSU"
    assert tau.loc[("cor", "EN"), "top_team"] == "Swushroomsia"
    assert not tau.loc[("iou", "EN"), "same_top_team_both_rankings"]


def test_cor_ranking_is_read_with_its_own_column_order(mushroom_dir, study):
    """cor_rankings.md lists rho before IoU: the parsed values follow its header."""
    _, out = study
    board = csv(out, "leaderboard")
    path = next(mushroom_dir.rglob("cor_rankings.md"))
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next(x for x in lines if x.startswith("|  1 |"))   # AR, rank 1: ccnu
    cells = [c.strip() for c in first.strip("|").split("|")]
    row = board[(board["ranking"] == "cor") & (board["lang"] == "AR")
                & (board["rank"] == 1)].iloc[0]
    assert row["team"] == cells[1]
    assert row["cor"] == float(cells[2]) and row["iou"] == float(cells[3])


def test_granularity_char_is_part_two_and_token_units_by_hand(study):
    from validation.dimensions import token_units
    from validation.flat import Flat

    _, out = study
    g = csv(out, "granularity").set_index(["lang", "detector"])
    d = csv(out, "detector_scores").set_index(["lang", "detector"])
    for key in (("EN", "mark_all"), ("FI", "shift+3"), ("EN", "A1")):
        assert math.isclose(g.loc[key, "iou_char"], d.loc[key, "iou_score"], rel_tol=1e-12)
    # tokens [0,2) [2,5) [6,9) and a zero-length special one: span [3, 7) marks 1 and 2
    tok = [np.array([[0, 2], [2, 5], [6, 9], [9, 9]])]
    flat = Flat.build(1, [0], [3], [7])
    got = token_units(flat, np.array([0]), tok)
    assert (got.start.tolist(), got.end.tolist()) == ([1], [3])


def test_typology_records_are_the_tests(study):
    from validation.dimensions import TYPED_PREDS, TYPED_REFS

    spec = importlib.util.spec_from_file_location(
        "typology_tests", ROOT / "tests" / "views" / "test_typology.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert TYPED_REFS == mod.REFS and TYPED_PREDS == mod.PREDS
    _, out = study
    t = csv(out, "typology_illustrative").set_index("type")
    assert t.loc["Subtle Baseless Info", "character_recall"] == 0.4
    assert t["status"].str.startswith("illustrative").all()


def test_tau_b_matches_the_library():
    from validation.uncertainty import mdd, tau_b

    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, size=(5, 9)).astype(float)
    b = rng.integers(0, 4, size=(5, 9)).astype(float)
    got = tau_b(a, b)
    for k in range(5):
        assert math.isclose(got[k], kendall_tau_b(a[k], b[k]), rel_tol=1e-12)
    assert math.isclose(mdd(0.3, 150), 2.801585218 * 0.3 / math.sqrt(150), rel_tol=1e-9)


def test_check_passes_on_its_own_output_and_names_a_change(study, mushroom_dir, tmp_path,
                                                           capsys):
    from validation.run import main

    _, out = study
    committed = tmp_path / "committed"
    shutil.copytree(out, committed)
    figures = [] if have_matplotlib() else ["--no-figures"]  # as the study was written
    assert main(["--data", str(mushroom_dir), "--languages", "en", "--out", str(committed),
                 "--check", *figures]) == 0
    assert "check: ok" in capsys.readouterr().out
    path = committed / "token_logit.csv"
    t = pd.read_csv(path)
    t.loc[t["lang"] == "EN", "char_auroc"] += 0.001
    t.to_csv(path, index=False, lineterminator="\n")
    assert main(["--data", str(mushroom_dir), "--languages", "en", "--out", str(committed),
                 "--check", *figures]) == 1
    captured = capsys.readouterr()
    assert "token_logit.csv: row" in captured.err and "'char_auroc'" in captured.err


@pytest.mark.skipif(not have_matplotlib(), reason="matplotlib is not installed")
def test_new_figures_are_drawn(study):
    _, out = study
    from validation import pngmeta

    for name in ("fig5_humans_and_systems", "fig6_rank_agreement", "fig7_provenance",
                 "fig8_convention_table"):
        assert (out / f"{name}.png").stat().st_size > 20_000
        assert pngmeta.read_text(out / f"{name}.png")[pngmeta.KEY].startswith("sha256:")
