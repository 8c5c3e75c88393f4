"""Shared data for the CLI tests (imported by name: a module called ``conftest`` would
clash with the other folders' ones): a small frame with null group keys, written as JSONL,
CSV and Parquet, and the expected tidy results from ``df.mycelium.evaluate``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium
from mycelium.core.signature import signature_with

ROWS = [
    {"id": "a", "model": "m1", "lang": "en", "text": "0123456789",
     "ref": [[0, 10]], "pred": [[2, 8]]},
    {"id": "b", "model": "m1", "lang": None, "text": "abcdefghij",
     "ref": [[4, 7]], "pred": [[4, 7]]},
    {"id": "c", "model": "m2", "lang": "de", "text": "x" * 20,
     "ref": [[0, 5], [10, 15]], "pred": [[0, 7]]},
    {"id": "d", "model": "m2", "lang": None, "text": "short text",
     "ref": [], "pred": [[1, 3]]},
    {"id": "e", "model": None, "lang": "en", "text": "hello world",
     "ref": [[6, 11]], "pred": []},
    {"id": "f", "model": "m1", "lang": "de", "text": "0123456789abcdef",
     "ref": [[0, 4], [4, 12]], "pred": [[2, 12]]},
]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def write_csv(path: Path, rows) -> Path:
    frame = pd.DataFrame(rows)
    for col in frame.columns:
        if frame[col].map(lambda v: isinstance(v, list)).any():
            frame[col] = frame[col].map(json.dumps)
    frame.to_csv(path, index=False)
    return path


def write_parquet(path: Path, rows) -> Path:
    columns = {}
    for col in rows[0]:
        values = [r[col] for r in rows]
        spans = any(isinstance(v, list) for v in values)
        columns[col] = mycelium.to_spans(values) if spans else pa.array(values)
    pq.write_table(pa.table(columns), path)
    return path


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(ROWS)


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    """The ROWS as data.jsonl, data.csv and data.parquet."""
    return {kind: writer(tmp_path / f"data.{kind}", ROWS) for kind, writer in WRITERS.items()}


def canonical(records) -> list[tuple]:
    """Rows as tuples with every null (None, NaN, pd.NA) as None, for exact comparison."""
    out = []
    for rec in records:
        out.append(tuple(None if _null(v) else (v.item() if hasattr(v, "item") else v)
                         for v in rec))
    return out


def _null(v) -> bool:
    if v is None or v is pd.NA:
        return True
    return isinstance(v, float) and math.isnan(v)


def frame_records(frame: pd.DataFrame) -> list[tuple]:
    return canonical(frame.astype(object).itertuples(index=False, name=None))


@pytest.fixture
def expected(frame):
    """``expected(by=..., **options)``: the accessor's tidy result as canonical tuples.

    ``read_from="jsonl"`` says the command read a JSON file, whose numbers the
    profile's float rule read: its signature then records the rule (the accessor's, on
    numbers passed in, does not)."""
    def run(by=None, read_from=None, **options):
        out = frame.mycelium.evaluate("ref", "pred", text="text", by=by, **options)
        profile = mycelium.get_profile(options.get("profile"))
        if read_from == "jsonl" and profile is not None and profile.float_parse != "exact":
            rule = profile.float_parse
            out.attrs["mycelium_signature"] = signature_with(
                out.attrs["mycelium_signature"], float_parse=rule)
            out["signature"] = [signature_with(s, float_parse=rule) for s in out["signature"]]
        return frame_records(out), out.attrs["mycelium_signature"], list(out.columns)
    return run
