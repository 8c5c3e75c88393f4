"""`mycelium.plot_sweep`: one line per (group, metric, measure), tuned thresholds marked."""

import pytest

import mycelium

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib (validation extra) is "
                                 "not installed: plot_sweep needs it")
matplotlib.use("Agg")

TEXT = ["abcdefgh", "abcdefgh"]
REFS = [[[2, 6]], [[0, 2]]]
KW = dict(token_offsets=[[(0, 2), (2, 4), (4, 6), (6, 8)]] * 2,
          token_scores=[[0.1, 0.9, 0.6, 0.2], [0.8, 0.1, 0.1, 0.3]])


def test_lines_per_group_and_tuned_marks():
    by = {"lang": ["en", "fi"]}
    f = mycelium.sweep(REFS, text=TEXT, metrics="iou", by=by, **KW)
    tuned = mycelium.tune_threshold(REFS, text=TEXT, by=by, **KW)
    ax = mycelium.plot_sweep(f, tuned=tuned)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["en · iou.score", "fi · iou.score",
                      f"tuned en {tuned['threshold'][0]:g}", f"tuned fi {tuned['threshold'][1]:g}"]
    en = ax.get_lines()[0]
    part = f[f["lang"] == "en"].sort_values("threshold")
    assert list(en.get_xdata()) == part["threshold"].tolist()
    assert list(en.get_ydata()) == part["value"].tolist()


def test_not_a_sweep_frame():
    import pandas as pd

    with pytest.raises(ValueError, match="Expected a mycelium.sweep frame"):
        mycelium.plot_sweep(pd.DataFrame({"metric": ["iou"]}))
