"""Other teams' real files (``mushroom_systems/more/``): ``mycelium mushroom`` prints what the
official scorer printed for each, or refuses where it refused.

The folder (see its SOURCE.md) holds 4 predictions of three more teams (word-level spans, many
adjacent and some overlapping; soft labels with an integer ``prob`` 0; unsorted hard spans with
zero-length ``[0, 0]`` spans), 4 partial work files the official scorer refuses (duplicate or
missing ids) and 1 file that is not JSON lines. Its ``OFFICIAL.csv`` is what
``participant_kit/scorer.py`` printed for each, run locally; its ``gold`` column names the
reference under ``shared/data/mushroom/``.
"""

from __future__ import annotations

import csv

import pytest

from _data_dirs import SYSTEMS_ENV, data_folder
from _mushroom_support import run_cli

SYSTEMS, NO_SYSTEMS = data_folder(SYSTEMS_ENV)
DATA, NO_DATA = data_folder("MYCELIUM_MUSHROOM_DIR")
MORE = SYSTEMS / "more" if SYSTEMS is not None else None
HAVE = MORE is not None and (MORE / "OFFICIAL.csv").is_file() and DATA is not None
pytestmark = pytest.mark.skipif(not HAVE, reason=NO_SYSTEMS or NO_DATA
                                or "mushroom_systems/more/OFFICIAL.csv is not there")

ROWS = list(csv.DictReader(open(MORE / "OFFICIAL.csv", encoding="utf-8"))) if HAVE else []
GOLD_PREFIX = "shared/data/mushroom/"


def test_the_folder():
    assert len(ROWS) == 9
    assert sorted(r["status"] for r in ROWS).count("refused") == 5
    assert {p.relative_to(MORE).as_posix() for p in MORE.rglob("*.jsonl")} == \
        {r["file"] for r in ROWS}


@pytest.mark.parametrize("row", ROWS, ids=[r["file"] for r in ROWS])
def test_more_file(row, tmp_path):
    assert row["gold"].startswith(GOLD_PREFIX)
    ref, pred = DATA / row["gold"][len(GOLD_PREFIX):], MORE / row["file"]
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", ref, pred, out])
    if row["status"] == "ok":
        assert (status, stdout) == (0, "")
        assert out.read_text(encoding="utf-8") == f"IoU: {row['IoU']}\nCor: {row['Cor']}\n"
    else:
        assert status != 0 and stdout == "" and not out.exists()
        errors = [line for line in stderr.splitlines() if line.startswith("mycelium: error:")]
        assert len(errors) == 1, stderr
