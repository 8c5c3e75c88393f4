"""The streamed score sums (lazy Polars and Spark score plans) take a face's options
whole: every option `resolve_settings` knows reaches their settings, so an option added
to `Settings` is in their signature as on the eager faces, with no list to extend."""

from __future__ import annotations

from mycelium.core.settings import OPTIONS
from mycelium.frames import score_sums


def test_every_option_reaches_the_settings_and_nothing_else(monkeypatch):
    seen: dict = {}
    real = score_sums.resolve_settings

    def spy(**options):
        seen.update(options)
        return real(**options)

    monkeypatch.setattr(score_sums, "resolve_settings", spy)
    # every option at its default, a threshold and a score metric, and two face-only
    # arguments (a column name and the grouping) that are not options
    options = {**OPTIONS, "metrics": ["iou", "char_auroc"], "threshold": 0.5,
               "token_scores_col": "scores", "by": ["model"]}
    ss = score_sums.score_sums(options, predictions=False, form="token")
    assert set(seen) == set(OPTIONS)
    assert list(seen["metrics"]) == list(ss.plan.span_names) == ["iou"]
    assert seen["threshold"] == 0.5
    assert ss.signature.endswith("|scores:token|threshold:0.5")
