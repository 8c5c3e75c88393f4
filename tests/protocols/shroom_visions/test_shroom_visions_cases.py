"""The SHROOM-Visions drop-in against the kit's scorer on the committed golden cases.

``cases.json`` holds file pairs and what the kit's ``scorer.py`` (sckwokyboom/
Vision-Hallucination-Detector @ 0db49dc, ``scripts/official/official_scorer.py``) printed,
wrote and refused, and its per-item scores (see ``build_visions_cases.py``, which made them by
running the kit). Cor and IoU must be the kit's to the last bit; Cor lbl too up to the
order of a sum the kit takes in hash order (see `mycelium.metrics.typed_soft`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mycelium.protocols.shroom_visions import VisionsInputError, score_files

DOC = json.loads((Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))
CASES = DOC["cases"]
KIT_NUMBERS = ("Cor    : ", "IoU    : ", "Cor lbl: ", "acc    : ", "f1     : ",
               "prec   : ", "rec    : ")


def _files(tmp_path, case, *, raw=True):
    ref, pred = tmp_path / "ref.jsonl", tmp_path / "pred.jsonl"
    gold = case["gold"]
    if not raw:
        gold = [json.dumps({k: v for k, v in json.loads(x).items() if k != "raw_annots"})
                for x in gold]
    ref.write_text("".join(x + "\n" for x in gold), encoding="utf-8")
    pred.write_text("".join(x + "\n" for x in case["pred"]), encoding="utf-8")
    return ref, pred


def _same(ours, theirs: list[str], *, ulps=0):
    theirs = [float(x) for x in theirs]
    assert len(ours) == len(theirs)
    for a, b in zip(ours.tolist(), theirs):
        if math.isnan(b):
            assert math.isnan(a)
        elif ulps:
            assert abs(a - b) <= ulps * math.ulp(max(abs(b), 1.0)), (a, b)
        else:
            assert a == b, (a, b)


def test_cases_cover_every_rule():
    names = {c["name"] for c in CASES}
    for needed in ("pred_last_wins_ab", "gold_overlap_sum", "near_tie", "empty_union",
                   "prob_zero_iou", "partial_submission", "fast_float",
                   "constant_gold_zero_pred_const", "constant_gold_const_pred_const",
                   "constant_gold_const_pred_zero", "constant_one_side",
                   "refuse_prob_int", "refuse_label_lower", "refuse_extra_id",
                   "refuse_duplicate_id"):
        assert needed in names
    assert DOC["provenance"]["commit"].startswith("0db49dc")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case, tmp_path):
    kit = case["kit"]
    ref, pred = _files(tmp_path, case)
    if kit["refused"] is not None:
        with pytest.raises(VisionsInputError) as err:
            score_files(ref, pred)
        assert err.value.rule
        return
    result = score_files(ref, pred)
    assert result.ids == kit["ids"]
    _same(result.cor, kit["cor"])
    _same(result.iou, kit["iou"])
    _same(result.cor_lbl, kit["cor_lbl"], ulps=4)
    printed = [x for x in kit["stdout"].splitlines() if x.startswith(KIT_NUMBERS)]
    assert result.printed.splitlines() == printed
    assert result.written == kit["out"]
    # The gold as published, without raw_annots: the same numbers, no classification.
    bare = score_files(*_files(tmp_path, case, raw=False))
    assert bare.printed.splitlines() == printed[:3]
    assert bare.written == kit["out"]
    np.testing.assert_array_equal(bare.cor, result.cor)
