"""Signatures parse back into the settings that reproduce a report; profiles are frozen
values whose settings lose to explicit arguments."""

from __future__ import annotations

import json

import dataclasses
import math

import pytest

import mycelium
from mycelium import Profile, parse_signature

REFS = [[[0, 10]], [[4, 7]], [], [[0, 5], [5, 10]]]
PREDS = [[[2, 8]], [[4, 7]], [[1, 3]], [[0, 10]]]
RERUN_KEYS = ("average", "zero_division", "metrics", "params", "missing")


@pytest.mark.parametrize("options", [
    {},
    {"profile": "mu_shroom"},
    {"profile": "ragtruth", "metrics": ["character", "iou"]},
    {"average": "micro", "zero_division": "nan"},
    {"zero_division": 1.0, "params": {"deteval_1d": {"merge_credit": 1.0,
                                                     "recall_threshold": 0.7}}},
    {"params": {"cleval_1d": {"area_precision_threshold": 0.5,
                              "granularity_penalty_weight": 0.5}}, "missing": "empty"},
])
def test_signature_reproduces_the_report(options):
    report = mycelium.evaluate(REFS, PREDS, **options)
    parsed = parse_signature(report["meta"]["signature"])
    assert parsed["version"] == mycelium.__version__
    assert parsed["profile"] == report["meta"]["profile"]
    again = mycelium.evaluate(REFS, PREDS, **{k: parsed[k] for k in RERUN_KEYS})
    for metric in report:
        if metric != "meta":
            assert _same(again[metric], report[metric]), metric
    # all but version and profile
    assert again["meta"]["signature"].split("|", 2)[2] == \
        report["meta"]["signature"].split("|", 2)[2]
    # numbers passed in were not parsed from text: no float rule is recorded
    assert "float_parse" not in parsed


def _same(a, b):
    return a.keys() == b.keys() and all(
        (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == b[k] for k in a)


def test_signature_fields_and_params_round_trip():
    sig = mycelium.evaluate([[0, 1]], [[0, 1]], profile="ragtruth", metrics=["deteval_1d"],
                            params={"deteval_1d": {"merge_credit": 1.0}})["meta"]["signature"]
    assert sig.startswith(f"mycelium:{mycelium.__version__}|profile:ragtruth@2|average:micro|")
    parsed = parse_signature(sig)
    assert parsed["params"] == {"deteval_1d": {"recall_threshold": 0.8,
                                               "precision_threshold": 0.4,
                                               "split_merge_credit": 0.8,
                                               "merge_credit": 1.0}}
    assert parsed["offsets"] == "half-open" and parsed["profile_version"] == 2


def test_mu_shroom_signature_records_its_float_rule_only_where_it_applied(tmp_path):
    # Numbers passed in were never parsed from text: the rule did not apply.
    sig = mycelium.evaluate([[0, 1]], [[0, 1]], profile="mu_shroom",
                            metrics="iou")["meta"]["signature"]
    assert sig.startswith(f"mycelium:{mycelium.__version__}|profile:mu_shroom@2|")
    assert sig.endswith("|granularity:char")
    assert "float_parse" not in sig and "float_parse" not in parse_signature(sig)
    assert "float_parse" not in mycelium.evaluate([[0, 1]], [[0, 1]])["meta"]["signature"]
    assert mycelium.get_profile("mu_shroom").float_parse == "pandas-fast"
    # A file read by the rule: the result says so.
    path = tmp_path / "mushroom.en-val.v2.jsonl"
    path.write_text(json.dumps({
        "id": "val-en-1", "lang": "EN", "model_input": "q", "model_output_text": "abcdef",
        "model_id": "m", "soft_labels": [{"start": 0, "end": 3, "prob": 0.3}],
        "hard_labels": [[0, 3]]}) + "\n", encoding="utf-8")
    mu = mycelium.read_mushroom(path)
    sig = mycelium.evaluate(mu["hard_labels"], mu["hard_labels"], profile="mu_shroom",
                            metrics="iou")["meta"]["signature"]
    assert parse_signature(sig)["float_parse"] == "pandas-fast"
    with pytest.raises(ValueError, match="float_parse"):
        Profile("mine", float_parse="fast")


@pytest.mark.parametrize("bad", ["", "sacrebleu:2.0", "mycelium:0.1.0|average"])
def test_parse_signature_rejects_other_strings(bad):
    with pytest.raises(ValueError):
        parse_signature(bad)


def test_profile_defaults_and_explicit_arguments():
    strict = Profile("strict", version=2, average="micro", zero_division="nan",
                     metrics=("character",), params={"deteval_1d": {"merge_credit": 1.0}})
    r = mycelium.evaluate([[[0, 5]], []], [[[0, 5]], []], profile=strict)
    assert list(r) == ["character", "meta"]
    assert r["meta"]["average"] == "micro" and r["meta"]["zero_division"] == "nan"
    assert r["meta"]["profile"] == "strict" and "profile:strict@2" in r["meta"]["signature"]
    r = mycelium.evaluate([[[0, 5]], []], [[[0, 5]], []], profile=strict, average="macro",
                          zero_division=0.0, metrics=["character", "deteval_1d"])
    assert r["meta"]["average"] == "macro" and r["meta"]["zero_division"] == 0.0
    # the example without spans has an undefined precision: 0.0 now, so the mean is 0.5
    assert r["character"]["precision"] == 0.5
    assert r["meta"]["params"]["deteval_1d"]["merge_credit"] == 1.0


def test_profiles_are_frozen_and_validated():
    p = mycelium.PROFILES["mu_shroom"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.average = "micro"
    with pytest.raises(TypeError):
        p.params["deteval_1d"] = {}
    with pytest.raises(ValueError, match="average"):
        Profile("x", average="mean")
    with pytest.raises(ValueError, match="name"):
        Profile("a|b")
    with pytest.raises(ValueError, match="recall_threshold"):
        Profile("x", params={"deteval_1d": {"recall_threshold": 2.0}})
    with pytest.raises(ValueError, match="Did you mean 'iou'"):
        Profile("x", metrics=["iuo"])


def test_one_version_everywhere():
    # The distribution's metadata, mycelium.__version__, the signature and meta all read
    # mycelium/_version.py.
    import importlib.metadata

    installed = importlib.metadata.version("mycelium-eval")
    report = mycelium.evaluate([[0, 1]], [[0, 1]], metrics="iou")
    assert mycelium.__version__ == installed
    assert report["meta"]["version"] == installed
    assert mycelium.parse_signature(report["meta"]["signature"])["version"] == installed
