"""The per-type rows on every face equal the dict face's, bit for bit: per group,
``mycelium.evaluate(...)["by_type"]`` on the group's rows (and ``typed_span`` over all
types, the rows of null type first in each group) from the pandas accessor, Polars eager,
the Polars LazyFrame (streamed in batches of 7 rows) and Spark (local, Arrow batches of 7
rows), both summing per (group, type) without gathering the rows, and ``mycelium
evaluate --type-field`` on JSON lines, CSV and Parquet files; ``typed_span`` under each
of its four schemes, with and without typed matching. (`mycelium.Accumulator`'s, batch
by batch: tests/accumulator/test_accumulator_typed.py.)"""

from __future__ import annotations

import json
import math
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _optional import pl
from _spark_fixture import spark  # noqa: F401  (the session fixture)

import mycelium
from mycelium.cli.app import main

TYPES = ["A", "B", "C", None]
MODELS = ["m1", "m2", None]
TEXT = "x" * 40
SCHEMES = ["strict", "exact", "partial", "type"]
#: (scheme, typed_matching, average): each scheme once with and once without typed matching
CONFIGS = [(s, tm, "micro" if (i + tm) % 2 else "macro")
           for i, s in enumerate(SCHEMES) for tm in (False, True)]
FACES = ["pandas", "polars", "polars_lazy", "spark", "cli_jsonl", "cli_csv", "cli_parquet"]
SPAN = "array<struct<start: bigint, end: bigint, label_type: string>>"


def _spans(rng) -> list[dict]:
    out = []
    for _ in range(int(rng.integers(0, 4))):
        s = int(rng.integers(0, 34))
        out.append({"start": s, "end": s + int(rng.integers(0, 7)),
                    "label_type": TYPES[int(rng.integers(0, len(TYPES)))]})
    return out


def make_rows(n=40, seed=38) -> list[dict]:
    """Typed rows in three groups (one with a null key), edge cases first: an example
    without spans, same boundaries of another type, a zero-length span, duplicates, a
    type only one side has, a type only on a zero-length span."""
    rng = np.random.default_rng(seed)
    edge = [([], []),
            ([{"start": 0, "end": 5, "label_type": "A"}],
             [{"start": 0, "end": 5, "label_type": "B"}]),
            ([{"start": 2, "end": 2, "label_type": "A"}, {"start": 3, "end": 9,
                                                         "label_type": "C"}],
             [{"start": 3, "end": 9, "label_type": "C"}, {"start": 3, "end": 9,
                                                         "label_type": "C"}]),
            ([{"start": 0, "end": 10, "label_type": None}],
             [{"start": 4, "end": 12, "label_type": "B"}]),
            # a type only on a zero-length span: listed, with no example having it
            ([{"start": 6, "end": 6, "label_type": "Z"}], [])]
    rows = [{"model": MODELS[k % 3], "text": TEXT, "ref": r, "pred": p}
            for k, (r, p) in enumerate(edge)]
    for _ in range(n - len(rows)):
        ref = _spans(rng)
        rows.append({"model": MODELS[int(rng.integers(0, 3))], "text": TEXT,
                     "ref": ref, "pred": _answer(rng, ref) + _spans(rng)[:1]})
    return rows


def _answer(rng, ref: list[dict]) -> list[dict]:
    """Predictions near the references: each kept as is, of another type, shifted, or
    left out, so that every scheme's counts occur."""
    out = []
    for span in ref:
        kind = int(rng.integers(0, 4))
        if kind == 0:
            out.append(dict(span))
        elif kind == 1:
            out.append(dict(span, label_type=TYPES[int(rng.integers(0, len(TYPES)))]))
        elif kind == 2:
            out.append(dict(span, end=span["end"] + 1 + int(rng.integers(0, 3))))
    return out


ROWS = make_rows()


def options(scheme, typed_matching, average) -> dict:
    return {"type_field": "label_type", "typed_matching": typed_matching,
            "average": average, "metrics": ["typed_span", "character", "exact_span",
                                            "span_coverage", "iou"],
            "params": {"typed_span": {"scheme": scheme}}}


def _key(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) \
        else value


def expected(opts) -> dict:
    """``{(model, type, metric, measure): (value, examples)}`` from the dict face on each
    group's rows."""
    out = {}
    for model in MODELS:
        rows = [r for r in ROWS if r["model"] == model]
        report = mycelium.evaluate([r["ref"] for r in rows], [r["pred"] for r in rows],
                                   text=[r["text"] for r in rows], **opts)
        for measure, v in report["typed_span"].items():
            out[(model, None, "typed_span", measure)] = (v, report["meta"]["examples"])
        for t, entry in report["by_type"].items():
            for metric, measures in entry.items():
                if isinstance(measures, dict):
                    for measure, v in measures.items():
                        out[(model, t, metric, measure)] = (v, entry["examples"])
            out[(model, t, "counts", "n_ref")] = (float(entry["n_ref"]), entry["examples"])
    return out


def rows_of(frame: pd.DataFrame) -> dict:
    out = {}
    for rec in frame.to_dict("records"):
        key = (_key(rec["model"]), _key(rec["type"]), rec["metric"], rec["measure"])
        assert key not in out, key
        out[key] = (rec["value"], int(rec["examples"]))
    return out


def same(a, b) -> bool:
    """Bit-for-bit equal numbers (NaN equals NaN; JSON writes NaN as null)."""
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return float(a) == float(b)


def _frame_options(opts) -> dict:
    return dict(opts, by="model", text="text")


def _cli(kind: str, opts: dict, tmp_path) -> pd.DataFrame:
    path = tmp_path / f"rows.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    elif kind == "csv":
        pd.DataFrame({"model": [r["model"] for r in ROWS], "text": [r["text"] for r in ROWS],
                      "ref": [json.dumps(r["ref"]) for r in ROWS],
                      "pred": [json.dumps(r["pred"]) for r in ROWS]}).to_csv(path,
                                                                            index=False)
    else:
        span = pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                   ("label_type", pa.string())]))
        pq.write_table(pa.table({"model": [r["model"] for r in ROWS],
                                 "text": [r["text"] for r in ROWS],
                                 "ref": pa.array([r["ref"] for r in ROWS], span),
                                 "pred": pa.array([r["pred"] for r in ROWS], span)}), path)
    out = tmp_path / "out.json"
    argv = ["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred", "--text-col",
            "text", "--by", "model", "--type-field", "label_type", "--average",
            opts["average"], "--metrics", ",".join(opts["metrics"]), "--params",
            json.dumps(opts["params"]), "--format", "json", "-o", str(out)]
    if opts["typed_matching"]:
        argv.append("--typed-matching")
    assert main(argv) == 0
    return pd.DataFrame(json.loads(out.read_text(encoding="utf-8"))["records"])


def _spark(session, opts) -> pd.DataFrame:
    from mycelium.frames import spark as spark_face

    sdf = session.createDataFrame([(r["model"], r["text"], r["ref"], r["pred"]) for r in ROWS],
                                  f"model string, text string, ref {SPAN}, pred {SPAN}")
    conf = "spark.sql.execution.arrow.maxRecordsPerBatch"
    previous = session.conf.get(conf)
    session.conf.set(conf, "7")  # a group's rows spread over several Arrow batches
    def refuse(*args, **kwargs):
        raise AssertionError("the per-type rows were gathered on the driver")

    try:  # summed on the workers: the driver never gathers rows
        with mock.patch.object(spark_face, "collected", refuse):
            return spark_face.evaluate(sdf, "ref", "pred", **_frame_options(opts))
    finally:
        session.conf.set(conf, previous)


def run_face(face: str, opts: dict, session, tmp_path) -> pd.DataFrame:
    if face == "pandas":
        return pd.DataFrame(ROWS).mycelium.evaluate("ref", "pred", **_frame_options(opts))
    if face == "polars":
        return pl.DataFrame(ROWS).mycelium.evaluate("ref", "pred",
                                                    **_frame_options(opts)).to_pandas()
    if face == "polars_lazy":
        pytest.importorskip("polars")
        from mycelium.frames import polars_lazy

        def refuse(*args, **kwargs):
            raise AssertionError("the per-type rows were collected")

        with mock.patch.object(polars_lazy, "_collected", refuse):
            plan = pl.DataFrame(ROWS).lazy().mycelium.evaluate("ref", "pred",
                                                               **_frame_options(opts))
        assert isinstance(plan, pl.LazyFrame)
        assert "AGGREGATE" in plan.explain()  # summed per (group, type) by Polars
        with pl.Config(streaming_chunk_size=7):  # a group's rows in several batches
            return plan.collect(engine="streaming").to_pandas()
    if face == "spark":
        return _spark(session, opts)
    return _cli(face.removeprefix("cli_"), opts, tmp_path)


@pytest.fixture()
def session(request):
    """The Spark session for the Spark column only (skips cleanly without pyspark)."""
    if request.node.callspec.params["face"] != "spark":
        return None
    return request.getfixturevalue("spark")


@pytest.mark.parametrize("scheme, typed_matching, average", CONFIGS)
@pytest.mark.parametrize("face", FACES)
def test_per_type_rows_equal_the_dict_face(face, scheme, typed_matching, average, session,
                                           tmp_path):
    opts = options(scheme, typed_matching, average)
    got = run_face(face, opts, session, tmp_path)
    want = expected(opts)
    rows = rows_of(got)
    assert rows.keys() == want.keys(), (face, set(rows) ^ set(want))
    assert list(rows) == list(want), face  # the rows in the dict face's order
    for key, (value, examples) in want.items():
        g = rows[key]
        assert same(g[0], value), (face, key, g, value)
        assert g[1] == examples, (face, key)
    assert set(got["average"]) == {average, "sum"}
    # in each group the typed_span rows (null type) come first, then the types in order
    for model in MODELS:
        part = got[[_key(m) == model for m in got["model"]]]
        types = [_key(t) for t in part["type"]]
        n = 3  # typed_span's precision, recall and f1
        assert types[:n] == [None] * n and list(part["metric"][:n]) == ["typed_span"] * n


def test_the_rows_have_every_type_and_the_scheme_matters():
    """The data exercises what the parity test claims: every type (and the null type)
    in every group, and the four schemes give four different typed_span values."""
    want = {s: expected(options(s, False, "micro")) for s in SCHEMES}
    types = {(k[0], k[1]) for k in want["strict"] if k[2] == "counts"}
    assert types == {(m, t) for m in MODELS for t in TYPES} | {(MODELS[1], "Z")}
    assert want["strict"][(MODELS[1], "Z", "counts", "n_ref")] == (0.0, 0)
    f1 = [want[s][("m1", None, "typed_span", "f1")][0] for s in SCHEMES]
    assert len(set(f1)) == 4, f1


def test_typed_matching_needs_type_field_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    assert main(["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred",
                 "--typed-matching"]) == 2
    assert "--typed-matching needs --type-field" in capsys.readouterr().err


def test_the_lazy_plan_tells_its_zero_length_spans_once():
    """Streamed in batches, the per-type rows still give one EmptySpanWarning per
    ``collect()``, with the whole frame's counts."""
    import warnings

    refs = sum(s["start"] == s["end"] for r in ROWS for s in r["ref"])
    preds = sum(s["start"] == s["end"] for r in ROWS for s in r["pred"])
    plan = pl.DataFrame(ROWS).lazy().mycelium.evaluate(
        "ref", "pred", **_frame_options(options("strict", True, "macro")))
    with warnings.catch_warnings(record=True) as seen, pl.Config(streaming_chunk_size=7):
        warnings.simplefilter("always")
        plan.collect(engine="streaming")
    told = [str(w.message) for w in seen if issubclass(w.category, mycelium.EmptySpanWarning)]
    assert refs and preds and len(told) == 1
    assert f"(start == end: {refs} in references, {preds} in predictions)" in told[0]
