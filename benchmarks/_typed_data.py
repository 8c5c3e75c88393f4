"""Seeded typed spans for the per-type benchmarks (bench_accumulator_typed.py,
bench_typed_lazy.py): about 2 references per example of 1-60 characters, each typed;
the predictions are copies, retyped copies, shifted copies or drops."""

from __future__ import annotations


def typed_spans(rng, n: int, types: list[str]):
    """``(refs, preds)`` as Arrow ``list<struct<start, end, label_type>>`` arrays, drawn
    from the numpy generator ``rng`` (which the caller may go on drawing from)."""
    import pyarrow as pa

    span = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                               ("label_type", pa.string())]))
    refs, preds = [], []
    for _ in range(n):
        ref = []
        for _ in range(min(int(rng.poisson(2)), 8)):
            s = int(rng.integers(0, 500))
            ref.append({"start": s, "end": s + int(rng.integers(1, 61)),
                        "label_type": types[int(rng.integers(0, 4))]})
        pred = []
        for sp in ref:
            kind = int(rng.integers(0, 4))
            if kind == 0:
                pred.append(sp)
            elif kind == 1:
                pred.append(dict(sp, label_type=types[int(rng.integers(0, 4))]))
            elif kind == 2:
                pred.append(dict(sp, end=sp["end"] + int(rng.integers(1, 4))))
        refs.append(ref)
        preds.append(pred)
    return pa.array(refs, span), pa.array(preds, span)
