"""The LettuceDetect page's comparison, computed from the files: one real Mu-SHROOM submission
scored under ``ragtruth`` and ``lettucedetect`` side by side, and the count of real
submissions whose numbers the pairwise character rule moves.

The references are the Mu-SHROOM test files (``MYCELIUM_MUSHROOM_DIR``); the submissions
are the real system outputs beside them (``mushroom_systems`` in the same data folder,
SOURCE.md there gives their provenance). Skipped with the reason when either is absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mycelium

PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "lettucedetect.md"
SUBMISSION = "MSA/sv.cor_best.jsonl"


@pytest.fixture(scope="module")
def systems(mushroom_dir) -> Path:
    path = mushroom_dir.parent / "mushroom_systems"
    if not (path / "MANIFEST.csv").is_file():
        pytest.skip(f"{path} holds no MANIFEST.csv: the real Mu-SHROOM submissions sit "
                    "beside the Mu-SHROOM data folder.")
    return path


def _paired(mushroom_dir: Path, submission: Path):
    lang = submission.name.split(".")[0]
    ref = mycelium.read_mushroom(mushroom_dir / "splits" / "test_labeled" / "v1" /
                                 f"mushroom.{lang}-tst.v1.extra.jsonl")
    pred = mycelium.read_mushroom(submission)
    both = ref.merge(pred, on="id", suffixes=("_ref", "_pred"), validate="one_to_one")
    assert len(both) == len(ref) == len(pred)
    return both


def _scores(both, profile):
    metrics = ["character", "response_level"] if profile == "ragtruth" else None
    report = mycelium.evaluate(both["hard_labels_ref"], both["hard_labels_pred"],
                               text=both["model_output_text_ref"], profile=profile,
                               metrics=metrics)
    st = mycelium.statistics(both["hard_labels_ref"], both["hard_labels_pred"],
                             metrics=["character"],
                             params=report["meta"]["params"])["character"]
    return report, {k: int(v.sum()) for k, v in st.items()}


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("## Compared with `ragtruth`")
    return text[start:text.index("\n## ", start + 1)]


def test_the_side_by_side_table(mushroom_dir, systems):
    both = _paired(mushroom_dir, systems / SUBMISSION)
    (rt, rt_counts), (ld, ld_counts) = _scores(both, "ragtruth"), _scores(both, "lettucedetect")
    assert set(ld) - {"meta"} == {"character", "response_level"}
    want = {
        "character precision": (rt["character"]["precision"], ld["character"]["precision"]),
        "character recall": (rt["character"]["recall"], ld["character"]["recall"]),
        "character F1": (rt["character"]["f1"], ld["character"]["f1"]),
        "response level F1": (rt["response_level"]["f1"], ld["response_level"]["f1"]),
    }
    section = re.sub(r"[ \n]+", " ", _section())
    assert f"test set, {len(both)} answers" in section
    for label, (a, b) in want.items():
        assert f"| {label} | {a:.4f} | {b:.4f} |" in section, label
    counts = " | ".join(f"{c['tp']:,} / {c['fp']:,} / {c['fn']:,}" for c in (rt_counts,
                                                                             ld_counts))
    assert f"| character Σ tp / fp / fn | {counts} |" in section
    # The rule that makes the difference: the pairwise counts of one answer.
    shared = ld_counts["tp"] - rt_counts["tp"]
    assert f"whose {shared:,} shared characters" in section
    assert ld_counts["fp"] == rt_counts["fp"]  # the double counts add to both sums
    assert f"recall by {ld['character']['recall'] - rt['character']['recall']:.2f}" in section
    one = both[both["id"] == "tst-sv-109"]
    spans = one["hard_labels_pred"].iloc[0]
    assert len(spans) == 31 and len(one["model_output_text_ref"].iloc[0]) == 2112
    rest = both[both["id"] != "tst-sv-109"]
    (r1, _), (l1, _) = _scores(rest, "ragtruth"), _scores(rest, "lettucedetect")
    assert r1["character"] == l1["character"]  # every other answer agrees


def _overlapping(spans) -> bool:
    pairs = sorted((s["start"], s["end"]) for s in spans)
    return any(b[0] < a[1] for a, b in zip(pairs, pairs[1:]))


def test_the_count_over_every_real_submission(mushroom_dir, systems):
    files = sorted(systems.glob("*/*.jsonl"))
    differ, gaps, same_response = [], [], 0
    for path in files:
        both = _paired(mushroom_dir, path)
        assert not any(_overlapping(r) for r in both["hard_labels_ref"])
        (rt, _), (ld, _) = _scores(both, "ragtruth"), _scores(both, "lettucedetect")
        same_response += rt["response_level"] == ld["response_level"]
        overlap = any(_overlapping(p) for p in both["hard_labels_pred"])
        if rt["character"] != ld["character"]:
            differ.append(path)
            gaps.append(ld["character"]["f1"] - rt["character"]["f1"])
        assert (rt["character"] != ld["character"]) == overlap, path
    section = re.sub(r"\s+", " ", _section())
    assert f"of the {len(files)} real submissions" in section
    assert f"the {len(differ)} with an answer whose predicted spans overlap" in section
    assert f"(F1 higher by {min(gaps):.4f} to {max(gaps):.4f})" in section
    assert same_response == len(files) and f"the same in all {len(files)}" in section
