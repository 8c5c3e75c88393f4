"""``response_level`` in the ``ragtruth`` profile: RAGTruth's case level beside the
character level, and the ``positive_min_length`` parameter that counts it."""

import pytest

import mycelium

# gold: positive, positive, negative, only a zero-length label; pred: positive, empty,
# a zero-length span (RAGTruth: a listed but unlocatable phrase), positive
REFS = [[[0, 10]], [[4, 7]], [], [[3, 3]]]
PREDS = [[[2, 8]], [], [[3, 3]], [[1, 2]]]


def test_ragtruth_default_report_has_response_level_beside_character():
    report = mycelium.evaluate(REFS, PREDS, profile="ragtruth")
    # every listed span counts: gold + + - +, pred + - + + → tp 2, fn 1, fp 1, tn 0
    assert report["response_level"] == {"precision": 2 / 3, "recall": 2 / 3,
                                        "f1": 2 / 3}
    assert report["character"] == {"precision": 6 / 7, "recall": 6 / 13, "f1": 0.6}
    assert report["meta"]["response_level_average"] == "micro"
    assert report["meta"]["params"]["response_level"] == {"positive_min_length": 0.0}
    sig = report["meta"]["signature"]
    assert "|profile:ragtruth@2|" in sig
    assert sig.split("|")[4].endswith(",span_coverage,response_level")
    parsed = mycelium.parse_signature(sig)
    assert parsed["params"]["response_level"] == {"positive_min_length": 0.0}
    again = mycelium.evaluate(REFS, PREDS, metrics=parsed["metrics"],
                              params=parsed["params"], average=parsed["average"])
    assert again["response_level"] == report["response_level"]


def test_default_min_length_follows_spec_section_9():
    # no profile: positive = a character (gold) / a non-empty span (pred)
    report = mycelium.evaluate(REFS, PREDS, metrics=["response_level"])
    # gold + + - -, pred + - - + → tp 1, fn 1, fp 1, tn 1
    assert report["response_level"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    st = mycelium.statistics(REFS, PREDS, metrics=["response_level"])["response_level"]
    assert [int(st[k].sum()) for k in ("tp", "fp", "fn", "tn")] == [1, 1, 1, 1]


def test_min_length_above_one_needs_a_long_enough_span():
    st = mycelium.statistics(REFS, PREDS, metrics=["response_level"],
                             params={"response_level": {"positive_min_length": 4}})
    st = st["response_level"]
    # gold lengths 10, 3, -, 0 → + - - -; pred lengths 6, -, 0, 1 → + - - -
    assert st["tp"].tolist() == [1, 0, 0, 0] and st["tn"].tolist() == [0, 1, 1, 1]


def test_explicit_params_win_over_the_profile():
    report = mycelium.evaluate(REFS, PREDS, profile="ragtruth", metrics=["response_level"],
                               params={"response_level": {"positive_min_length": 1}})
    assert report["response_level"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}


@pytest.mark.parametrize("value", [-1, 0.5, "0"])
def test_bad_min_length_is_rejected(value):
    with pytest.raises((ValueError, TypeError), match="positive_min_length"):
        mycelium.evaluate(REFS, PREDS, metrics=["response_level"],
                          params={"response_level": {"positive_min_length": value}})


def test_profile_extra_metrics_are_validated():
    p = mycelium.Profile("case_level", extra_metrics=("response_level",))
    assert p.extra_metrics == ("response_level",)
    with pytest.raises(ValueError, match="Unknown extra metric 'iou'"):
        mycelium.Profile("bad", extra_metrics=("iou",))


def test_explicit_metrics_leave_the_extra_out():
    report = mycelium.evaluate(REFS, PREDS, profile="ragtruth", metrics=["character"])
    assert set(report) == {"character", "meta"}
