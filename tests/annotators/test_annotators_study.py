"""`mycelium.annotators` reproduces the validation study's inter-annotator numbers on the
real Mu-SHROOM files (skipped without MYCELIUM_MUSHROOM_DIR).

The study's numbers are frozen in tests/golden/annotators_study.json (built by
tests/golden/build_annotators_golden.py from validation/results/, see its provenance).
The study clips spans past the text, so ``past_end="clip"`` here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import mycelium
from mycelium import annotators as A

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "annotators_study.json")
                    .read_text("utf-8"))
TABLES = GOLDEN["tables"]
#: The study averages per-pair Cor with pandas, mycelium with an exact mean: an ulp apart.
TOL = 1e-12
PATTERNS = ("mushroom.*-val.v2*.jsonl", "mushroom.*-tst.v1*.jsonl")


@pytest.fixture(scope="module")
def items(mushroom_dir):
    files = sorted({p for pat in PATTERNS for p in mushroom_dir.rglob(pat)})
    df = mycelium.read_mushroom(files)
    df["lang"] = df["lang"].str.upper()
    return df


def _wide(tidy, keys):
    tidy = tidy.assign(key=tidy["metric"] + "_" + tidy["measure"])
    tidy["key"] = tidy["key"].replace({"soft_spearman_score": "cor"})
    out = {}
    for row in tidy.itertuples(index=False):
        group = tuple(getattr(row, k) for k in keys)
        out.setdefault(group, {"examples": row.examples})[row.key] = row.value
    return out


def _check(got, table, keys):
    rows = TABLES[table]["rows"]
    assert len(got) == len(rows), table
    for want in rows:
        group = tuple(want[k] for k in keys)
        values = got[group]
        assert values["examples"] == want["examples"], (table, group)
        for name, value in want.items():
            if name in keys or name == "examples":
                continue
            assert math.isclose(values[name], value, rel_tol=0, abs_tol=TOL), \
                (table, group, name, values[name], value)


@pytest.mark.parametrize("by", [["lang"], ["lang", "annotator"]], ids=["lang", "annotator"])
def test_pairwise_agreement_matches_the_study(items, by):
    got = _wide(A.pairwise_agreement(items, by=by, past_end="clip"), by)
    _check(got, "pairwise" if by == ["lang"] else "pairwise_by_annotator", by)


@pytest.mark.parametrize("by", [["lang"], ["lang", "annotator"]], ids=["lang", "annotator"])
def test_leave_one_out_matches_the_study(items, by):
    got = _wide(A.leave_one_out(items, by=by, past_end="clip"), by)
    _check(got, "vs_loo" if by == ["lang"] else "vs_loo_by_annotator", by)


def test_majority_and_vote_share_match_the_published_labels_as_the_study_found(items):
    majority = A.majority_reference(items, past_end="clip")
    soft = A.soft_reference(items, past_end="clip")
    want = {r["lang"]: r for r in TABLES["recompute_check"]["rows"]}
    for lang, group in items.groupby("lang"):
        idx = group.index
        report = mycelium.evaluate(
            group["hard_labels"], majority[idx], text=group["model_output_text"].tolist(),
            profile="mu_shroom", metrics=["iou", "soft_spearman"],
            soft_references=group["soft_labels"].tolist(), soft_predictions=soft[idx].tolist())
        row = want[lang]
        assert report["meta"]["examples"] == row["items"]
        assert report["iou"]["score"] == pytest.approx(row["iou_raw_majority_vs_hard"],
                                                       abs=TOL)
        assert report["soft_spearman"]["score"] == pytest.approx(
            row["cor_raw_fraction_vs_soft"], abs=TOL)
        same = np.mean([a == b for a, b in zip(group["hard_labels"].tolist(),
                                                majority[idx].tolist())])
        assert same == row["share_hard_equal"]


def test_results_name_the_release(items):
    out = A.leave_one_out(items.head(30), metrics=["iou"], soft=False, past_end="clip")
    parsed = mycelium.parse_signature(out.attrs["mycelium_signature"])
    assert parsed["dataset"]["name"] == "mu_shroom"
    assert parsed["annotators"] == "leave_one_out:0.5:gt"


def test_zero_length_annotator_spans_are_counted(items, mushroom_dir):
    # The released annotations list zero-length spans ([69, 69]): dropped (they carry no
    # characters) but counted, as the raw JSON lines hold them.
    files = sorted({p for pat in PATTERNS for p in mushroom_dir.rglob(pat)})
    raw = 0
    for path in files:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                for spans in (json.loads(line).get("annotations") or {}).values():
                    bounds = [(s["start"], s["end"]) if isinstance(s, dict) else tuple(s)
                              for s in spans or []]
                    raw += sum(1 for start, end in bounds if start == end)
    table = A.annotator_table(items, past_end="clip")
    assert raw > 0
    assert table.attrs["mycelium_annotators"]["empty_spans"] == raw
