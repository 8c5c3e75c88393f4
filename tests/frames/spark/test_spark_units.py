"""Parts of `mycelium.frames.spark` that need no Spark session: the import without pyspark, and
the per-batch weighted sums of the intervals (exact, and the resamples' Poisson weights)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from mycelium.frames import engine as frames
from mycelium.stats.bootstrap import example_keys, poisson_weights
from mycelium.core.settings import Bootstrap
from mycelium.frames.spark import _exact_dot, _weighted_sums

BLOCK_PYSPARK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pyspark" or name.startswith("pyspark."):
            raise ImportError("pyspark is blocked in this test")
sys.meta_path.insert(0, Block())
import mycelium, mycelium.frames.spark
assert "pyspark" not in sys.modules
try:
    mycelium.frames.spark.evaluate(None, "ref", "pred")
except ImportError as exc:
    print(exc)
"""


def test_mycelium_imports_without_pyspark():
    out = subprocess.run([sys.executable, "-c", BLOCK_PYSPARK], capture_output=True,
                         text=True, check=True).stdout
    assert "mycelium.frames.spark needs pyspark" in out and "'spark' extra" in out


def test_weighted_sums_are_exact_per_group_and_resample():
    rng = np.random.default_rng(5)
    n = 300
    keys = pa.table({"k": pa.array([["x", "y", None][i] for i in rng.integers(0, 3, n)])})
    groups = frames.group_codes(keys, n)
    ints = [rng.integers(-2**27, 2**27, n), rng.integers(0, 5, n)]
    floats = [rng.random(n) * 1e-20]
    hashes = example_keys(n, [f"id{i}" for i in range(n)])
    boot = Bootstrap(0.95, 70, 9)  # two chunks of resamples
    g, r, values = _weighted_sums(groups, [ints[0], floats[0], ints[1]], hashes, boot)
    assert len(g) == groups.n_groups * (boot.n_resamples + 1)
    w = poisson_weights(hashes, boot.seed, range(boot.n_resamples))
    for row in range(len(g)):
        rows = groups.codes == g[row]
        weights = np.ones(n) if r[row] < 0 else w[r[row]]
        for col in ints:  # exact: Python integers
            got = values[0 if col is ints[0] else 2][row]
            assert got == sum(int(a) * int(b) for a, b in zip(weights[rows], col[rows]))
        assert values[1][row] == pytest.approx(float(weights[rows] @ floats[0][rows]),
                                               rel=1e-13)


def test_exact_dot_beyond_float64():
    m = np.array([[2**60], [3]], dtype=np.int64)
    w = np.array([[2.0, 1.0]])
    assert _exact_dot(w, m).tolist() == [[2**61 + 3]]
    assert _exact_dot(w, np.zeros((2, 0), np.int64)).shape == (1, 0)
    # 28-bit limbs: w · 2**62 is exact (int64 products wrapped it), and a sum beyond
    # int64 is an error (Spark's columns are bigint), not a wrapped value
    m = np.array([[2**62 - 1, 2**40], [2**62 - 3, 7]], dtype=np.int64)
    w = np.array([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    assert _exact_dot(w, m).tolist() == [[2**63 - 4, 2**40 + 7], [2**62 - 3, 7],
                                         [2**62 - 1, 2**40]]
    with pytest.raises(OverflowError, match="below 2\\*\\*63"):
        _exact_dot(np.array([[2.0, 1.0]]), m)
    starts = np.array([0])
    assert _exact_dot(None, m, starts).tolist() == [[2**63 - 4, 2**40 + 7]]
    with pytest.raises(OverflowError, match="below 2\\*\\*63"):
        _exact_dot(None, np.array([[2**62], [2**62]], dtype=np.int64), starts)


def test_id_keys_unique_within_each_group_only():
    from mycelium.frames.spark import ID_COL as _ID, _id_keys

    keys = pa.table({"k": ["x", "y", "x", "y"]})
    groups = frames.group_codes(keys, 4)
    kept = np.array([True, True, True, False])
    batch = pa.RecordBatch.from_arrays([pa.array(["a", "a", "b", None])], names=[_ID])
    hashes = _id_keys(batch, kept, groups)  # "a" twice, in two groups: allowed
    assert hashes[0] == hashes[1] == example_keys(1, ["a"])[0] and hashes[3] == 0
    batch = pa.RecordBatch.from_arrays([pa.array(["a", "b", "a", "c"])], names=[_ID])
    with pytest.raises(ValueError, match="occurs more than once"):
        _id_keys(batch, kept, groups)
    batch = pa.RecordBatch.from_arrays([pa.array(["a", None, "b", "c"])], names=[_ID])
    with pytest.raises(ValueError, match="id_col"):
        _id_keys(batch, kept, groups)
