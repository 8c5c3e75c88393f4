"""SHROOM-Visions in the study: the kit's means equal the organisers' scorer's printed
values (OFFICIAL.csv), Mu-SHROOM's and FaithBench's conventions equal the library and a
direct computation on the full data, weighted means are means over repeated items, and
hard spans are the characters above the threshold."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import mycelium
from _data_dirs import SHROOM_VISIONS_ENV, data_folder

from validation import scoring
from validation import visions_study as vs
from validation.ranking import item_weights

FOLDER, WHY = data_folder(SHROOM_VISIONS_ENV)
needs_data = pytest.mark.skipif(FOLDER is None, reason=WHY or "")

spans = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8),
                           st.sampled_from([0.25, 0.33, 0.5, 0.67, 1.0])), max_size=8)


@settings(max_examples=100, deadline=None)
@given(spans)
def test_hard_spans_are_the_characters_above_the_threshold(rows):
    labels = [{"start": a, "end": a + k, "prob": p, "label": "other"} for a, k, p in rows]
    out = vs.hard_spans(labels)
    marked = {c for a, k, p in rows if p > 0.5 for c in range(a, a + k)}
    assert {c for a, b in out for c in range(a, b)} == marked
    assert all(a < b for a, b in out)
    # sorted and neither overlapping nor touching
    assert all(out[i][1] < out[i + 1][0] for i in range(len(out) - 1))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3)), min_size=1, max_size=20))
def test_weighted_macro_is_the_mean_over_repeated_items(rows):
    v = np.array([[x, 1 - x] for x, _ in rows])
    w = np.array([[k for _, k in rows]], dtype=np.float64)
    full, star = vs._weighted_macro(w, v)
    assert np.allclose(full, v.mean(axis=0))
    rep = np.repeat(np.arange(len(rows)), w[0].astype(int))
    if rep.size:
        assert np.allclose(star[0], v[rep].mean(axis=0))
    else:
        assert np.isnan(star[0]).all()


def test_weighted_macro_leaves_out_undefined_items():
    full, star = vs._weighted_macro(np.array([[2.0, 1.0, 1.0]]),
                                    np.array([[0.5], [np.nan], [1.0]]))
    assert full.tolist() == [0.75]
    assert math.isclose(star[0, 0], (2 * 0.5 + 1.0) / 3)


@pytest.fixture(scope="module")
def loaded():
    return vs.load(FOLDER)


@needs_data
def test_every_file_has_a_status_and_the_kit_means_are_the_official_scorers(loaded):
    status, _ = loaded
    assert len(status) == 72
    assert status["status"].value_counts().to_dict() == {
        "scored": 41, "refused (label-set)": 25, "not every gold item": 2,
        "oracle (not a detector)": 4}
    official = pd.read_csv(FOLDER / "OFFICIAL.csv")
    official["system"] = official["path"].str.split("/").str[-2]
    official["lang"] = official["lang"].str.upper()
    both = status.merge(official, on=["lang", "system"], how="left")
    # the kit refuses exactly the files the organisers' scorer refused
    assert (both["status"].str.startswith("refused") == both["refused"].notna()).all()
    scored = both[both["status"] == "scored"]
    assert np.allclose(scored["kit_iou"], scored["IoU"], atol=5e-9)
    assert np.allclose(scored["kit_cor"], scored["Cor"], atol=5e-9)
    assert np.allclose(scored["kit_cor_lbl"], scored["Cor_lbl"], atol=5e-9)


@needs_data
def test_other_benchmarks_conventions_equal_a_direct_computation(loaded):
    _, per_lang = loaded
    gold, names, results, preds = per_lang["FR"]
    w = item_weights(gold["id"].tolist())[:50]
    values = vs.convention_values(gold, results, preds, w)
    ref = [vs.hard_spans(x) for x in gold["labels"]]
    text = gold["response"].tolist()
    for j in (0, len(names) - 1):
        pred = [vs.hard_spans(x) for x in preds[j]]
        ev = mycelium.evaluate(ref, pred, text=text, profile=scoring.PROFILE,
                               metrics=["iou"])
        assert math.isclose(values["ms_iou"][0][j], ev["iou"]["score"], abs_tol=1e-12)
        g = np.array([bool(x) for x in ref])
        p = np.array([bool(x) for x in pred])
        ba = ((g & p).sum() / g.sum() + (~g & ~p).sum() / (~g).sum()) / 2
        assert math.isclose(values["fb_ba"][0][j], ba, abs_tol=1e-12)
        ri = [{c for a, b in r for c in range(a, b)} for r in ref]
        pi = [{c for a, b in s for c in range(a, b)} for s in pred]
        micro = sum(len(x & y) for x, y in zip(ri, pi)) / sum(len(x | y) for x, y in zip(ri, pi))
        assert math.isclose(values["ms_iou_micro"][0][j], micro, abs_tol=1e-12)
        # the kit's IoU mean is the scored result's own
        assert math.isclose(values["sv_iou"][0][j], results[j].iou_mean, abs_tol=1e-12)
    for name, (est, star) in values.items():
        assert est.shape == (len(names),) and star.shape == (50, len(names)), name


@needs_data
def test_per_type_values_are_the_kits_per_label_iou_on_gold_items(loaded):
    _, per_lang = loaded
    gold, names, results, _ = per_lang["EN"]
    w = item_weights(gold["id"].tolist())[:20]
    types = vs.type_values(gold, results, w)
    held = {lab: sum(any(s["label"] == lab for s in x) for x in gold["labels"])
            for lab in vs.LABELS}
    for label, ((est, star), n) in types.items():
        assert n == held[label] >= vs.MIN_TYPE_ITEMS
        assert star.shape == (20, len(names))
        s = results[0].scores
        code = list(results[0].label_names).index(label)
        at = (s.pair_label == code) & (s.pair_ref_spans > 0)
        assert math.isclose(est[0], s.pair_iou[at].mean(), rel_tol=1e-12)
