"""The ``shroom_visions`` profile on the frame faces against the drop-in, side by side in
one run, on generated items.

Both score the same items from the same files: the drop-in as ``mycelium
shroom-visions`` runs it (`mycelium.protocols.shroom_visions.score_files`), the profile
as a user of a frame would (`mycelium.io.shroom_visions.read_shroom_visions` of both
files, the gold cut to the predicted ids by a merge, then ``df.mycelium.evaluate(...,
profile="shroom_visions")``, which also gives the per-label rows). The means must print
alike (the run fails otherwise). Reported: the best of ``--repeat`` runs of each and the
ratio profile / drop-in.

    python benchmarks/bench_visions_profile.py                 # 20,000 items
    python benchmarks/bench_visions_profile.py --items 5000    # quick
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import mycelium
from mycelium.io.shroom_visions import read_shroom_visions
from mycelium.protocols.shroom_visions import score_files

LABELS = ("invention", "mischaracterization", "OCR", "miscounting", "other")
PROBS = (0.3333333333, 0.6666666667, 0.5, 0.25, 1.0)


def generate(items: int, seed: int, folder: Path) -> tuple[Path, Path]:
    """A gold and a prediction file: texts of 200-900 characters, 0-6 spans of 3-80
    characters per side, labels and probabilities drawn from the kit's."""
    rng = np.random.default_rng(seed)

    def spans(n: int) -> list[dict]:
        out = []
        for _ in range(int(rng.integers(0, 7))):
            s = int(rng.integers(0, n - 3))
            out.append({"start": s, "end": min(n, s + int(rng.integers(3, 81))),
                        "prob": float(rng.choice(PROBS)),
                        "label": str(rng.choice(LABELS))})
        return out

    gold, pred = folder / "gold.jsonl", folder / "pred.jsonl"
    with open(gold, "w", encoding="utf-8") as g, open(pred, "w", encoding="utf-8") as p:
        for k in range(items):
            n = int(rng.integers(200, 901))
            g.write(json.dumps({"id": f"item-{k}", "response": "x" * n,
                                "labels": spans(n)}) + "\n")
            p.write(json.dumps({"id": f"item-{k}", "labels": spans(n)}) + "\n")
    return gold, pred


def profile_means(gold: Path, pred: Path) -> list[float]:
    g, p = read_shroom_visions(gold), read_shroom_visions(pred)
    df = g.merge(p[["id", "labels"]], on="id", suffixes=("_gold", "_pred"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
        table = df.mycelium.evaluate("labels_gold", "labels_pred", text="response",
                                     profile="shroom_visions")
    means = table[table["type"].isna()].set_index("metric")["value"]
    return [means["soft_spearman"], means["iou"], means["soft_spearman_by_label"]]


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold, pred = generate(args.items, args.seed, Path(tmp))
        t_drop, result = best(lambda: score_files(gold, pred), args.repeat)
        t_prof, means = best(lambda: profile_means(gold, pred), args.repeat)
    drop = [result.cor_mean, result.iou_mean, result.cor_lbl_mean]  # type: ignore[attr-defined]
    assert [f"{x:.8f}" for x in means] == [f"{x:.8f}" for x in drop], (means, drop)
    print(f"{args.items} items, best of {args.repeat}")
    print(f"  drop-in (score_files)               {t_drop:8.3f} s")
    print(f"  profile (read, merge, df.evaluate)  {t_prof:8.3f} s")
    print(f"  ratio profile / drop-in             {t_prof / t_drop:8.2f}")


if __name__ == "__main__":
    main()
