"""The new tidy outputs (intervals, soft_spearman, per-type rows, comparisons) survive a
Parquet round trip through mycelium's writer and every reader."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest
from _optional import pl  # polars, or a stand-in that skips the test using it

import mycelium

from _frames_data import make_rows, pandas_object, polars_frame, records, same_records

ROWS = make_rows(n=30, seed=4)
SOFT = dict(soft_ref_col="soft_ref", soft_pred_col="soft_pred")


def results(df):
    """Every new kind of result of one frame (pandas or Polars)."""
    return {
        "intervals": df.mycelium.evaluate("ref", "pred", text="text", by=["model", "lang"],
                                          ci=0.9, n_resamples=30, id_col="id", **SOFT),
        "types": df.mycelium.evaluate("typed_ref", "pred", by="model",
                                      type_field="label_type"),
        "compare": df.mycelium.compare("ref", ["pred", "typed_ref"], by="lang",
                                       metrics=["iou", "exact_span"], n_resamples=30),
    }


@pytest.mark.parametrize("kind", ["intervals", "types", "compare"])
def test_pandas_results_round_trip(tmp_path, kind):
    out = results(pandas_object(ROWS))[kind]
    path = tmp_path / f"{kind}.parquet"
    mycelium.write_parquet(out, path)
    back = mycelium.read_parquet(path)
    pd.testing.assert_frame_equal(back, out, check_exact=True)
    assert back.attrs["mycelium_signature"] == out.attrs["mycelium_signature"]
    plain = pd.read_parquet(path)
    assert same_records(records(plain), records(out))
    assert plain.attrs["mycelium_signature"] == out.attrs["mycelium_signature"]
    arrow = pd.read_parquet(path, dtype_backend="pyarrow")
    assert same_records(records(arrow), records(out))
    assert same_records(records(pl.read_parquet(path)), records(out))


@pytest.mark.parametrize("kind", ["intervals", "types", "compare"])
def test_polars_results_round_trip(tmp_path, kind):
    out = results(polars_frame(ROWS))[kind]
    assert same_records(records(out), records(results(pandas_object(ROWS))[kind]))
    path = tmp_path / f"{kind}.parquet"
    mycelium.write_parquet(out, path, signature="mycelium:test")
    assert pl.read_parquet(path).equals(out)
    assert same_records(records(pd.read_parquet(path)), records(out))
    assert same_records(records(mycelium.read_parquet(path)), records(out))
    assert mycelium.read_parquet(path).attrs.get("mycelium_signature") == "mycelium:test"
    native = tmp_path / f"{kind}_native.parquet"
    out.write_parquet(native)
    assert pl.read_parquet(native).equals(out)
    assert same_records(records(pd.read_parquet(native)), records(out))


def test_schema_of_interval_results():
    out = results(pandas_object(ROWS))["intervals"]
    path_columns = list(out.columns)
    assert path_columns == ["model", "lang", "metric", "measure", "value", "ci_low",
                            "ci_high", "examples", "average", "profile", "signature"]
    table = pq.read_table(_written(out))
    types = {f.name: str(f.type) for f in table.schema}
    assert types["ci_low"] == types["ci_high"] == types["value"] == "double"


def _written(frame):
    import io

    buffer = io.BytesIO()
    mycelium.write_parquet(frame, buffer)
    buffer.seek(0)
    return buffer
