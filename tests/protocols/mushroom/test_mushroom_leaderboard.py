"""The 28 published Mu-SHROOM leaderboard baselines, on the official labeled test files.

"mark all" predicts one hard span [0, len(text)) per record, "mark none" predicts [];
the prediction files hold only ``hard_labels``, so soft labels are derived (prob 1.0).
They are scored against ``$MYCELIUM_MUSHROOM_DIR/splits/test_labeled/v1/
mushroom.<lang>-tst.v1.extra.jsonl``. The printed text must be the official scorer's
byte for byte, the means must round to the leaderboard's published 6 significant digits,
and they must equal the official means (oracle_iou / oracle_cor, copied with provenance
into leaderboard_baselines.json) exactly: `mycelium.protocols.mushroom` keeps the official scorer's
numpy mean in id order for the file score. Skipped when MYCELIUM_MUSHROOM_DIR is unset.
"""

import json
import math
from pathlib import Path

import pytest

from _mushroom_support import env_dir, load_baselines, run_cli, write_lines
from mycelium.protocols.mushroom import format_scores, score_files

ENV = "MYCELIUM_MUSHROOM_DIR"
DATA_DIR, REASON = env_dir(ENV)
needs_data = pytest.mark.skipif(
    DATA_DIR is None,
    reason="%s: set %s to the Mu-SHROOM data folder (e.g. ../shared/data/mushroom) to "
           "score the leaderboard baselines" % (REASON, ENV))

BASELINES = load_baselines()["baselines"]
MEAN_ULPS = 0  # the file score is the official numpy mean, bit for bit
LANGS = ("ar", "ca", "cs", "de", "en", "es", "eu", "fa", "fi", "fr", "hi", "it", "sv", "zh")


def test_the_28_baselines_are_all_here():
    """The committed numbers (no data needed): 14 languages x mark all / mark none."""
    assert len(BASELINES) == 28
    assert sorted((b["lang"], b["baseline"]) for b in BASELINES) == sorted(
        (lang, kind) for lang in LANGS for kind in ("mark all", "mark none"))


def _prediction(ref: Path, kind: str, out: Path) -> Path:
    lines = []
    for line in ref.read_text("utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            spans = [[0, len(record["model_output_text"])]] if kind == "mark all" else []
            lines.append(json.dumps({"id": record["id"], "hard_labels": spans}))
    return write_lines(out, lines)


def _six(x: float) -> float:
    return float("%.6g" % x)


@needs_data
@pytest.mark.parametrize("row", BASELINES, ids=["%s-%s" % (b["lang"], b["baseline"].replace(
    " ", "_")) for b in BASELINES])
def test_leaderboard_baseline(row, tmp_path):
    ref = DATA_DIR / "splits" / "test_labeled" / "v1" / (
        "mushroom.%s-tst.v1.extra.jsonl" % row["lang"])
    pred = _prediction(ref, row["baseline"], tmp_path / ("%s.jsonl" % row["lang"]))
    result = score_files(ref, pred)
    for got, want in ((result.iou_mean, row["oracle_iou"]), (result.cor_mean, row["oracle_cor"])):
        assert got == want or abs(got - want) <= MEAN_ULPS * math.ulp(want), (got, want)
    assert _six(result.iou_mean) == row["leaderboard_iou"]
    assert _six(result.cor_mean) == row["leaderboard_cor"]
    out = tmp_path / "out.txt"
    assert run_cli(["mushroom", ref, pred, out]) == (0, "", "")
    assert out.read_text("utf-8") == format_scores(row["oracle_iou"], row["oracle_cor"])
