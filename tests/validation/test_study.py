"""The study's numbers against direct `mycelium.evaluate` calls on records read here with
the ``json`` module (an independent path from the study's vectorised code)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import mycelium
from mycelium.stats.agreement import kendall_tau_b
from mycelium.metrics.soft_spearman import cor, soft_vector

from _study import LANGUAGES, have_matplotlib, loo_majority

TABLES = ("data_handling", "silent_annotators", "recompute_check", "loo_reference",
          "annotators_vs_hard", "annotators_vs_hard_by_annotator",
          "annotators_vs_hard_adjacent_merged", "annotators_vs_loo",
          "annotators_vs_loo_by_annotator", "annotators_pairwise",
          "annotators_pairwise_by_annotator", "annotator_detectors", "detector_scores",
          "detector_ranks", "metric_tau", "metric_tau_summary", "undercoverage")
MARKDOWN = ("data_handling", "inter_annotator", "detectors", "metric_tau", "undercoverage")
FIGURES = ("fig1_inter_annotator", "fig2_detector_scores", "fig3_metric_tau",
           "fig4_undercoverage")


@pytest.fixture(scope="module")
def records(mushroom_dir):
    """{lang: [record, ...]} of the val v2 and test files, read with ``json``."""
    out = {}
    for lang in LANGUAGES:
        files = sorted(mushroom_dir.rglob(f"mushroom.{lang.lower()}-val.v2*.jsonl")) + \
            sorted(mushroom_dir.rglob(f"mushroom.{lang.lower()}-tst.v1*.jsonl"))
        out[lang] = [json.loads(line) for f in files
                     for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def clean(spans, n):
    """The study's documented rule: clip to the text, drop zero-length spans."""
    return [[s, min(e, n)] for s, e in spans if min(e, n) > s]


def csv(out, name):
    return pd.read_csv(out / f"{name}.csv", keep_default_na=False, na_values=[""])


def close(a, b, tol=1e-12):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def test_every_output_is_written(study):
    _, out = study
    for name in TABLES:
        assert (out / f"{name}.csv").stat().st_size > 0
    for name in MARKDOWN:
        assert (out / f"{name}.md").read_text(encoding="utf-8").startswith("# ")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["languages"] == LANGUAGES
    assert manifest["seed"] == 0


def test_data_handling_counts_match_the_raw_files(study, records):
    _, out = study
    h = csv(out, "data_handling").set_index(["lang", "issue"])
    for lang in LANGUAGES:
        spans = [(s, e, len(r["model_output_text"])) for r in records[lang]
                 for ann in r["annotations"].values() for s, e in ann]
        assert h.loc[(lang, "zero_length"), "spans"] == sum(s == e for s, e, _ in spans)
        assert h.loc[(lang, "past_end"), "spans"] == sum(e > n for _, e, n in spans)
    assert h.loc[("EN", "past_end"), "items"] == 1  # val-en-34: [301, 373] on 372 chars
    en34 = next(r for r in records["EN"] if r["id"] == "val-en-34")
    assert len(en34["model_output_text"]) == 372
    assert h.loc[("ALL", "overlapping"), "spans"] == 0


def test_one_annotator_vs_hard_labels_equals_evaluate(study, records):
    _, out = study
    table = csv(out, "annotators_vs_hard_by_annotator").set_index(["lang", "annotator"])
    for lang in LANGUAGES:
        counts = pd.Series([a for r in records[lang] for a in r["annotations"]]).value_counts()
        annotator = counts.index[0]
        mine = [r for r in records[lang] if annotator in r["annotations"]]
        refs = [r["hard_labels"] for r in mine]
        preds = [clean(r["annotations"][annotator], len(r["model_output_text"]))
                 for r in mine]
        texts = [r["model_output_text"] for r in mine]
        direct = mycelium.evaluate(refs, preds, text=texts, profile="mu_shroom")
        row = table.loc[(lang, annotator)]
        assert row["examples"] == len(mine)
        for metric, measures in direct.items():
            if metric == "meta":
                continue
            for measure, value in measures.items():
                assert close(row[f"{metric}_{measure}"], value), (metric, measure)
        cors = [cor(soft_vector(r["soft_labels"], len(t), "ref", 0),
                    soft_vector([{"start": s, "end": e, "prob": 1.0} for s, e in p],
                                len(t), "pred", 0))
                for r, p, t in zip(mine, preds, texts)]
        assert close(row["cor"], float(np.mean(cors)))


def test_language_row_pools_every_annotation(study, records):
    _, out = study
    row = csv(out, "annotators_vs_hard").set_index("lang").loc["FI"]
    refs, preds, texts = [], [], []
    for r in records["FI"]:
        for spans in r["annotations"].values():
            refs.append(r["hard_labels"])
            preds.append(clean(spans, len(r["model_output_text"])))
            texts.append(r["model_output_text"])
    direct = mycelium.evaluate(refs, preds, text=texts, profile="mu_shroom")
    assert row["examples"] == len(refs)
    assert close(row["iou_score"], direct["iou"]["score"])
    assert close(row["span_coverage_f1"], direct["span_coverage"]["f1"])
    assert close(row["deteval_1d_f1"], direct["deteval_1d"]["f1"])


def test_leave_one_out_and_pairwise_equal_brute_force(study, records):
    _, out = study
    loo = csv(out, "annotators_vs_loo").set_index("lang").loc["FI"]
    pair = csv(out, "annotators_pairwise").set_index("lang").loc["FI"]
    loo_refs, loo_preds, pair_refs, pair_preds, t1, t2 = [], [], [], [], [], []
    for r in records["FI"]:
        n = len(r["model_output_text"])
        anns = {a: clean(s, n) for a, s in r["annotations"].items()}
        for a, spans in anns.items():
            others = [b for b in anns if b != a]
            loo_refs.append(loo_majority(anns, a))
            loo_preds.append(spans)
            t1.append(r["model_output_text"])
            for b in others:
                pair_refs.append(anns[b])
                pair_preds.append(spans)
                t2.append(r["model_output_text"])
    d_loo = mycelium.evaluate(loo_refs, loo_preds, text=t1, profile="mu_shroom")
    d_pair = mycelium.evaluate(pair_refs, pair_preds, text=t2, profile="mu_shroom")
    assert loo["examples"] == len(loo_refs) and pair["examples"] == len(pair_refs)
    for row, direct in ((loo, d_loo), (pair, d_pair)):
        for metric in ("iou", "character", "exact_span", "deteval_1d", "cleval_1d",
                       "span_coverage"):
            key = "score" if metric == "iou" else "f1"
            assert close(row[f"{metric}_{key}"], direct[metric][key]), metric


def test_mark_none_iou_is_the_share_of_items_without_hard_labels(study, records):
    _, out = study
    scores = csv(out, "detector_scores").set_index(["lang", "detector"])
    for lang in LANGUAGES:
        share = np.mean([not r["hard_labels"] for r in records[lang]])
        assert close(scores.loc[(lang, "mark_none"), "iou_score"], share)
    assert scores.loc[("EN", "mark_none"), "iou_score"] > 0  # EN has such items


def test_pinpoint_has_perfect_span_coverage_and_tiny_iou(study, records):
    _, out = study
    scores = csv(out, "detector_scores").set_index(["lang", "detector"])
    assert all(r["hard_labels"] for r in records["FI"])
    assert scores.loc[("FI", "pinpoint"), "span_coverage_f1"] == 1.0
    with_refs = np.mean([bool(r["hard_labels"]) for r in records["EN"]])
    assert close(scores.loc[("EN", "pinpoint"), "span_coverage_f1"], with_refs)
    u = csv(out, "undercoverage").set_index("lang")
    for lang in LANGUAGES:
        assert u.loc[lang, "span_coverage_f1_refs"] == 1.0
        assert u.loc[lang, "iou_refs"] < 0.25
        # Pinpoint lies inside the reference, so IoU = |pred| / |ref| = character recall.
        assert close(u.loc[lang, "iou_refs"], u.loc[lang, "character_recall_refs"])
    fi = records["FI"]
    direct = mycelium.evaluate(
        [r["hard_labels"] for r in fi],
        [[[s + (e - s - 1) // 2, s + (e - s - 1) // 2 + 1] for s, e in r["hard_labels"]]
         for r in fi], profile="mu_shroom")
    assert close(scores.loc[("FI", "pinpoint"), "iou_score"], direct["iou"]["score"])


def test_metric_tau_equals_kendall_on_the_score_table(study):
    _, out = study
    scores = csv(out, "detector_scores")
    tau = csv(out, "metric_tau")
    for lang in LANGUAGES:
        part = scores[scores["lang"] == lang]
        row = tau[(tau["lang"] == lang) & (tau["metric_a"] == "iou")
                  & (tau["metric_b"] == "span_coverage")].iloc[0]
        expected = kendall_tau_b(part["iou_score"], part["span_coverage_f1"])
        assert close(row["kendall_tau"], expected)


def test_per_example_cor_is_mycelium_cor(study):
    result, _ = study
    frame = result["frames"]["detectors"]
    items = result["items"]
    sample = frame.sample(200, random_state=1)
    for _, row in sample.iterrows():
        n = len(row["text"])
        ref = soft_vector(items["soft_labels"].iloc[row["item"]], n, "ref", 0)
        pred = soft_vector([{"start": s["start"], "end": s["end"], "prob": 1.0}
                            for s in row["pred"]], n, "pred", 0)
        assert cor(ref, pred) == row["cor"]


def test_random_detector_keeps_lengths_and_does_not_depend_on_languages(study):
    result, _ = study
    frame = result["frames"]["detectors"]
    rnd = frame[frame["detector"] == "random"]
    for ref, pred in zip(rnd["ref"], rnd["pred"]):
        assert sorted(e["end"] - e["start"] for e in ref) == \
            sorted(e["end"] - e["start"] for e in pred)
    import pyarrow as pa

    from validation import detectors
    from validation.flat import Flat

    items = result["items"]
    fi = items[items["lang"] == "FI"].reset_index(drop=True)
    alone = detectors._random(Flat.from_arrow(pa.array(fi["hard_labels"])),
                              fi["text_len"].to_numpy(), fi["id"].tolist(), 0)
    in_study = rnd[rnd["lang"] == "FI"]["pred"].tolist()
    assert alone.lists() == [[(d["start"], d["end"]) for d in spans] for spans in in_study]


@pytest.mark.skipif(not have_matplotlib(),
                    reason="matplotlib is not installed (pip install 'mycelium[validation]'); "
                           "the figures are not drawn")
def test_figures_are_readable_pngs(study):
    import matplotlib.image as mpimg

    _, out = study
    for name in FIGURES:
        image = mpimg.imread(out / f"{name}.png")
        assert image.shape[0] >= 500 and image.shape[1] >= 800
        assert (out / f"{name}.png").stat().st_size < 400_000
