"""``mycelium shroom-visions REF PRED OUT``: the kit's printed lines and OUT file on the
golden cases (``cases.json``), and a refusal as one error line with exit status 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mycelium.cli.app import main

CASES = {c["name"]: c for c in json.loads(
    (Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))["cases"]}
KIT_NUMBERS = ("Cor    : ", "IoU    : ", "Cor lbl: ", "acc    : ", "f1     : ",
               "prec   : ", "rec    : ")


def _files(tmp_path, case):
    ref, pred = tmp_path / "ref.jsonl", tmp_path / "pred.jsonl"
    ref.write_text("".join(x + "\n" for x in case["gold"]), encoding="utf-8")
    pred.write_text("".join(x + "\n" for x in case["pred"]), encoding="utf-8")
    return str(ref), str(pred), str(tmp_path / "out.txt")


@pytest.mark.parametrize("name", ["basic", "raw_annots", "near_tie", "partial_submission",
                                  "empty_text"])
def test_prints_and_writes_as_the_kit(name, tmp_path, capsys):
    case = CASES[name]
    ref, pred, out = _files(tmp_path, case)
    assert main(["shroom-visions", ref, pred, out]) == 0
    printed = capsys.readouterr().out
    kit = [x for x in case["kit"]["stdout"].splitlines() if x.startswith(KIT_NUMBERS)]
    assert printed.splitlines() == kit
    assert Path(out).read_bytes() == case["kit"]["out"].encode("utf-8")


def test_refusal_names_the_rule(tmp_path, capsys):
    ref, pred, out = _files(tmp_path, CASES["refuse_label_lower"])
    assert main(["shroom-visions", ref, pred, out]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "label 'ocr' is not one of" in err[0] and err[0].endswith("[rule: label-set]")
    assert not Path(out).exists()  # nothing written, as the kit writes nothing


def test_labels_ignore_case_is_opt_in_and_recorded(tmp_path, capsys):
    ref, pred, out = _files(tmp_path, CASES["refuse_label_lower"])
    assert main(["shroom-visions", ref, pred, out, "--labels-ignore-case"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["Cor    : 0.50000000", "IoU    : 0.50000000",
                         "Cor lbl: 0.50000000"]
    assert "labels:closed-ignore-case" in lines[-1] and lines[-1].startswith("signature: ")


@pytest.mark.parametrize("name", ["basic", "near_tie", "partial_submission"])
def test_the_drop_in_scores_without_pandas_in_a_fresh_interpreter(name, tmp_path):
    # pyarrow loads pandas for any to_numpy or pa.array of Python objects; the column-wise
    # reader views Arrow's buffers and pairs the ids as read, so files it reads never do
    # (a side the record reader reads has its ids paired through pa.array).
    import subprocess
    import sys

    case = CASES[name]
    ref, pred, out = _files(tmp_path, case)
    probe = ("import sys\nfrom mycelium.cli.app import main\n"
             "assert main(sys.argv[1:]) == 0\n"
             "print('pandas loaded:', 'pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe, "shroom-visions", ref, pred, out],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    kit = [x for x in case["kit"]["stdout"].splitlines() if x.startswith(KIT_NUMBERS)]
    assert [x for x in lines if x.startswith(KIT_NUMBERS)] == kit
    assert lines[-1] == "pandas loaded: False"
    assert Path(out).read_bytes() == case["kit"]["out"].encode("utf-8")
