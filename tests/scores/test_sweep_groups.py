"""`mycelium.sweep` and `mycelium.tune_threshold` with ``by``: each group's curve has only
its own scores' thresholds (unless thresholds are given), equals the sweep of its rows
alone, and ``by`` names that clash with the result's columns are refused as the frame
faces refuse them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mycelium

TEXT = ["abcdefgh", "abcdefgh", "abcd", "abcd"]
REFS = [[[2, 6]], [], [[0, 2]], [[1, 3]]]
OFFS = [[[0, 2], [2, 4], [4, 6], [6, 8]], [[0, 4], [4, 8]], [[0, 2], [2, 4]], [[0, 4]]]
SCORES = [[0.1, 0.9, 0.6, 0.2], [0.3, 0.7], [0.45, 0.05], [0.8]]
GROUPS = ["en", "en", "fi", "fi"]
KW = dict(text=TEXT, token_offsets=OFFS, token_scores=SCORES)


def _alone(group, **options):
    rows = [i for i, g in enumerate(GROUPS) if g == group]
    return mycelium.sweep([REFS[i] for i in rows], text=[TEXT[i] for i in rows],
                          token_offsets=[OFFS[i] for i in rows],
                          token_scores=[SCORES[i] for i in rows], **options)


@pytest.mark.parametrize("thresholds", [None, 3, {"steps": 4}])
def test_each_group_has_its_own_thresholds_and_equals_its_rows_alone(thresholds):
    out = mycelium.sweep(REFS, by={"lang": GROUPS}, thresholds=thresholds, **KW)
    for group in ("en", "fi"):
        part = out[out["lang"] == group].drop(columns="lang").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, _alone(group, thresholds=thresholds))
    if thresholds is None:  # 0 and the group's own distinct scores, nothing else
        assert sorted(set(out[out["lang"] == "en"]["threshold"])) == \
            [0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 0.9]
        assert sorted(set(out[out["lang"] == "fi"]["threshold"])) == [0.0, 0.05, 0.45, 0.8]
        assert len(out) == (7 + 4) * 4  # iou's score and character's three measures


def test_explicit_thresholds_are_every_groups():
    out = mycelium.sweep(REFS, by={"lang": GROUPS}, thresholds=[0.5, 0.05], metrics="iou",
                         **KW)
    assert out["threshold"].tolist() == [0.05, 0.5, 0.05, 0.5]


def test_tuned_per_group_from_its_own_curve():
    best = mycelium.tune_threshold(REFS, by={"lang": GROUPS}, **KW)
    for group, t, v in zip(best["lang"], best["threshold"], best["value"]):
        curve = _alone(group, metrics="iou")
        assert v == curve["value"].max()
        assert t == curve[curve["value"] == v]["threshold"].min()


def test_a_range_grid_names_the_group_it_cannot_span():
    scores = [[0.1, 0.9, 0.6, 0.2], [0.3, 0.7], [0.5, 0.5], [0.5]]
    with pytest.raises(ValueError, match=r"every character scoring 0\.5 in group "
                                         r"lang='fi', at thresholds="):
        mycelium.sweep(REFS, by={"lang": GROUPS}, thresholds={"steps": 4}, text=TEXT,
                       token_offsets=OFFS, token_scores=scores)


def test_many_groups_rows_grow_with_each_groups_scores():
    rng = np.random.default_rng(0)
    n = 60
    text = ["x" * 20] * n
    offs = [[[0, 5], [5, 10], [10, 15], [15, 20]]] * n
    scores = rng.random((n, 4)).tolist()
    refs = [[[0, 10]]] * n
    out = mycelium.sweep(refs, text=text, token_offsets=offs, token_scores=scores,
                         by={"g": [i // 2 for i in range(n)]}, metrics="iou")
    # 30 groups of 2 examples: 0 and 8 distinct scores each (not the batch's 240)
    assert len(out) == 30 * 9


# ------------------------------------------------------------------ by names

@pytest.mark.parametrize("name", ["metric", "measure", "value", "threshold", "examples",
                                  "average", "profile", "signature"])
@pytest.mark.parametrize("run", ["sweep", "tune_threshold"])
def test_by_names_of_result_columns_are_refused(name, run):
    with pytest.raises(ValueError, match=f"got by column {name!r}, which is also the name "
                                         "of a result column"):
        getattr(mycelium, run)(REFS, by={name: GROUPS}, **KW)
    with pytest.raises(ValueError, match=f"got by column {name!r}"):
        getattr(mycelium, run)(REFS, by=pd.Series(GROUPS, name=name), **KW)


def test_by_must_have_a_label_per_example():
    with pytest.raises(ValueError, match=r"Expected 4 group labels in by\['lang'\]"):
        mycelium.sweep(REFS, by={"lang": GROUPS[:3]}, **KW)
    with pytest.raises(TypeError, match="by is a str; expected one group label per example"):
        mycelium.sweep(REFS, by="lang", **KW)
