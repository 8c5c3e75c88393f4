"""``mycelium evaluate`` and ``mycelium sweep`` with REFS and PREDS that both hold a score
column of the same name: the PREDS copy is scored, as ``--soft-pred-col``'s help says
(``--pred-col`` prefers PREDS the same way), and a bad cell is told in PREDS' terms."""

from __future__ import annotations

import json

import pytest

from mycelium.cli.app import main
from cli_data import write_jsonl

# REFS' copies of the score columns flag the reference (IoU 1.0 at 0.5); PREDS' copies
# flag the other half of the text (IoU 0.0): only PREDS' may be scored.
REFS = [{"id": 1, "ref": [[0, 4]], "text": "abcdefgh",
         "soft": [{"start": 0, "end": 4, "prob": 0.9}], "offs": [[0, 4], [4, 8]],
         "sc": [0.9, 0.1]}]
PREDS = [{"id": 1, "soft": [{"start": 4, "end": 8, "prob": 0.9}], "offs": [[0, 4], [4, 8]],
          "sc": [0.1, 0.9]}]
FORMS = {"soft": ["--soft-pred-col", "soft"],
         "tokens": ["--token-offsets-col", "offs", "--token-scores-col", "sc"]}


def _files(tmp_path, preds=PREDS):
    return (str(write_jsonl(tmp_path / "refs.jsonl", REFS)),
            str(write_jsonl(tmp_path / "preds.jsonl", preds)))


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("pairing", [[], ["--id-col", "id"]])
def test_evaluate_scores_the_preds_copy_of_a_score_column(tmp_path, capsys, form, pairing):
    refs, preds = _files(tmp_path)
    assert main(["evaluate", refs, preds, "--ref-col", "ref", "--text-col", "text",
                 "--threshold", "0.5", "--metrics", "iou", "--format", "json",
                 *FORMS[form], *pairing]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    assert [r["value"] for r in records] == [0.0]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_sweep_scores_the_preds_copy_of_a_score_column(tmp_path, capsys, form):
    refs, preds = _files(tmp_path)
    assert main(["sweep", refs, preds, "--ref-col", "ref", "--text-col", "text",
                 "--thresholds", "0.5", "--metrics", "iou", "--format", "json",
                 *FORMS[form]]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    assert [r["value"] for r in records] == [0.0]


def test_a_bad_cell_of_the_preds_copy_is_told_in_preds_terms(tmp_path, capsys):
    bad = [dict(PREDS[0], sc=[0.1, 1.5])]
    refs, preds = _files(tmp_path, bad)
    assert main(["evaluate", refs, preds, "--ref-col", "ref", "--text-col", "text",
                 "--threshold", "0.5", "--metrics", "iou", *FORMS["tokens"]]) != 0
    err = capsys.readouterr().err
    assert f"PREDS {preds}, row 1, column 'sc' (--token-scores-col), token 2" in err


@pytest.mark.parametrize("command", ["evaluate", "sweep"])
def test_score_options_say_where_they_look(capsys, command):
    assert main([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for option in ("--soft-pred-col", "--token-offsets-col", "--token-scores-col"):
        help_text = out[out.index(option + " COLUMN "):][:200]  # its help, not the usage
        assert "in PREDS, else in REFS" in help_text, option
