"""``python benchmarks/bench_accumulator.py [--examples N] [--batch B] [--repeat R]``:
`mycelium.Accumulator` fed batch by batch beside one `mycelium.evaluate` call on the
whole data, in the same run, with the ratio (target: at most 1.3x).

Data: `bench_evaluate.make_batch` (seeded, all six metrics' edge cases), as Arrow arrays
sliced into batches (zero-copy). The two reports are checked equal before timing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mycelium  # noqa: E402
from bench_evaluate import make_batch  # noqa: E402


def best(repeat, fn):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=1_000_000)
    p.add_argument("--batch", type=int, default=1_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--average", default="macro")
    args = p.parse_args(argv)
    refs, preds, _ = make_batch(args.examples, 0)
    n, b = args.examples, args.batch

    def whole():
        return mycelium.evaluate(refs, preds, average=args.average)

    def batched():
        acc = mycelium.Accumulator(average=args.average)
        for start in range(0, n, b):
            acc.update(refs.slice(start, b), preds.slice(start, b))
        return acc.compute()

    want, got = whole(), batched()
    assert {k: v for k, v in got.items() if k != "meta"} == \
        {k: v for k, v in want.items() if k != "meta"}, "the accumulator disagrees"
    t_whole, t_batched = best(args.repeat, whole), best(args.repeat, batched)
    print(f"mycelium {mycelium.__version__} | {n:,} examples, all six metrics, "
          f"{args.average}, best of {args.repeat}")
    print(f"  evaluate, one call                 {t_whole:7.2f} s")
    print(f"  Accumulator, {n // b:,} batches of {b:,}  {t_batched:7.2f} s")
    print(f"  ratio                              {t_batched / t_whole:7.2f}x (target <= 1.3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
