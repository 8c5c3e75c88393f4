"""Time ``mycelium.align_tokens`` on every real Mu-SHROOM record with tokens (validation
v2 and the labeled test files: 2,401 records, 176,126 tokens).

Run ``python benchmarks/bench_align.py /path/to/mushroom`` (the folder holding splits/).
A script, not a test: it prints the best of a few runs (reading and parsing the files is
not timed) and never asserts on them.
"""

import argparse
import ast
import json
import time
from pathlib import Path

import mycelium


def load(folder: Path) -> list[tuple[str, list[str]]]:
    paths = sorted((folder / "splits/val/v2").glob("*.jsonl")) + sorted(
        (folder / "splits/test_labeled/v1").glob("*.jsonl"))
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                toks = rec["model_output_tokens"]
                out.append((rec["model_output_text"],
                            ast.literal_eval(toks) if isinstance(toks, str) else toks))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = load(args.folder)
    n_tokens = sum(len(t) for _, t in data)
    for trim in (True, False):
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            for text, toks in data:
                mycelium.align_tokens(text, toks, trim=trim)
            best = min(best, time.perf_counter() - t0)
        print(f"trim={trim}: {len(data)} records, {n_tokens} tokens: {best:.3f} s "
              f"({n_tokens / best / 1e3:.0f}k tokens/s)")


if __name__ == "__main__":
    main()
