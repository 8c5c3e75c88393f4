"""Writes tests/golden/align_cases.json: the first case of each (scheme, perturbation)
pair of the shared oracle's align_cases.json, with the source file's sha256 as provenance.

Run from the project root: ``python tests/adapters/build_align_golden.py ORACLE_DIR``.
"""

import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "golden" / "align_cases.json"


def build(oracle_dir: Path) -> dict:
    src = oracle_dir / "align_cases.json"
    raw = src.read_bytes()
    data = json.loads(raw)
    picked, seen = [], set()
    for case in data["cases"]:
        key = (case["scheme"], case["perturbation"])
        if key not in seen:
            seen.add(key)
            picked.append(case)
    return {"provenance": {"source_file": "../shared/oracle/align_cases.json",
                           "source_sha256": hashlib.sha256(raw).hexdigest(),
                           "source_bytes": len(raw),
                           "selection": "the first case of each (scheme, perturbation)",
                           "schema": data["schema"]},
            "cases": picked}


if __name__ == "__main__":
    golden = build(Path(sys.argv[1]))
    OUT.write_text(json.dumps(golden, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(golden['cases'])} cases -> {OUT}")
