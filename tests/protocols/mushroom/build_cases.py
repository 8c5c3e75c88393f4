"""Build the committed Mu-SHROOM golden selection from the shared oracle file (stdlib only).

Usage (from the project root)::

    python tests/protocols/mushroom/build_cases.py [ORACLE_DIR]

ORACLE_DIR defaults to ``$MYCELIUM_ORACLE_DIR``, else ``../shared/oracle`` next to the
project root. It must hold ``mushroom_cases.json`` (outputs of the UNMODIFIED official
scorer, see that file's ``schema`` and ``provenance``). Two files are written next to
this script:

``cases.json``
    ONLY the ``edge`` and ``random`` cases, copied verbatim (texts, hard and soft labels,
    the prediction records or ``raw_lines``, ``pred_fields``, ``expected``: printed text,
    per-example values, error status). Their references are synthetic inline records;
    the ``official`` cases (whose references are the official data in ``ref_sets``) and
    ``ref_sets`` itself are left out, so no official data is committed.

``leaderboard_baselines.json``
    The 28 published leaderboard baselines (``cross_checks.leaderboard_baselines``:
    "mark all" / "mark none" per test language) with the oracle's exact values, so the
    baseline test needs only the data directory, not the oracle.

The output is deterministic: rerunning on the same oracle file gives identical bytes
(test_mushroom_full_oracle.py checks that when MYCELIUM_ORACLE_DIR is set).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_NAME = "mushroom_cases.json"
SELECTED_GROUPS = ("edge", "random")
CASES_OUT = HERE / "cases.json"
BASELINES_OUT = HERE / "leaderboard_baselines.json"


def default_oracle_dir() -> Path:
    value = os.environ.get("MYCELIUM_ORACLE_DIR", "")
    if value:
        return Path(value)
    return HERE.parents[3] / "shared" / "oracle"


def load_source(oracle_dir) -> tuple[dict, str]:
    """The oracle file's content and the sha256 of its bytes."""
    raw = (Path(oracle_dir) / SOURCE_NAME).read_bytes()
    return json.loads(raw.decode("utf-8")), hashlib.sha256(raw).hexdigest()


def _source_note(src: dict, sha256: str) -> dict:
    prov = src["provenance"]
    return {
        "file": "../shared/oracle/" + SOURCE_NAME,
        "sha256": sha256,
        "scorer": prov["scorer"],
        "scorer_env": prov["env"],
        "method": prov["method"],
    }


def build_cases(src: dict, sha256: str) -> dict:
    cases = [c for c in src["cases"] if c["group"] in SELECTED_GROUPS]
    for c in cases:
        # Synthetic inline references only: nothing from the official data files.
        assert "records" in c["ref"] and "ref_set" not in c["ref"], c["case_id"]
    counts = Counter("%s/%s" % (c["group"], c["expected"]["status"]) for c in cases)
    return {
        "provenance": {
            "built_by": "tests/protocols/mushroom/build_cases.py",
            "source": _source_note(src, sha256),
            "selection": ("every case of the source whose group is 'edge' or 'random' "
                          "(synthetic inline references), copied verbatim in source "
                          "order; 'official' cases and 'ref_sets' (official data) are "
                          "left out"),
            "source_case_counts": dict(sorted(Counter(
                "%s/%s" % (c["group"], c["expected"]["status"])
                for c in src["cases"]).items())),
            "case_counts": dict(sorted(counts.items())),
            "schema": src["schema"],
            "split_note": src.get("split_note", ""),
        },
        "cases": cases,
    }


def build_baselines(src: dict, sha256: str) -> dict:
    keep = ("lang", "baseline", "case_id", "leaderboard_iou", "leaderboard_cor",
            "oracle_iou", "oracle_cor")
    rows = [{k: row[k] for k in keep} for row in src["cross_checks"]["leaderboard_baselines"]]
    return {
        "provenance": {
            "built_by": "tests/protocols/mushroom/build_cases.py",
            "source": _source_note(src, sha256),
            "from": "cross_checks.leaderboard_baselines of the source file",
            "leaderboard_source": src["provenance"]["leaderboard_source"],
            "data": src["provenance"]["data"],
            "meaning": ("leaderboard_iou/_cor: the published official test ranking values "
                        "(6 significant digits); oracle_iou/_cor: the unmodified official "
                        "scorer's means on the labeled test file "
                        "splits/test_labeled/v1/mushroom.<lang>-tst.v1.extra.jsonl with a "
                        "prediction holding only hard_labels: 'mark all' = one span "
                        "[0, len(model_output_text)) per record, 'mark none' = []"),
        },
        "baselines": rows,
    }


def dump(obj) -> str:
    """Indented provenance; one compact line per case / baseline (diff-friendly)."""
    head = {k: v for k, v in obj.items() if not isinstance(v, list)}
    (key, items), = [(k, v) for k, v in obj.items() if isinstance(v, list)]
    text = json.dumps(head, ensure_ascii=False, indent=1)
    body = ",\n".join(json.dumps(item, ensure_ascii=False) for item in items)
    return "%s,\n %s: [\n%s\n]}\n" % (text[:-2], json.dumps(key), body)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    oracle_dir = Path(argv[0]) if argv else default_oracle_dir()
    src, sha256 = load_source(oracle_dir)
    cases = build_cases(src, sha256)
    baselines = build_baselines(src, sha256)
    CASES_OUT.write_text(dump(cases), encoding="utf-8")
    BASELINES_OUT.write_text(dump(baselines), encoding="utf-8")
    print("%s: %d cases %s" % (CASES_OUT.name, len(cases["cases"]),
                               cases["provenance"]["case_counts"]))
    print("%s: %d baselines" % (BASELINES_OUT.name, len(baselines["baselines"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
