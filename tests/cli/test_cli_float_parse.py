"""``mycelium evaluate`` / ``report`` / ``sweep`` read JSON numbers by the profile's rule.

Under ``--profile mu_shroom`` the files' numbers are read as the official scorer's
``pandas.read_json`` reads them (``float_parse:pandas-fast`` in the signature), and
``--float-parse`` chooses another rule, recorded in the signature in the profile's
place. The file holds the oracle's tie case: ``0.3`` read by pandas is
``0.30000000000000004``, tying with the next span.
"""

from __future__ import annotations

import json

import pytest

import mycelium
from cli_data import write_jsonl
from mycelium.cli.app import main

ROWS = [{"id": "f-0", "text": "abcdefghij", "ref": [[0, 4]], "pred": [],
         "soft_ref": [{"start": 0, "end": 2, "prob": 0.6}, {"start": 2, "end": 6, "prob": 0.2}],
         "soft_pred": [{"start": 0, "end": 3, "prob": 0.3},
                       {"start": 3, "end": 6, "prob": 0.30000000000000004}]}]
ARGS = ["--ref-col", "ref", "--pred-col", "pred", "--text-col", "text",
        "--soft-ref-col", "soft_ref", "--soft-pred-col", "soft_pred",
        "--metrics", "soft_spearman", "--format", "json"]
OFFICIAL, EXACT = 0.9128709291752769, 0.7010681840159739  # the oracle's two readings


def _run(capsys, path, *extra):
    code = main(["evaluate", str(path), *ARGS, *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    (record,) = doc["records"]
    return record["value"], doc["signature"]


@pytest.mark.parametrize("extra, value, field", [
    (["--profile", "mu_shroom"], OFFICIAL, "float_parse:pandas-fast"),
    (["--profile", "mu_shroom", "--float-parse", "exact"], EXACT, "float_parse:exact"),
    ([], EXACT, None),
    (["--float-parse", "pandas-fast"], OFFICIAL, "float_parse:pandas-fast"),
])
def test_evaluate(tmp_path, capsys, extra, value, field):
    path = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    got, signature = _run(capsys, path, *extra)
    assert got == pytest.approx(value, abs=1e-12)
    fields = [f for f in signature.split("|") if f.startswith("float_parse:")]
    assert fields == ([field] if field else [])
    if field:
        assert mycelium.parse_signature(signature)["float_parse"] == field.split(":")[1]


def test_evaluate_two_files(tmp_path, capsys):
    refs = write_jsonl(tmp_path / "refs.jsonl", [{k: v for k, v in ROWS[0].items()
                                                  if k != "soft_pred"}])
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": "f-0", "pred": [],
                                                    "soft_pred": ROWS[0]["soft_pred"]}])
    code = main(["evaluate", str(refs), str(preds), *ARGS, "--profile", "mu_shroom",
                 "--id-col", "id"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["records"][0]["value"] == pytest.approx(OFFICIAL, abs=1e-12)
