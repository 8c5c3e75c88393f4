"""``python benchmarks/bench_accumulator_typed.py [--examples N] [--batch B] [--repeat R]``:
`mycelium.Accumulator` with ``type_field`` (per-type rows, ``typed_matching``, and
``typed_span``) fed batch by batch beside one `mycelium.evaluate` call on the whole data
and beside the same Accumulator without ``type_field``, in the same run, with the ratios
and the size of ``to_bytes`` with and without the types (and of its per-type sums).

Data: seeded typed spans as Arrow ``list<struct<start, end, label_type>>`` arrays (about
2 references per example, predictions copied, retyped, shifted or dropped), sliced into
batches (zero-copy). The reports are checked equal, bit for bit, before timing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mycelium  # noqa: E402
from _typed_data import typed_spans  # noqa: E402
from bench_accumulator import best  # noqa: E402

TYPES = ["Evident Conflict", "Subtle Conflict", "Evident Baseless Info",
         "Subtle Baseless Info"]


def make_data(n: int, seed: int) -> tuple[pa.Array, pa.Array]:
    return typed_spans(np.random.default_rng(seed), n, TYPES)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=100_000)
    p.add_argument("--batch", type=int, default=1_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--average", default="macro")
    args = p.parse_args(argv)
    refs, preds = make_data(args.examples, 0)
    n, b = args.examples, args.batch
    typed = dict(metrics=["typed_span", "character", "exact_span", "iou"],
                 type_field="label_type", typed_matching=True, average=args.average,
                 params={"typed_span": {"scheme": "partial"}})
    plain = dict(metrics=["character", "exact_span", "iou"], average=args.average)

    def whole():
        return mycelium.evaluate(refs, preds, **typed)

    def batched(options):
        acc = mycelium.Accumulator(**options)
        for start in range(0, n, b):
            acc.update(refs.slice(start, b), preds.slice(start, b))
        return acc

    want, acc = whole(), batched(typed)
    got = acc.compute()
    assert {k: v for k, v in got.items() if k != "meta"} == \
        {k: v for k, v in want.items() if k != "meta"}, "the accumulator disagrees"
    size_typed, size_plain = len(acc.to_bytes()), len(batched(plain).to_bytes())
    # the per-type sums alone (the stream's metadata entry): a few numbers per type
    stream = pa.ipc.open_stream(acc.to_bytes()).read_all()
    size_types = len(stream.schema.metadata[b"mycelium.accumulator/types"])
    t_whole = best(args.repeat, whole)
    t_typed = best(args.repeat, lambda: batched(typed).compute())
    t_plain = best(args.repeat, lambda: batched(plain).compute())
    print(f"mycelium {mycelium.__version__} | {n:,} typed examples, {len(want['by_type'])} "
          f"types, {args.average}, typed matching, best of {args.repeat}")
    print(f"  evaluate with type_field, one call           {t_whole:7.2f} s")
    print(f"  Accumulator with type_field, batches of {b:,} {t_typed:7.2f} s  "
          f"({t_typed / t_whole:.2f}x evaluate)")
    print(f"  Accumulator without type_field               {t_plain:7.2f} s  "
          f"(typed {t_typed / t_plain:.2f}x)")
    print(f"  to_bytes: {size_typed / 1e6:.1f} MB with the types, {size_plain / 1e6:.1f} MB "
          f"without ({size_typed / size_plain:.2f}x: typed_span's 5 counts per example); "
          f"the per-type sums {size_types:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
