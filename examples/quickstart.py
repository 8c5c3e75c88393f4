"""Score the example detectors under every convention at once.

Reads ``examples/data/detections.jsonl`` (one row per example and detector), scores each
detector with `mycelium.evaluate` under the Mu-SHROOM profile (macro) and the RAGTruth
profile (micro), and prints one aligned table: the same detector output read under each
benchmark's convention, side by side.

Run: ``python examples/quickstart.py [path/to/detections.jsonl]``
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import mycelium

COLUMNS = [("iou", "score"), ("character", "f1"), ("exact_span", "f1"),
           ("deteval_1d", "f1"), ("cleval_1d", "f1"), ("span_coverage", "f1")]


def load(path: Path) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            groups[row["detector"]].append(row)
    return groups


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path(__file__).parent / "data" / "detections.jsonl"
    groups = load(path)
    header = ["detector", "profile", "n"] + [f"{m}.{k}" for m, k in COLUMNS]
    lines = [header]
    for detector, rows in sorted(groups.items()):
        for profile in ("mu_shroom", "ragtruth"):
            report = mycelium.evaluate(
                [r["ref_spans"] for r in rows], [r["pred_spans"] for r in rows],
                text=[r["text"] for r in rows], profile=profile)
            values = [f"{report[m][k]:.4f}" for m, k in COLUMNS]
            lines.append([detector, f"{profile} ({report['meta']['average']})",
                          str(report["meta"]["examples"])] + values)
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    for i, row in enumerate(lines):
        print("  ".join(cell.ljust(w) if j < 2 else cell.rjust(w)
                        for j, (cell, w) in enumerate(zip(row, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print(f"\nsignature ({path.name}, last row): {report['meta']['signature']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
