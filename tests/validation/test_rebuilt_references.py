"""The annotators' LOO references rebuilt inside each resample: the vote counts each
drawn copy of an annotator, the full-data value is the study's LOO IoU, and the
annotator weights are the two-way bootstrap's."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from validation import rebuilt
from validation.twoway import TwoWay
from validation.uncertainty import Resampler

panels = st.integers(2, 5).flatmap(lambda k: st.tuples(
    st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=k, max_size=k),
    st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=1, max_size=5)))


def _brute(vectors, counts):
    out = np.full((len(counts), len(vectors)), np.nan)
    for r, c in enumerate(counts):
        for j in range(len(vectors)):
            copies = [vectors[b] for b in range(len(vectors)) if b != j for _ in range(c[b])]
            if not copies:
                continue
            votes = np.sum(copies, axis=0)
            ref = votes > len(copies) / 2
            pred = np.asarray(vectors[j])
            union = (ref | pred).sum()
            out[r, j] = (ref & pred).sum() / union if union else 1.0
    return out


@settings(max_examples=100, deadline=None)
@given(panels)
def test_rebuilt_loo_is_the_vote_over_drawn_copies(panel):
    vectors, counts = panel
    got = rebuilt.item_values(np.array(vectors, dtype=bool), np.array(counts))
    assert np.allclose(got, _brute(vectors, counts), equal_nan=True)


def test_annotator_weights_begin_with_the_two_way_bootstraps():
    lang = np.array(["EN"] * 3 + ["DE"] * 2 + ["EN"])
    who = np.array(["a", "b", "c", "x", "y", "a"])
    tw = TwoWay(Resampler([f"i{k}" for k in range(3)]), lang, who)
    mine = rebuilt.annotator_weights(lang, who)
    assert mine.shape[0] == rebuilt.RESAMPLES
    assert np.array_equal(mine[:tw.ann_weights.shape[0]], tw.ann_weights[:, tw.ann_index])


def test_full_data_value_is_the_studys_loo_iou(mushroom_dir):
    from pathlib import Path

    from validation import data

    committed = pd.read_csv(Path(__file__).resolve().parents[2] / "validation" / "results"
                            / "annotators_two_way.csv")
    items = data.load(mushroom_dir, ["CS", "FR"])
    out = rebuilt.table(items, data.annotations(items), committed)
    for lang in ("CS", "FR"):
        row = out[out["lang"] == lang].iloc[0]
        ref = committed[committed["lang"] == lang].iloc[0]
        assert abs(row["iou_loo"] - ref["iou_b"]) < 1e-12
        assert row["iou_loo_rebuilt_low"] <= row["iou_loo"] <= row["iou_loo_rebuilt_high"]
        assert 0 < row["undefined_share"] < 0.2   # three annotators: 1/9 draw one alone
