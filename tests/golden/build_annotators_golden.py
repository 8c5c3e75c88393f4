"""Build tests/golden/annotators_study.json: the validation study's inter-annotator numbers.

Copies, per language (and per language and annotator), the numbers the study
(``python -m validation.run``) wrote to validation/results/ for part 1 — annotators
against each other, against the leave-one-out majority, and the raw majority / vote
share against the published labels — so `mycelium.annotators` can be checked against
them on the real files even after the study's code changes. Standard library only.

Usage (from the project root)::

    python tests/golden/build_annotators_golden.py
"""

import csv
import hashlib
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join("validation", "results")
TABLES = {
    "pairwise": ("annotators_pairwise.csv", ["lang"]),
    "pairwise_by_annotator": ("annotators_pairwise_by_annotator.csv", ["lang", "annotator"]),
    "vs_loo": ("annotators_vs_loo.csv", ["lang"]),
    "vs_loo_by_annotator": ("annotators_vs_loo_by_annotator.csv", ["lang", "annotator"]),
    "recompute_check": ("recompute_check.csv", ["lang"]),
}
POOLED = ("ALL", "MEAN")  # rows scoring all languages together, or averaging them


def _number(text):
    return int(text) if text.lstrip("-").isdigit() else float(text)


def table(name, keys):
    path = os.path.join(ROOT, RESULTS, name)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["lang"] not in POOLED]
    with open(path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    out = [{k: (v if k in keys else _number(v)) for k, v in r.items()} for r in rows]
    return {"file": f"{RESULTS}/{name}".replace(os.sep, "/"), "sha256": digest,
            "rows": out}


def main():
    commit = subprocess.run(["git", "log", "-1", "--format=%H", "--", RESULTS], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.strip()
    manifest = json.load(open(os.path.join(ROOT, RESULTS, "manifest.json"), encoding="utf-8"))
    golden = {
        "provenance": {
            "what": "validation study part 1 (validation/annotators.py), per-language rows",
            "results_commit": commit,
            "study_signature": manifest["signature"],
            "data_files": manifest["files"],
            "study_decisions": "spans past the text clipped (past_end='clip'); zero-length "
                               "and duplicate spans dropped; each annotator's spans merged "
                               "before votes are counted; LOO majority > half of the others",
        },
        "tables": {k: table(*v) for k, v in TABLES.items()},
    }
    with open(os.path.join(HERE, "annotators_study.json"), "w", encoding="utf-8") as fh:
        json.dump(golden, fh, separators=(",", ":"))
        fh.write("\n")


if __name__ == "__main__":
    main()
