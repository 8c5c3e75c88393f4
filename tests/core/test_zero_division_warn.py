"""``zero_division="warn"``: 0.0, plus one `mycelium.UndefinedMetricWarning` per measure
naming how many examples (macro) or groups' pooled values (micro) were undefined."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import mycelium
from mycelium import UndefinedMetricWarning
from mycelium.cli import main

REFS = [[[0, 1]], [], []]
PREDS = [[], [], [[0, 2]]]


def caught(fn):
    with warnings.catch_warnings(record=True) as out:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in out if issubclass(w.category, UndefinedMetricWarning)]


def test_macro_warns_once_per_measure_with_the_count():
    report, ws = caught(lambda: mycelium.evaluate(REFS, PREDS, metrics=["character", "iou"],
                                                  zero_division="warn"))
    zero = mycelium.evaluate(REFS, PREDS, metrics=["character", "iou"], zero_division=0.0)
    assert {k: v for k, v in report.items() if k != "meta"} == \
        {k: v for k, v in zero.items() if k != "meta"}
    assert [str(w.message).split(" undefined")[0] for w in ws] == [
        "character precision: 2 of 3 examples are", "character recall: 2 of 3 examples are"]
    assert all(w.filename == __file__ for w in ws)  # points at the caller's line
    assert report["meta"]["zero_division"] == "warn"
    sig = report["meta"]["signature"]
    assert "|zero_division:warn|" in sig
    assert mycelium.parse_signature(sig)["zero_division"] == "warn"


def test_micro_warns_about_the_pooled_value_only():
    _, ws = caught(lambda: mycelium.evaluate(REFS, PREDS, metrics="character",
                                             average="micro", zero_division="warn"))
    assert ws == []  # pooled P = 0/2, R = 0/1: defined
    _, ws = caught(lambda: mycelium.evaluate([[[0, 1]]], [[]], metrics="character",
                                             average="micro", zero_division="warn"))
    assert [w.message.where for w in ws] == ["the pooled (micro) value is"]


def test_frames_count_groups_and_no_warning_without_warn():
    df = pd.DataFrame({"r": REFS, "p": PREDS, "g": ["a", "a", "b"]})
    _, ws = caught(lambda: df.mycelium.evaluate("r", "p", by="g", metrics="character",
                                                average="micro", zero_division="warn"))
    assert [(w.message.measure, w.message.where) for w in ws] == [
        ("precision", "the pooled (micro) values of 1 of 2 groups are"),
        ("recall", "the pooled (micro) values of 1 of 2 groups are")]
    _, ws = caught(lambda: df.mycelium.evaluate("r", "p", by="g", metrics="character"))
    assert ws == []
    _, ws = caught(lambda: mycelium.evaluate(REFS, PREDS, metrics="character", ci=0.9,
                                             n_resamples=20, zero_division="warn"))
    assert len(ws) == 2  # resamples never warn


def test_profiles_and_aggregate_take_warn():
    p = mycelium.Profile("warny", version=1, zero_division="warn")
    assert p.zero_division == "warn"
    st = mycelium.statistics(REFS, PREDS, metrics=["character"])
    _, ws = caught(lambda: mycelium.aggregate(st, zero_division="warn"))
    assert len(ws) == 2
    with pytest.raises(ValueError, match="'warn'"):
        mycelium.evaluate(REFS, PREDS, zero_division="loud")


def test_the_command_line_warns_in_its_own_flags(capsys, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"r": [[0, 1]], "p": []}\n{"r": [], "p": []}\n')
    code = main(["evaluate", str(path), "--ref-col", "r", "--pred-col", "p", "--metrics",
                 "character", "--zero-division", "warn", "--format", "csv"])
    err = capsys.readouterr().err
    assert code == 0
    assert err.splitlines() == [
        "mycelium: warning: character precision: 2 of 2 examples are undefined (0/0), "
        "scored as 0 (--zero-division warn); pass --zero-division 0, 1 or nan to choose a "
        "value and silence this.",
        "mycelium: warning: character recall: 1 of 2 examples are undefined (0/0), scored "
        "as 0 (--zero-division warn); pass --zero-division 0, 1 or nan to choose a value "
        "and silence this."]
