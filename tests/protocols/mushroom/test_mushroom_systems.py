"""Real system submissions: ``mycelium mushroom`` and the Python API print what the official
Mu-SHROOM scorer prints, on every one of the 187 files of ``mushroom_systems/``.

The files (46 submissions that reproduce published leaderboard rows, 141 other full
submissions of the same teams under ``variants/``; see the folder's SOURCE.md and
MANIFEST.csv) are read from ``MYCELIUM_MUSHROOM_SYSTEMS_DIR`` and their references from
``MYCELIUM_MUSHROOM_DIR`` (``splits/test_labeled/v1``); the tests skip with a reason
when either is unset. Three sources of the official output are compared:

- ``OFFICIAL.csv`` of the folder: what ``participant_kit/scorer.py`` (Helsinki-NLP/mu-shroom
  @ 7fea78a, pandas 3.1.1, scipy 1.17.1) printed for each file;
- `official_output` below, run here: a re-statement of that scorer's reading and
  arithmetic, written for this test (``pandas.read_json`` with its defaults, the labels
  derived as the scorer derives them, records sorted by id, IoU of index sets,
  ``scipy.stats.spearmanr`` of the per-character vectors after the scorer's
  constant-vector rule, numpy means);
- when ``MYCELIUM_MUSHROOM_SCORER`` names a copy of ``scorer.py``, the scorer itself, in a
  fresh process (``test_the_scorer_itself``).

Nine variants hold ``[-1, -1]`` hard spans and soft spans without a ``prob``, which the
task's format checker rejects and the bare scorer scores anyway: mycelium rejects them
with the file, line, field, span and the checker's rule. Every other file must print
byte for byte the official text; with ``--float-parse exact`` the 46 leaderboard files
print the exactly-read Cor recorded in MANIFEST.csv (``cor_mine_python_json``), which
differs on 16 of them.
"""

from __future__ import annotations

import csv
import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mycelium
from _data_dirs import SYSTEMS_ENV, data_folder
from _mushroom_support import run_cli
from mycelium.protocols.mushroom import MushroomInputError, score_files

scipy_stats = pytest.importorskip("scipy.stats")


SYSTEMS, NO_SYSTEMS = data_folder(SYSTEMS_ENV)
DATA, NO_DATA = data_folder("MYCELIUM_MUSHROOM_DIR")
pytestmark = pytest.mark.skipif(SYSTEMS is None or DATA is None,
                                reason=NO_SYSTEMS or NO_DATA or "")

ROWS = list(csv.DictReader(open(SYSTEMS / "OFFICIAL.csv", encoding="utf-8"))) \
    if SYSTEMS and DATA else []
MANIFEST = {r["file"]: r for r in csv.DictReader(open(SYSTEMS / "MANIFEST.csv",
                                                      encoding="utf-8"))} \
    if SYSTEMS and DATA else {}
#: The variants with spans the task's format checker rejects (SOURCE.md).
INVALID = {f"variants/MSA/{name}.jsonl" for name in
           ("ar.01", "ar.03", "ca.02", "cs.02", "de.01", "en.02", "es.01", "eu.02", "zh.01")}


def _ref(lang: str) -> Path:
    return DATA / "splits" / "test_labeled" / "v1" / f"mushroom.{lang}-tst.v1.extra.jsonl"


def _printed(row: dict) -> str:
    return f"IoU: {row['IoU']}\nCor: {row['Cor']}\n"


# ------------------------------------------------ the scorer's procedure, re-stated

def _derived_hard(soft: list[dict]) -> list[list[int]]:
    out: list[list[int]] = []
    previous = None
    for span in sorted((s for s in soft if s["prob"] > 0.5),
                       key=lambda s: (s["start"], s["end"])):
        if out and span["start"] == previous:
            out[-1][-1] = span["end"]
        else:
            out.append([span["start"], span["end"]])
        previous = span["end"]
    return out


@functools.lru_cache(maxsize=None)
def _records(path: Path, is_ref: bool) -> list[dict]:
    """A file as the scorer loads it: pandas.read_json(lines=True), labels derived
    per column, sorted by id."""
    frame = pd.read_json(path, lines=True)
    if not is_ref:
        if "hard_labels" not in frame.columns:
            frame["hard_labels"] = frame["soft_labels"].apply(_derived_hard)
        elif "soft_labels" not in frame.columns:
            frame["soft_labels"] = frame["hard_labels"].apply(
                lambda hard: [{"start": s, "end": e, "prob": 1.0} for s, e in hard])
    if is_ref:
        frame["text_len"] = frame["model_output_text"].apply(len)
    columns = ["id", "soft_labels", "hard_labels"] + (["text_len"] if is_ref else [])
    return frame[columns].sort_values("id").to_dict(orient="records")


def _iou(ref: dict, pred: dict) -> float:
    a = {i for span in ref["hard_labels"] for i in range(*span)}
    b = {i for span in pred["hard_labels"] for i in range(*span)}
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def _cor(ref: dict, pred: dict) -> float:
    vectors = []
    for side in (ref, pred):
        vector = [0.0] * ref["text_len"]
        for span in side["soft_labels"]:
            for i in range(span["start"], span["end"]):
                vector[i] = span["prob"]
        vectors.append(vector)
    distinct = [len({round(x, 8) for x in v}) for v in vectors]
    if 1 in distinct:
        return float(distinct[0] == distinct[1])
    return scipy_stats.spearmanr(*vectors).correlation


def official_output(ref_path: Path, pred_path: Path) -> str:
    refs, preds = _records(ref_path, True), _records(pred_path, False)
    assert len(refs) == len(preds)
    for r, p in zip(refs, preds):
        assert r["id"] == p["id"]
    ious = np.array([_iou(r, p) for r, p in zip(refs, preds)])
    cors = np.array([_cor(r, p) for r, p in zip(refs, preds)])
    return f"IoU: {ious.mean():.8f}\nCor: {cors.mean():.8f}\n"


# ----------------------------------------------------------------------- the files

def test_the_folder():
    assert len(ROWS) == 187 and {r["status"] for r in ROWS} == {"ok"}
    main = [r for r in ROWS if not r["file"].startswith("variants/")]
    assert len(main) == 46 and set(MANIFEST) == {r["file"] for r in main}
    # more/ holds other teams' files with an OFFICIAL.csv of its own (test_more_file below).
    files = {str(p.relative_to(SYSTEMS)) for p in SYSTEMS.rglob("*.jsonl")
             if p.relative_to(SYSTEMS).parts[0] != "more"}
    assert files == {r["file"] for r in ROWS}
    # 16 of the 46 print another Cor when read exactly (all NCL-UoR), IoU on none
    moved = [f for f, m in MANIFEST.items() if m["cor_mine"] != m["cor_mine_python_json"]]
    assert len(moved) == 16 and all(f.startswith("NCL-UoR/") for f in moved)


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_file(row, tmp_path):
    ref, pred = _ref(row["lang"]), SYSTEMS / row["file"]
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", ref, pred, out])
    if row["file"] in INVALID:
        _check_rejected(pred, status, stdout, stderr, out)
        return
    expected = official_output(ref, pred)
    assert expected == _printed(row)
    assert (status, stdout, stderr) == (0, "", "")
    assert out.read_text(encoding="utf-8") == expected
    result = score_files(ref, pred)
    assert result.printed == expected
    frame = mycelium.read_mushroom(pred)
    if frame["hard_labels"].notna().all() and frame["soft_labels"].notna().all():
        _check_frame(row, frame, expected)
    if row["file"] in MANIFEST:
        exact = score_files(ref, pred, float_parse="exact").printed
        assert exact == f"IoU: {row['IoU']}\nCor: {MANIFEST[row['file']]['cor_mine_python_json']}\n"
        assert run_cli(["mushroom", "--float-parse", "exact", ref, pred]) == (0, exact, "")


def _check_frame(row: dict, preds: pd.DataFrame, expected: str) -> None:
    """read_mushroom + mycelium.evaluate under mu_shroom: the official numbers too."""
    refs = mycelium.read_mushroom(_ref(row["lang"]))
    order = {i: k for k, i in enumerate(preds["id"])}
    at = [order[i] for i in refs["id"]]
    report = mycelium.evaluate(
        refs["hard_labels"], preds["hard_labels"].take(at).reset_index(drop=True),
        text=refs["model_output_text"], profile="mu_shroom", metrics=["iou", "soft_spearman"],
        soft_references=refs["soft_labels"],
        soft_predictions=preds["soft_labels"].take(at).reset_index(drop=True))
    got = f"IoU: {report['iou']['score']:.8f}\nCor: {report['soft_spearman']['score']:.8f}\n"
    assert got == expected
    assert "|float_parse:pandas-fast|" in report["meta"]["signature"]


def _check_rejected(pred: Path, status, stdout, stderr, out) -> None:
    assert status == 1 and stdout == "" and not out.exists()
    line = stderr.strip()
    assert len(stderr.splitlines()) == 1 and line.startswith("mycelium: error:")
    for fragment in (str(pred), ", line ", "field '", ", span ",
                     "format checker's rule 0 <= start < end <= len(model_output_text)",
                     "0 <= start and start < end fail"):
        assert fragment in line, (fragment, line)
    if "field 'hard_labels'" in line:
        assert "[-1, -1)" in line
    else:  # a soft span without a prob
        assert "'start': -1, 'end': -1}" in line and "It has no 'prob'" in line
    with pytest.raises(mycelium.SpanValidationError, match=r"\.jsonl:\d+: field '(hard|soft)"
                                                           r"_labels', span \d+: .*format "
                                                           r"checker's rule"):
        mycelium.read_mushroom(pred)


def test_invalid_files_and_the_rules_they_break():
    """How many files hold spans the checker rejects, and of which kind (SOURCE.md: 9)."""
    found = {}
    for row in ROWS:
        hard = soft = no_prob = 0
        for record in pd.read_json(SYSTEMS / row["file"], lines=True).to_dict("records"):
            hard += sum(not 0 <= s < e for s, e in record.get("hard_labels") or [])
            for span in record.get("soft_labels") or []:
                soft += not 0 <= span["start"] < span["end"]
                no_prob += "prob" not in span or span["prob"] != span["prob"]
        if hard or soft or no_prob:
            found[row["file"]] = (hard, soft, no_prob)
    assert set(found) == INVALID
    # every bad soft span is one without a prob, at [-1, -1)
    assert all(soft == no_prob > 0 and hard > 0 for hard, soft, no_prob in found.values())
    assert sum(h for h, _, _ in found.values()) == 64
    assert sum(n for _, _, n in found.values()) == 74
    with pytest.raises(MushroomInputError):
        score_files(_ref("es"), SYSTEMS / "variants/MSA/es.01.jsonl")


# ------------------------------------------------------------ the scorer itself (opt-in)

SCORER = os.environ.get("MYCELIUM_MUSHROOM_SCORER", "")


@pytest.mark.skipif(not SCORER, reason="MYCELIUM_MUSHROOM_SCORER is not set to a copy of "
                                       "participant_kit/scorer.py: the scorer itself is not run")
def test_the_scorer_itself(tmp_path):
    # One test over every file (the scorer's source cannot ship with the tests, so this
    # runs only where a copy is named), in a fresh process each.
    for k, row in enumerate(ROWS):
        out = tmp_path / f"official-{k}.txt"
        subprocess.run([sys.executable, SCORER, str(_ref(row["lang"])),
                        str(SYSTEMS / row["file"]), str(out)], check=True, capture_output=True)
        assert out.read_text(encoding="utf-8") == _printed(row), row["file"]
        assert official_output(_ref(row["lang"]), SYSTEMS / row["file"]) == _printed(row), \
            row["file"]
