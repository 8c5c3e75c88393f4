"""The ``shroom-visions`` drop-in against the SHROOM-Visions kit's own procedure, side by
side in one run, on generated items.

The kit's scorer (``scripts/official/official_scorer.py`` of
sckwokyboom/Vision-Hallucination-Detector @ 0db49dc, the organisers' file) is not part
of this project: fetch it and name it with ``--kit``. It is imported from that path at
run time, and its procedure is timed as its command runs it: both files read by its
``load_jsonl_file_to_records``, then its ``main`` (Cor, IoU, Cor lbl and the
classification scores). The drop-in is timed as ``mycelium shroom-visions`` runs it:
`mycelium.protocols.shroom_visions.score_files` on the same two files. Both print their
lines, which must be equal (the run fails otherwise).

    python benchmarks/bench_shroom_visions.py --kit /path/to/official_scorer.py
    python benchmarks/bench_shroom_visions.py --kit ... --items 10000     # quick
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from mycelium.protocols.shroom_visions import score_files

LABELS = ("invention", "mischaracterization", "OCR", "miscounting", "other")
NUMBERS = ("Cor    : ", "IoU    : ", "Cor lbl: ", "acc    : ", "f1     : ", "prec   : ",
           "rec    : ")


def generate(items: int, seed: int, folder: Path) -> tuple[Path, Path]:
    """A gold file (with empty ``raw_annots``, as the kit needs) and a prediction file.

    Texts of 200-900 characters (the real responses' range); gold: 0-6 spans of 3-80
    characters, a third of them overlapping the previous one, probs in multiples of 1/3
    and 1/4 (annotator shares); predictions: 0-10 spans, half of them near a gold span,
    probs uniform with 6 decimals (some 0.0), labels from the five."""
    rng = np.random.default_rng(seed)
    ref, pred = folder / "gold.jsonl", folder / "pred.jsonl"
    shares = [1 / 3, 2 / 3, 0.25, 0.5, 0.75, 1.0]
    with open(ref, "w", encoding="utf-8") as g, open(pred, "w", encoding="utf-8") as p:
        for i in range(items):
            n = int(rng.integers(200, 900))
            gold, mine = [], []
            for _ in range(int(rng.integers(0, 7))):
                s = int(rng.integers(0, n - 3))
                if gold and rng.random() < 1 / 3:
                    s = max(0, gold[-1]["start"] + int(rng.integers(-5, 5)))
                e = min(n, s + int(rng.integers(3, 80)))
                gold.append({"start": s, "end": e, "prob": float(rng.choice(shares)),
                             "label": LABELS[int(rng.integers(0, 5))]})
            for _ in range(int(rng.integers(0, 11))):
                if gold and rng.random() < 0.5:
                    near = gold[int(rng.integers(0, len(gold)))]
                    s = max(0, near["start"] + int(rng.integers(-4, 5)))
                else:
                    s = int(rng.integers(0, n - 3))
                e = min(n, s + int(rng.integers(1, 60)))
                prob = 0.0 if rng.random() < 0.05 else round(float(rng.random()), 6)
                mine.append({"start": s, "end": e, "prob": prob,
                             "label": LABELS[int(rng.integers(0, 5))]})
            text = "".join(rng.choice(list("abcdefgh ij"), size=n).tolist())
            g.write(json.dumps({"id": f"train-en-{i}", "response": text, "labels": gold,
                                "raw_annots": {}}) + "\n")
            p.write(json.dumps({"id": f"train-en-{i}", "labels": mine}) + "\n")
    return ref, pred


def run_kit(kit_path: Path, ref: Path, pred: Path) -> tuple[tuple[float, float], list[str]]:
    spec = importlib.util.spec_from_file_location("shroom_visions_kit", kit_path)
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    out = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        refs = kit.load_jsonl_file_to_records(str(ref), do_check=False)
        preds = kit.load_jsonl_file_to_records(str(pred), is_ref=False)
        kit.main(refs, preds, None, verbose=True)
    seconds = (time.perf_counter() - start, time.process_time() - cpu)
    return seconds, [x for x in out.getvalue().splitlines() if x.startswith(NUMBERS)]


def run_mycelium(ref: Path, pred: Path, repeat: int
                 ) -> tuple[tuple[float, float], list[str]]:
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, used = time.perf_counter(), time.process_time()
        result = score_files(ref, pred)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - used)
    return (wall, cpu), result.printed.splitlines()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kit", required=True, type=Path,
                    help="a copy of the kit's scorer.py (official_scorer.py)")
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="drop-in runs, best kept")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref, pred = generate(args.items, args.seed, Path(tmp))
        size = (ref.stat().st_size + pred.stat().st_size) / 2**20
        ours, ours_lines = run_mycelium(ref, pred, args.repeat)
        theirs, kit_lines = run_kit(args.kit, ref, pred)
    if ours_lines != kit_lines:
        raise SystemExit(f"the drop-in and the kit disagree:\n{ours_lines}\n{kit_lines}")
    # Wall clock and process CPU time: on a shared machine the CPU time is the steadier
    # of the two (both sides are single-threaded).
    print(f"items: {args.items:,} ({size:.1f} MiB of jsonl), seed {args.seed}")
    print(f"kit scorer (read + main):           wall {theirs[0]:8.2f} s   cpu {theirs[1]:8.2f} s")
    print(f"mycelium score_files (best of {args.repeat}):   wall {ours[0]:8.2f} s   "
          f"cpu {ours[1]:8.2f} s")
    print(f"ratio: wall {theirs[0] / ours[0]:.1f}x   cpu {theirs[1] / ours[1]:.1f}x")
    print("\n".join(ours_lines))


if __name__ == "__main__":
    main()
