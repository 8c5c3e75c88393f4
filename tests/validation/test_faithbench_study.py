"""FaithBench in the study: the weighted statistics equal the protocol's detector table
on the full data and a slow per-resample loop on a resample; the tables are complete."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from _data_dirs import FAITHBENCH_ENV, data_folder
from mycelium.protocols import faithbench as fb

from validation import faithbench_study as fs
from validation.ranking import CENTRAL_RESAMPLES

FOLDER, WHY = data_folder(FAITHBENCH_ENV)
needs_data = pytest.mark.skipif(FOLDER is None, reason=WHY or "")

bits = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 3)),
                min_size=2, max_size=30)


@settings(max_examples=80, deadline=None)
@given(bits)
def test_weighted_measures_equal_the_protocol_on_expanded_items(rows):
    """Integer weights are copies: the weighted value is the protocol's measure on the
    items repeated that many times."""
    gold = np.array([g for g, _, _ in rows])
    pred = np.array([[p] for _, p, _ in rows])
    w = np.array([[k for _, _, k in rows]], dtype=np.float64)
    rep = np.repeat(np.arange(len(rows)), w[0].astype(int))
    for measure, ref in (("ba", fb.balanced_accuracy), ("f1", fb.f1_macro)):
        full, star = fs._weighted(w, gold, pred, measure)
        assert math.isclose(full[0], ref(gold, pred[:, 0]), abs_tol=1e-12)
        if rep.size:
            assert math.isclose(star[0, 0], ref(gold[rep], pred[rep, 0]), abs_tol=1e-12)


@needs_data
def test_full_data_values_equal_the_detector_table():
    values, golds = fs.rule_values(FOLDER)
    for name, (_, _, fields, measure) in fs.RULES.items():
        conv = "release" if fields.get("source") == "release" else "paper"
        rest = {k: v for k, v in fields.items() if k != "source"}
        table = fb.detector_table(FOLDER, convention=conv, **rest).set_index("detector")
        col = "balanced_accuracy" if measure == "ba" else "f1_macro"
        assert np.allclose(values[name][0], table.loc[list(fb.DETECTORS), col], atol=1e-12)
        assert values[name][1].shape == (CENTRAL_RESAMPLES, len(fb.DETECTORS))


@needs_data
def test_tables_are_complete_and_name_no_annotator():
    t = fs.tables(FOLDER)
    assert len(t["faithbench_rules"]) == len(fs.RULES) - 1
    assert len(t["faithbench_types"]) == 3
    changes = int(t["faithbench_rules"]["winner_changes"].sum()
                  + t["faithbench_types"]["winner_changes"].sum())
    assert len(t["faithbench_noise_floor"]) == changes
    s = t["faithbench_scores"]
    assert ((s["low"] <= s["value"] + 1e-12) & (s["value"] <= s["high"] + 1e-12)).all()
    text = " ".join(df.to_csv() for df in t.values())
    notes = fb.read_annotations(FOLDER)
    assert not any(str(a) in text for a in notes["annotator"].unique() if len(str(a)) > 6)
