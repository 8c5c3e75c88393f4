"""The official reader's float parsing, reproduced: ``float_parse="pandas-fast"`` (default).

The official reader is ``pandas.read_json(..., lines=True)``, whose default
``precise_float=False`` parser is off by one ulp on many values ("0.3" ->
0.30000000000000004, "0.5000000000000001" -> 0.5) and drops fraction digits past the
15th. mycelium reads numbers the same way by default (the ``mu_shroom`` profile's
``float_parse="pandas-fast"``, `mycelium.io.float_parse`), and correctly rounded with
``--float-parse exact``. Two contrived oracle cases depend on it, listed in
_mushroom_support.FLOAT_TEXT_CASES:

- ``edge_float_parse_tie`` (in cases.json): checked here with literal numbers;
- ``edge_float_parse_threshold`` (only in the kept-back half of the oracle): rebuilt
  here from its description, and checked generically by the full-oracle test if the
  oracle file holds it.

Each test shows the official result by default, the exact result with
``--float-parse exact``, and that the record scorer gives the official result when handed
the values pandas parsed, so the float reading is the only cause.
"""

import io
import math

import pytest

from _mushroom_support import (FLOAT_TEXT_CASES, check_exact_reading, load_selection,
                               ref_cor, ref_vector, run_cli, write_lines)
from mycelium.protocols.mushroom import score_records

BY_ID = {c["case_id"]: c for c in load_selection()["cases"]}


def test_the_float_text_cases_are_listed_explicitly():
    assert set(FLOAT_TEXT_CASES) == {"edge_float_parse_threshold", "edge_float_parse_tie"}


# ------------------------------------------------------------------ edge_float_parse_tie

TIE = BY_ID["edge_float_parse_tie"]


def test_tie_case_is_the_documented_one():
    assert TIE["pred"]["raw_lines"] == [
        '{"id": "f-0", "hard_labels": [], "soft_labels": [{"start": 0, "end": 3, "prob": 0.3},'
        ' {"start": 3, "end": 6, "prob": 0.30000000000000004}]}']
    assert TIE["expected"]["printed"] == "IoU: 0.00000000\nCor: 0.91287093\n"  # official


def test_tie_default_reading_is_the_official_one(tmp_path):
    ref = write_lines(tmp_path / "ref.jsonl", TIE["ref"]["raw_lines"])
    pred = write_lines(tmp_path / "pred.jsonl", TIE["pred"]["raw_lines"])
    assert run_cli(["mushroom", ref, pred]) == (0, TIE["expected"]["printed"], "")
    assert run_cli(["mushroom", "--float-parse", "pandas-fast", ref, pred]) == \
        (0, TIE["expected"]["printed"], "")


def test_tie_exact_reading(tmp_path):
    """Read exactly, 0.3 < 0.30000000000000004: no tie, Cor 0.70106818 (not 0.91287093)."""
    ref = write_lines(tmp_path / "ref.jsonl", TIE["ref"]["raw_lines"])
    pred = write_lines(tmp_path / "pred.jsonl", TIE["pred"]["raw_lines"])
    status, out, err = run_cli(["mushroom", "--float-parse", "exact", ref, pred])
    assert (status, err) == (0, "")
    assert out == "IoU: 0.00000000\nCor: 0.70106818\n"
    # the exact vectors, ranked independently of mycelium
    ref_vec = [0.6, 0.6, 0.2, 0.2, 0.2, 0.2, 0.0, 0.0, 0.0, 0.0]
    pred_vec = [0.3] * 3 + [0.30000000000000004] * 3 + [0.0] * 4
    assert 0.3 != 0.30000000000000004
    rho = ref_cor(ref_vec, pred_vec)
    assert math.isclose(rho, 0.7010681840159739, abs_tol=1e-12)
    result = score_records(TIE["ref"]["records"], TIE["pred"]["records"])
    assert math.isclose(result.cor[0], rho, abs_tol=1e-12) and result.iou == [0.0]
    # and the generic exact-reading check the full-oracle test applies
    check_exact_reading(TIE, tmp_path / "generic")


def test_tie_with_the_values_pandas_parsed_matches_the_official_scorer():
    pandas_pred = [{"id": "f-0", "hard_labels": [], "soft_labels": [
        {"start": 0, "end": 3, "prob": 0.30000000000000004},   # pandas' reading of "0.3"
        {"start": 3, "end": 6, "prob": 0.30000000000000004}]}]
    pandas_ref = [{"id": "f-0", "model_output_text": "abcdefghij", "hard_labels": [[0, 4]],
                   "soft_labels": [{"start": 0, "end": 2, "prob": 0.6000000000000001},
                                   {"start": 2, "end": 6, "prob": 0.2}]}]
    result = score_records(pandas_ref, pandas_pred)
    assert math.isclose(result.cor[0], TIE["expected"]["per_example"][0]["cor"], abs_tol=1e-9)
    assert result.printed == TIE["expected"]["printed"]


# ------------------------------------------------------------ edge_float_parse_threshold

THRESHOLD_REF = ('{"id": "f-0", "model_output_text": "abcdefghij", "hard_labels": [[0, 4]], '
                 '"soft_labels": [{"start": 0, "end": 4, "prob": 1.0}]}')
THRESHOLD_PRED = '{"id": "f-0", "soft_labels": [{"start": 0, "end": 4, "prob": 0.5000000000000001}]}'


def test_threshold_default_reading_is_the_official_one(tmp_path):
    """pandas reads 0.5: not > 0.5, no derived hard label, IoU 0 (the official output)."""
    ref = write_lines(tmp_path / "ref.jsonl", [THRESHOLD_REF])
    pred = write_lines(tmp_path / "pred.jsonl", [THRESHOLD_PRED])
    assert run_cli(["mushroom", ref, pred]) == (0, "IoU: 0.00000000\nCor: 1.00000000\n", "")


def test_threshold_exact_reading(tmp_path):
    """Read exactly, 0.5000000000000001 > 0.5: the derived hard label is [0, 4), IoU 1."""
    ref = write_lines(tmp_path / "ref.jsonl", [THRESHOLD_REF])
    pred = write_lines(tmp_path / "pred.jsonl", [THRESHOLD_PRED])
    status, out, err = run_cli(["mushroom", "--float-parse", "exact", ref, pred])
    assert (status, err) == (0, "")
    assert out == "IoU: 1.00000000\nCor: 1.00000000\n"
    assert 0.5000000000000001 > 0.5
    assert ref_cor([1.0] * 4 + [0.0] * 6, [0.5000000000000001] * 4 + [0.0] * 6) == \
        pytest.approx(1.0, abs=1e-12)


def test_threshold_with_the_value_pandas_parsed_is_the_official_result():
    """pandas reads 0.5: not > 0.5, no derived hard label, IoU 0 (the official output)."""
    refs = [{"id": "f-0", "model_output_text": "abcdefghij", "hard_labels": [[0, 4]],
             "soft_labels": [{"start": 0, "end": 4, "prob": 1.0}]}]
    preds = [{"id": "f-0", "soft_labels": [{"start": 0, "end": 4, "prob": 0.5}]}]
    assert score_records(refs, preds).printed == "IoU: 0.00000000\nCor: 1.00000000\n"


def test_pandas_parser_is_the_cause():
    """The official reader's parse of these texts (explains the two deviations)."""
    pd = pytest.importorskip("pandas")
    line = '{"a": [0.3, 0.5000000000000001, 0.6]}\n'
    got = list(pd.read_json(io.StringIO(line), lines=True)["a"][0])
    assert got == [0.30000000000000004, 0.5, 0.6000000000000001]
    assert ref_vector([{"start": 0, "end": 1, "prob": 0.3}], 1) == [0.3]
