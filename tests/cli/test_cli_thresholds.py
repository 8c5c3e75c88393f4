"""``mycelium sweep --thresholds``: values the option cannot take are told in the
command's terms (``--thresholds 0.0`` for the threshold 0), before any file is read."""

from __future__ import annotations

import pytest

from mycelium.cli.app import main


@pytest.mark.parametrize("value", ["0", "00"])
def test_zero_quantiles_point_at_the_threshold_zero(tmp_path, capsys, value):
    code = main(["sweep", str(tmp_path / "absent.jsonl"), "--ref-col", "ref", "--text-col",
                 "text", "--token-offsets-col", "o", "--token-scores-col", "s",
                 "--thresholds", value])
    err = capsys.readouterr().err
    assert code == 2
    assert err.rstrip().endswith(
        f"argument --thresholds: Expected a number of quantiles >= 1 or thresholds in "
        f"[0, 1], got '{value}', at --thresholds; fix by writing --thresholds 0.0 for the "
        "single threshold 0, or a count such as --thresholds 100 for 100 quantiles")
    assert "thresholds=" not in err  # the API's spelling


def test_the_threshold_zero_and_counts_are_accepted():
    from mycelium.cli.sweep import parse_thresholds

    assert parse_thresholds("0.0") == [0.0]
    assert parse_thresholds("0,0.5") == [0.0, 0.5]
    assert parse_thresholds("100") == 100
