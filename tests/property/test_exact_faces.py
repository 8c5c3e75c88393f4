"""The slow, obvious implementations of ``exact_span``, ``iou`` and ``character`` in exact
fractions (sets of spans and of character positions, `fractions.Fraction`), against
every face: the dict (`mycelium.evaluate`), pandas, Polars eager and lazy (the streaming
engine, in batches of one row), the command line, the `Accumulator`, and Spark (fewer
examples: each is a Spark job).

The per-row faces (the pandas, Polars and LazyFrame ``score``, the Polars expressions) are
checked example by example, and the pandas results' zero-length span counts
(``attrs["mycelium_empty_spans"]``) against ``meta["empty_spans"]``.

The generators always include zero-length spans (``[s, s]``: no characters, dropped by
every metric, SPEC section 2; each face tells them by one `mycelium.EmptySpanWarning`
with the call's counts) and inclusive ends (``offsets="inclusive"`` reads ``[s, e]`` as
``[s, e + 1)``, checked against the hand conversion).
"""

from __future__ import annotations

import json
import math
import tempfile
import warnings
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mycelium
from _spark_fixture import spark  # noqa: F401  (the session fixture)

HI = 30
METRICS = ("exact_span", "iou", "character")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------ the generators

@st.composite
def span_set(draw):
    """0-4 spans in [0, HI]: random, zero-length, duplicated."""
    spans = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["random", "random", "zero", "duplicate"]))
        if kind == "duplicate" and spans:
            spans.append(list(draw(st.sampled_from(spans))))
            continue
        s = draw(st.integers(0, HI))
        spans.append([s, s if kind == "zero" else draw(st.integers(s, HI))])
    return spans


batches = st.lists(st.tuples(span_set(), span_set()), min_size=1, max_size=6)


# --------------------------------------------------- the obvious, in fractions

def _chars(spans):
    return {i for s, e in spans for i in range(s, e)}


def _ratio(num, den, undefined):
    return Fraction(num, den) if den else undefined


def _prf(tp, n_pred, n_ref):
    p, r = _ratio(tp, n_pred, Fraction(0)), _ratio(tp, n_ref, Fraction(0))
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else Fraction(0)}


def _statistics(refs, preds):
    """Per metric the counts of one example, read off sets."""
    r_set = {(s, e) for s, e in refs if s < e}
    p_set = {(s, e) for s, e in preds if s < e}
    g, p = _chars(refs), _chars(preds)
    return {"exact_span": (len(r_set & p_set), len(p_set), len(r_set)),
            "iou": (len(g & p), len(g | p)),
            "character": (len(g & p), len(p), len(g))}


def _values(metric, st_):
    if metric == "iou":
        inter, union = st_
        return {"score": _ratio(inter, union, Fraction(1))}
    return _prf(*st_)


def obvious(batch, average):
    """``{metric: {measure: float}}``: macro, the exact mean of the per-example values
    (each a float, as reported per example); micro, the values of the summed counts."""
    stats = [_statistics(r, p) for r, p in batch]
    out = {}
    for metric in METRICS:
        if average == "micro":
            summed = tuple(map(sum, zip(*(s[metric] for s in stats))))
            out[metric] = {k: float(v) for k, v in _values(metric, summed).items()}
        else:
            per = [_values(metric, s[metric]) for s in stats]
            out[metric] = {k: float(sum(Fraction(float(v[k])) for v in per) / len(per))
                           for k in per[0]}
    return out


# ------------------------------------------------------------------ the faces

def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mycelium.EmptySpanWarning)
        return call()


def _from_dict(report):
    return {m: dict(report[m]) for m in METRICS}


def _from_tidy(rows):
    out: dict = {}
    for metric, measure, value in rows:
        out.setdefault(metric, {})[measure] = value
    return out


def dict_face(refs, preds, average, **kw):
    return _from_dict(mycelium.evaluate(refs, preds, metrics=list(METRICS), average=average,
                                        **kw))


def pandas_face(refs, preds, average, **kw):
    df = pd.DataFrame({"ref": refs, "pred": preds})
    table = df.mycelium.evaluate("ref", "pred", metrics=list(METRICS), average=average, **kw)
    return _from_tidy(zip(table["metric"], table["measure"], table["value"]))


def _polars(refs, preds):
    pl = pytest.importorskip("polars")
    dtype = pl.List(pl.Struct({"start": pl.Int64, "end": pl.Int64}))
    as_dicts = [[{"start": s, "end": e} for s, e in spans] for spans in refs]
    pred_dicts = [[{"start": s, "end": e} for s, e in spans] for spans in preds]
    return pl.DataFrame({"ref": as_dicts, "pred": pred_dicts}, schema={"ref": dtype,
                                                                        "pred": dtype})


def polars_face(refs, preds, average, **kw):
    table = _polars(refs, preds).mycelium.evaluate("ref", "pred", metrics=list(METRICS),
                                                   average=average, **kw)
    return _from_tidy(zip(table["metric"], table["measure"], table["value"]))


def lazy_face(refs, preds, average, **kw):
    pytest.importorskip("polars")
    from mycelium.frames import polars_lazy

    slice_rows, polars_lazy._SLICE = polars_lazy._SLICE, 1  # every row a batch of its own
    try:
        table = _polars(refs, preds).lazy().mycelium.evaluate(
            "ref", "pred", metrics=list(METRICS), average=average, **kw).collect(
            engine="streaming")
    finally:
        polars_lazy._SLICE = slice_rows
    return _from_tidy(zip(table["metric"], table["measure"], table["value"]))


def cli_face(refs, preds, average, **kw):
    from mycelium.cli.app import main

    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "rows.jsonl", Path(tmp) / "out.json"
        path.write_text("".join(json.dumps({"ref": r, "pred": p}) + "\n"
                                for r, p in zip(refs, preds)), encoding="utf-8")
        flags = [a for k, v in kw.items() for a in (f"--{k}", str(v))]
        assert main(["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred",
                     "--metrics", ",".join(METRICS), "--average", average, *flags,
                     "--format", "json", "-o", str(out)]) == 0
        rows = json.loads(out.read_text(encoding="utf-8"))["records"]
    return _from_tidy((r["metric"], r["measure"],
                       math.nan if r["value"] is None else r["value"]) for r in rows)


def accumulator_face(refs, preds, average, **kw):
    acc = mycelium.Accumulator(metrics=list(METRICS), average=average, **kw)
    half = len(refs) // 2
    for a, b in ((0, half), (half, len(refs))):
        if b > a:
            acc.update(refs[a:b], preds[a:b])
    return _from_dict(acc.compute())


FACES = {"dict": dict_face, "pandas": pandas_face, "polars": polars_face,
         "polars_lazy": lazy_face, "cli": cli_face, "accumulator": accumulator_face}


def _same(got, want):
    for metric in METRICS:
        for measure, value in want[metric].items():
            g = got[metric][measure]
            assert (math.isnan(g) and math.isnan(value)) or g == value, \
                (metric, measure, g, value)


@pytest.mark.parametrize("face", list(FACES))
@pytest.mark.parametrize("average", ["macro", "micro"])
@SETTINGS
@given(batch=batches)
def test_every_face_equals_the_obvious_fractions(face, average, batch):
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    _same(_quiet(lambda: FACES[face](refs, preds, average)), obvious(batch, average))


@pytest.mark.parametrize("face", list(FACES))
@SETTINGS
@given(batch=batches, average=st.sampled_from(["macro", "micro"]))
def test_inclusive_ends_on_every_face_equal_the_conversion_by_hand(face, average, batch):
    # The generated spans read as inclusive [s, e]: the obvious values of [s, e + 1).
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    by_hand = [([[s, e + 1] for s, e in r], [[s, e + 1] for s, e in p]) for r, p in batch]
    got = _quiet(lambda: FACES[face](refs, preds, average, offsets="inclusive"))
    _same(got, obvious(by_hand, average))


def _empty(batch):
    """The zero-length spans each side lists (duplicates counted, as listed)."""
    return (sum(s == e for r, _ in batch for s, e in r),
            sum(s == e for _, p in batch for s, e in p))


@pytest.mark.parametrize("face", [f for f in FACES if f != "cli"])  # the CLI prints it
@SETTINGS
@given(batch=batches)
def test_every_face_tells_the_zero_length_spans_once_with_the_calls_counts(face, batch):
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        FACES[face](refs, preds, "micro")
    told = [(w.message.references, w.message.predictions) for w in seen
            if issubclass(w.category, mycelium.EmptySpanWarning)]
    counts = _empty(batch)
    if face == "accumulator":  # one warning per update (two here), each its batch's
        assert sum(r for r, _ in told) == counts[0] and sum(p for _, p in told) == counts[1]
    else:
        assert told == ([counts] if sum(counts) else [])


# ------------------------------------------------------------------- Spark

def spark_face(session, refs, preds, average, **kw):
    from mycelium.frames import spark as spark_face_module

    span = "array<struct<start: bigint, end: bigint>>"
    rows = [([{"start": s, "end": e} for s, e in r], [{"start": s, "end": e} for s, e in p])
            for r, p in zip(refs, preds)]
    sdf = session.createDataFrame(rows, f"ref {span}, pred {span}").repartition(2)
    table = spark_face_module.evaluate(sdf, "ref", "pred", metrics=list(METRICS),
                                       average=average, **kw)
    return _from_tidy(zip(table["metric"], table["measure"], table["value"]))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=batches, average=st.sampled_from(["macro", "micro"]),
       offsets=st.sampled_from(["half-open", "inclusive"]))
def test_spark_equals_the_obvious_fractions_and_tells_once(spark, batch, average, offsets):
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    want = batch if offsets == "half-open" else [
        ([[s, e + 1] for s, e in r], [[s, e + 1] for s, e in p]) for r, p in batch]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = spark_face(spark, refs, preds, average, offsets=offsets)
    _same(got, obvious(want, average))
    told = [(w.message.references, w.message.predictions) for w in seen
            if issubclass(w.category, mycelium.EmptySpanWarning)]
    counts = _empty(want)
    assert told == ([counts] if sum(counts) else [])


# ------------------------------------------------------- per-row faces and counts

def _per_row(batch) -> list[dict[str, float]]:
    """Each example's ``<metric>_<measure>`` values, read off sets."""
    return [{f"{m}_{k}": float(v) for m in METRICS
             for k, v in _values(m, _statistics(r, p)[m]).items()} for r, p in batch]


def pandas_rows(refs, preds, **kw):
    df = pd.DataFrame({"ref": refs, "pred": preds})
    return df.mycelium.score("ref", "pred", metrics=list(METRICS), **kw).to_dict("records")


def polars_rows(refs, preds, **kw):
    return _polars(refs, preds).mycelium.score("ref", "pred", metrics=list(METRICS),
                                               **kw).to_dicts()


def lazy_rows(refs, preds, **kw):
    return _polars(refs, preds).lazy().mycelium.score(
        "ref", "pred", metrics=list(METRICS), **kw).collect(engine="streaming").to_dicts()


def expr_rows(refs, preds, **kw):
    pl = pytest.importorskip("polars")
    frame = _polars(refs, preds)
    columns = [pl.col("ref").mycelium.score("pred", metric=m, measure=k, **kw)
               for m in METRICS for k in mycelium.METRICS[m].measures]
    return frame.select(columns).to_dicts() if refs else []


ROW_FACES = {"pandas": pandas_rows, "polars": polars_rows, "polars_lazy": lazy_rows,
             "polars_expr": expr_rows}


@pytest.mark.parametrize("face", list(ROW_FACES))
@SETTINGS
@given(batch=batches, offsets=st.sampled_from(["half-open", "inclusive"]))
def test_every_per_row_face_equals_the_obvious_fractions(face, batch, offsets):
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    want = batch if offsets == "half-open" else [
        ([[s, e + 1] for s, e in r], [[s, e + 1] for s, e in p]) for r, p in batch]
    got = _quiet(lambda: ROW_FACES[face](refs, preds, offsets=offsets))
    assert got == _per_row(want)


@SETTINGS
@given(batch=batches, offsets=st.sampled_from(["half-open", "inclusive"]))
def test_pandas_results_count_the_zero_length_spans_as_meta_does(batch, offsets):
    refs, preds = [r for r, _ in batch], [p for _, p in batch]
    meta = _quiet(lambda: mycelium.evaluate(refs, preds, metrics=list(METRICS),
                                            offsets=offsets))["meta"]["empty_spans"]
    counts = _empty(batch) if offsets == "half-open" else (0, 0)
    assert meta == {"references": counts[0], "predictions": counts[1]}
    df = pd.DataFrame({"ref": refs, "pred": preds})
    for call in (lambda: df.mycelium.evaluate("ref", "pred", metrics=list(METRICS),
                                              offsets=offsets),
                 lambda: df.mycelium.score("ref", "pred", metrics=list(METRICS),
                                           offsets=offsets)):
        assert _quiet(call).attrs["mycelium_empty_spans"] == meta
