"""Spark on lengths near 2**62: per-example statistics beyond int64 (several overlapping
spans of 2**62 characters) and group sums of many such examples equal
`mycelium.evaluate`'s, bit for bit, with and without intervals."""

from __future__ import annotations

import pyarrow as pa
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed; install the extra with "
                    "pip install -e '.[spark]' to run the Spark tests")

import mycelium  # noqa: E402
from mycelium.frames import spark as myspark  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")

BIG = 2**62
METRICS = ["deteval_1d", "cleval_1d", "iou"]
CASES = {  # refs, preds: det_chars = 3 * 2**62 - 3; 20 x 2**61 characters in one sum
    "overlapping": ([[[0, BIG]]], [[[0, BIG], [1, BIG], [2, BIG]]]),
    "many": ([[[0, 2**61]]] * 20, [[[0, 2**60]]] * 20),
}


def frame(spark, refs, preds):
    table = pa.table({"id": pa.array([f"ex-{i}" for i in range(len(refs))]),
                      "ref": pa.array([[{"start": s, "end": e} for s, e in r] for r in refs],
                                      mycelium.SPAN_TYPE),
                      "pred": pa.array([[{"start": s, "end": e} for s, e in p]
                                        for p in preds], mycelium.SPAN_TYPE)})
    return spark.createDataFrame(table.to_pandas()).repartition(2)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("average", ["micro", "macro"])
def test_huge_statistics_equal_the_core(spark, case, average):
    refs, preds = CASES[case]
    got = myspark.evaluate(frame(spark, refs, preds), "ref", "pred", metrics=METRICS,
                           average=average)
    want = mycelium.evaluate(refs, preds, metrics=METRICS, average=average)
    values = {(m, k): v for m, k, v in got[["metric", "measure", "value"]]
              .itertuples(index=False)}
    assert values == {(m, k): v for m in METRICS for k, v in want[m].items()}
    if case == "overlapping":  # 2**62 / (3 * 2**62 - 3), not a wrapped sum's value
        assert values[("cleval_1d", "precision")] == want["cleval_1d"]["precision"] \
            == BIG / (3 * BIG - 3)


@pytest.mark.parametrize("case", sorted(CASES))
def test_huge_resampled_sums_equal_the_core(spark, case):
    refs, preds = CASES[case]
    refs, preds = refs * 3, [[[s + i % 2, e] for s, e in p] for i, p in
                             enumerate(preds * 3)]
    boot = dict(metrics=METRICS, average="micro", ci=0.9, n_resamples=40, seed=5)
    got = myspark.evaluate(frame(spark, refs, preds), "ref", "pred", id_col="id", **boot)
    want = mycelium.evaluate(refs, preds, ids=[f"ex-{i}" for i in range(len(refs))],
                             progress=False, **boot)
    rows = {(m, k): (v, lo, hi) for m, k, v, lo, hi in
            got[["metric", "measure", "value", "ci_low", "ci_high"]].itertuples(index=False)}
    assert rows == {(m, k): (v, want["ci"][m][k]["low"], want["ci"][m][k]["high"])
                    for m in METRICS for k, v in want[m].items()}
