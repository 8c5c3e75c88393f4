"""Score metrics ranked block by block (`mycelium.core.scores.score_run_blocks`) equal one
ranking of the whole batch bit for bit: macro from each block's per-example values, micro
from the blocks' merged tie sums, with bootstrap weights and groups, in both score forms."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _score_data import reference_spans
from mycelium.core import pipeline
from mycelium.core.score_metrics import score_values
from mycelium.core.scores import score_input, score_run_blocks, score_runs

NAMES = ["char_auroc", "char_ap", "response_auroc"]


@st.composite
def batches(draw):
    n = draw(st.integers(1, 12))
    text, refs, offs, scores, soft = [], [], [], [], []
    for _ in range(n):
        length = draw(st.integers(0, 25))
        text.append("x" * length)
        refs.append(reference_spans(draw, length, 3))
        o = []
        for _ in range(draw(st.integers(0, 6))):  # in order or not, overlapping or not
            a = draw(st.integers(0, length))
            o.append([a, draw(st.integers(a, length))])
        if draw(st.booleans()):
            o.sort()
        offs.append(o)
        scores.append([draw(st.sampled_from([0.0, 0.3, 0.5, 0.5, 0.9, 1.0])) for _ in o])
        soft.append([{"start": a, "end": b, "prob": p} for (a, b), p in zip(o, scores[-1])])
    return text, refs, offs, scores, soft


@settings(max_examples=250, deadline=None)
@given(batches(), st.integers(1, 8), st.sampled_from(["token", "soft"]),
       st.sampled_from(["macro", "micro"]), st.integers(0, 2**31))
def test_blocks_equal_one_ranking(batch, max_points, form, average, seed):
    text, refs, offs, scores, soft = batch
    lengths = np.array([len(t) for t in text], dtype=np.int64)
    si = score_input(lengths, single=False, **(
        {"token_offsets": offs, "token_scores": scores} if form == "token"
        else {"soft_predictions": soft}))
    ref_batch = pipeline.prepare(refs, refs, text=text).refs
    whole = score_runs(si, lengths, ref_batch)
    parts = score_run_blocks(si, lengths, ref_batch, max_points=max_points)
    assert sum(p.n for p in parts) == whole.n
    n = whole.n
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 3, size=n)
    w = rng.poisson(1.0, size=(3, n)).astype(np.float64)
    for kw in ({}, {"weights": w}, {"groups": groups, "n_groups": 3},
               {"groups": groups, "n_groups": 3, "weights": w},
               {"groups": np.arange(n), "n_groups": n}):
        for undefined in (None, 0.0):
            a = score_values(parts, NAMES, average=average, ap_undefined=undefined, **kw)
            b = score_values(whole, NAMES, average=average, ap_undefined=undefined, **kw)
            for m in NAMES:
                assert a[m].tobytes() == b[m].tobytes(), (m, sorted(kw), undefined)


def test_a_large_batch_is_cut_into_blocks_of_whole_examples():
    lengths = np.full(50, 10, dtype=np.int64)
    offs = [[(i, i + 1) for i in range(10)] for _ in range(50)]
    si = score_input(lengths, single=False, token_offsets=offs,
                     token_scores=[[0.5] * 10 for _ in range(50)])
    parts = score_run_blocks(si, lengths, None, max_points=64)
    assert len(parts) > 1 and [p.n for p in parts] and sum(p.n for p in parts) == 50
    assert all(p.n * 10 <= 64 + 10 for p in parts)  # whole examples, about 64 tokens each


def test_evaluate_and_sweep_in_small_blocks_equal_one_block(monkeypatch):
    import mycelium
    import mycelium.core.scores as scores_mod

    rng = np.random.default_rng(11)
    text, refs, offs, scs = [], [], [], []
    for _ in range(60):
        length = int(rng.integers(0, 40))
        text.append("x" * length)
        a = int(rng.integers(0, length + 1))
        refs.append([[a, min(length, a + int(rng.integers(0, 15)))]] if length else [])
        cuts = np.unique(rng.integers(0, length + 1, size=int(rng.integers(0, 10))))
        offs.append([[int(x), int(y)] for x, y in zip(cuts[:-1], cuts[1:]) if rng.random() < 0.8])
        scs.append(np.round(rng.random(len(offs[-1])), 1).tolist())
    kw = dict(text=text, token_offsets=offs, token_scores=scs)

    def run():
        out = [mycelium.evaluate(refs, metrics=["char_auroc", "char_ap", "response_auroc"],
                                 average=avg, include_per_example=True, **kw)
               for avg in ("macro", "micro")]
        out.append(mycelium.sweep(refs, thresholds=[0.0, 0.25, 0.5, 0.7, 1.0],
                                  metrics=["iou", "character"], **kw).to_dict("list"))
        return out

    whole = run()
    monkeypatch.setattr(scores_mod, "BLOCK_POINTS", 7)
    si = score_input(np.array([len(t) for t in text]), single=False,
                     token_offsets=offs, token_scores=scs)
    assert len(score_run_blocks(si, np.array([len(t) for t in text]), None)) > 5
    assert repr(run()) == repr(whole)  # repr: NaN per-example values compare as text
