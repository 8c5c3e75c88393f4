"""Names are forgiving in what they answer: every spelling a user types — case, hyphens,
underscores, spaces, a benchmark's own name — is answered with the right name, on every
face and the command line. Unknown names still raise (nothing is accepted by guessing)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import mycelium
from mycelium.cli.app import main
from mycelium.errors import closest_name

REFS, PREDS = [[[0, 4]], [[2, 6]]], [[[0, 4]], [[3, 6]]]

METRIC_SPELLINGS = {"IoU": "iou", "IOU": "iou", "Span Coverage": "span_coverage",
                    "span-coverage": "span_coverage", "SpanCoverage": "span_coverage",
                    "Exact-Span": "exact_span", "DetEval": "deteval_1d",
                    "CLEval 1D": "cleval_1d", "Character": "character",
                    "Soft Spearman": "soft_spearman"}
PROFILE_SPELLINGS = {"Mu-SHROOM": "mu_shroom", "MU_SHROOM": "mu_shroom",
                     "mu shroom": "mu_shroom", "mushroom": "mu_shroom",
                     "RAGTruth": "ragtruth", "PsiloQA": "psiloqa", "FAVA": "fava",
                     "LettuceDetect": "lettucedetect", "Lettuce-Detect": "lettucedetect",
                     "SHROOM-Visions": "shroom_visions", "shroom visions": "shroom_visions"}
OPTION_SPELLINGS = [("average", "Macro", "macro"), ("average", "MICRO", "micro"),
                    ("missing", "Drop", "drop"), ("granularity", "Word", "word"),
                    ("granularity", "Sentences", "sentence")]
BENCHMARK_SPELLINGS = {"Mu-SHROOM": "mu_shroom", "RAGTruth": "ragtruth",
                       "RAGTruth++": "ragtruth_pp", "SHROOM-Visions": "shroom_visions",
                       "FaithBench": "faithbench", "LettuceDetect": "lettucedetect",
                       "PsiloQA": "psiloqa", "FAVA": "fava"}


def test_the_matcher_against_a_slow_reference():
    # The reference: compare lower-cased names with every separator removed, one by one.
    def slow(name, valid):
        squash = lambda s: "".join(c for c in s.lower().replace("+", "p") if c.isalnum())
        return next((v for v in valid if squash(v) == squash(name)), None)

    valid = list(mycelium.METRICS) + list(mycelium.PROFILES)
    for typed in [*METRIC_SPELLINGS, *PROFILE_SPELLINGS, "I-o-U", "rag truth"]:
        want = slow(typed, valid)
        if want is not None:
            assert closest_name(typed, valid) == want, typed


def test_nothing_close_gives_no_suggestion():
    assert closest_name("bleu", list(mycelium.METRICS)) is None
    assert closest_name("", list(mycelium.METRICS)) is None
    assert closest_name(3, list(mycelium.METRICS)) is None


@pytest.mark.parametrize("typed,want", METRIC_SPELLINGS.items())
def test_metric_spellings_on_the_dict_face_and_the_accumulator(typed, want):
    with pytest.raises(ValueError, match=f"Unknown metric '{typed}'. Did you mean '{want}'"):
        mycelium.evaluate(REFS, PREDS, metrics=[typed])
    with pytest.raises(ValueError, match=f"Did you mean '{want}'"):
        mycelium.Accumulator(metrics=[typed])


@pytest.mark.parametrize("typed,want", PROFILE_SPELLINGS.items())
def test_profile_spellings_on_the_dict_and_pandas_faces(typed, want):
    with pytest.raises(ValueError, match=f"Unknown profile '{typed}'. Did you mean '{want}'"):
        mycelium.evaluate(REFS, PREDS, profile=typed)
    df = pd.DataFrame({"ref": REFS, "pred": PREDS})
    with pytest.raises(ValueError, match=f"Did you mean '{want}'"):
        df.mycelium.evaluate("ref", "pred", profile=typed)
    with pytest.raises(ValueError, match=f"Did you mean '{want}'"):
        df.mycelium.score("ref", "pred", profile=typed)


#: Benchmarks with a procedure of their own instead of a profile: the answer says where.
PROCEDURE_SPELLINGS = {"FaithBench": "mycelium.protocols.faithbench.detector_table"}


@pytest.mark.parametrize("typed,where", PROCEDURE_SPELLINGS.items())
def test_a_benchmark_without_a_profile_is_answered_with_its_procedure(typed, where, capsys):
    with pytest.raises(ValueError, match=f"Unknown profile '{typed}'. .*not (by )?a profile"
                                         f".*{re.escape(where)}"):
        mycelium.evaluate(REFS, PREDS, profile=typed)
    df = pd.DataFrame({"ref": REFS, "pred": PREDS})
    with pytest.raises(ValueError, match=re.escape(where)):
        df.mycelium.evaluate("ref", "pred", profile=typed)
    with pytest.raises(ValueError, match=re.escape(where)):
        mycelium.Accumulator(profile=typed)
    assert main(["evaluate", "x.jsonl", "--ref-col", "r", "--profile", typed]) == 2
    err = capsys.readouterr().err
    assert f"argument --profile: invalid choice: '{typed}'. " in err and where in err


@pytest.mark.parametrize("option,typed,want", OPTION_SPELLINGS)
def test_option_values(option, typed, want):
    with pytest.raises(ValueError, match=f"Did you mean '{want}'"):
        mycelium.evaluate(REFS, PREDS, text=["abcdefgh"] * 2, **{option: typed})


def test_the_polars_face():
    pl = pytest.importorskip("polars", reason="polars is not installed (the 'polars' extra)")
    df = pl.DataFrame({"ref": REFS, "pred": PREDS})
    with pytest.raises(ValueError, match="Did you mean 'iou'"):
        df.mycelium.evaluate("ref", "pred", metrics=["IoU"])
    with pytest.raises(ValueError, match="Did you mean 'mu_shroom'"):
        df.lazy().mycelium.evaluate("ref", "pred", profile="Mu-SHROOM").collect()
    with pytest.raises(ValueError, match="Did you mean 'iou'"):
        df.select(pl.col("ref").mycelium.statistics(pl.col("pred"), metric="IoU"))


@pytest.mark.parametrize("typed,want", BENCHMARK_SPELLINGS.items())
def test_benchmark_names_in_the_registry(typed, want):
    from mycelium.datasets import get_benchmark

    with pytest.raises(KeyError, match=f"did you mean '{want}'"):
        get_benchmark(typed)


@pytest.mark.parametrize("argv,want", [
    (["evalute", "x.jsonl"], "argument COMMAND: invalid choice: 'evalute'; did you mean "
                             "'evaluate'?"),
    (["evaluate", "x.jsonl", "--ref-col", "r", "--profile", "Mu-SHROOM"],
     "argument --profile: invalid choice: 'Mu-SHROOM'; did you mean 'mu_shroom'?"),
    (["evaluate", "x.jsonl", "--ref-col", "r", "--profile", "RAGTruth"],
     "did you mean 'ragtruth'?"),
    (["evaluate", "x.jsonl", "--ref-col", "r", "--metrics", "IoU,Span-Coverage"],
     "argument --metrics: Unknown metric 'IoU'. Did you mean 'iou'?"),
    (["evaluate", "x.jsonl", "--ref-col", "r", "--average", "Micro"],
     "did you mean 'micro'?"),
    (["evaluate", "x.jsonl", "--ref-col", "r", "--granularity", "Word"],
     "did you mean 'word'?"),
])
def test_the_command_line(argv, want, capsys):
    assert main(argv) == 2
    assert want in capsys.readouterr().err


def test_the_command_line_data_names(capsys):
    assert main(["data", "info", "SHROOM-Visions"]) == 1
    err = capsys.readouterr().err
    assert "did you mean 'shroom_visions'?" in err


def test_a_name_far_from_every_valid_one_lists_them_without_a_guess(capsys):
    with pytest.raises(ValueError) as err:
        mycelium.evaluate(REFS, PREDS, metrics=["bleu"])
    assert "Did you mean" not in str(err.value) and "Valid metrics: exact_span" in str(err.value)
    assert main(["evaluate", "x.jsonl", "--ref-col", "r", "--profile", "xyz"]) == 2
    assert "did you mean" not in capsys.readouterr().err
