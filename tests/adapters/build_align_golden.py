"""Writes tests/golden/align_cases.json: the first case of each (scheme, perturbation)
pair of the shared oracle's align_cases.json, with the source file's sha256 as provenance;
and tests/golden/align_unknown_cases.json: the oracle's four '[UNK]' cases with their
expectations regenerated under SPEC section 9's unknown-token rule (`regenerate_unknown`).

Run from the project root: ``python tests/adapters/build_align_golden.py ORACLE_DIR``.
"""

import hashlib
import json
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
OUT = GOLDEN / "align_cases.json"
OUT_UNKNOWN = GOLDEN / "align_unknown_cases.json"
# The public cases generated when unknown tokens were zero-length (SPEC section 9 names them).
UNKNOWN_CASES = ("align-0010", "align-0022", "align-0170", "align-0298")


def _provenance(raw: bytes, data: dict, selection: str) -> dict:
    return {"source_file": "../shared/oracle/align_cases.json",
            "source_sha256": hashlib.sha256(raw).hexdigest(),
            "source_bytes": len(raw), "selection": selection, "schema": data["schema"]}


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
    return {"provenance": _provenance(raw, data, "the first case of each (scheme, "
                                                 "perturbation)"),
            "cases": picked}


def regenerate_unknown(case: dict) -> dict:
    """The case's expectations under SPEC section 9's rule for unknown tokens, derived
    from its cut-out offsets (the oracle's expectations for every other token).

    These are WordPiece cuts where '[UNK]' replaced an emoji word. A run of '[UNK]'
    covers the text from the previous token's tiling end to the next content token's
    start (the end of the text when none follows); k of them share it one
    whitespace-separated word each, the last taking the rest (every word in these runs
    is one character cluster), the tiling of each running from where the previous one's
    ends to its word's end (the last one's to the run's end); trimmed, each covers its
    word(s). The content token after a run starts
    its tiling at its own start (the run covers the whitespace before it); special and
    absent tokens get (p, p), p the previous token's tiling end; '[UNK]' tokens are of
    class 'unknown'.
    """
    text, toks = case["text"], case["tokens"]
    trimmed = [list(x) for x in case["expected_trimmed"]]
    tiling = [list(x) for x in case["expected_tiling"]]
    classes = list(case["token_class"])
    i = 0
    while i < len(toks):
        if toks[i] != "[UNK]":
            i += 1
            continue
        j = i
        while j < len(toks) and toks[j] == "[UNK]":
            j += 1
        a = tiling[i - 1][1] if i else 0
        nxt = next((m for m in range(j, len(toks)) if classes[m] == "content"), None)
        b = trimmed[nxt][0] if nxt is not None else len(text)
        words = [(a + m.start(), a + m.end()) for m in re.finditer(r"\S+", text[a:b])]
        takers = min(j - i, len(words))
        start = a
        for k in range(i, j):
            classes[k] = "unknown"
            if k - i >= takers:
                trimmed[k] = tiling[k] = None  # nothing left: (p, p) below
                continue
            last = k - i == takers - 1
            first_word, last_word = words[k - i], words[-1] if last else words[k - i]
            end = b if last else first_word[1]
            trimmed[k], tiling[k] = [first_word[0], last_word[1]], [start, end]
            start = end
        if nxt is not None:
            tiling[nxt][0] = trimmed[nxt][0]
        i = j
    prev = 0
    for k, cls in enumerate(classes):
        if cls in ("special", "absent") or tiling[k] is None:
            trimmed[k] = tiling[k] = [prev, prev]
        prev = tiling[k][1]
    return dict(case, expected_trimmed=trimmed, expected_tiling=tiling, token_class=classes)


def build_unknown(oracle_dir: Path) -> dict:
    raw = (oracle_dir / "align_cases.json").read_bytes()
    data = json.loads(raw)
    cases = [regenerate_unknown(c) for c in data["cases"] if c["id"] in UNKNOWN_CASES]
    assert [c["id"] for c in cases] == list(UNKNOWN_CASES)
    return {"provenance": _provenance(raw, data, "the cases with '[UNK]' tokens, their "
                                                 "expectations regenerated under SPEC "
                                                 "section 9's unknown-token rule by "
                                                 "tests/adapters/build_align_golden.py "
                                                 "(regenerate_unknown); class 'unknown' "
                                                 "for the '[UNK]' tokens"),
            "cases": cases}


if __name__ == "__main__":
    oracle = Path(sys.argv[1])
    for path, golden in ((OUT, build(oracle)), (OUT_UNKNOWN, build_unknown(oracle))):
        path.write_text(json.dumps(golden, ensure_ascii=False, indent=0) + "\n",
                        encoding="utf-8")
        print(f"{len(golden['cases'])} cases -> {path}")
