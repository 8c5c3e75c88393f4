"""The public faces are typed and documented: their ``Literal`` option types list exactly
the values the core accepts, every annotation resolves, and every public function and
method has a numpydoc docstring with Parameters, Returns and a doctested Examples section."""

from __future__ import annotations

import importlib.util
import typing
from typing import Literal, Union, get_args, get_origin, get_type_hints

import pytest

import mycelium.io
import mycelium.protocols.mushroom
from mycelium.cli import main
from mycelium.core.aggregate import AVERAGES
from mycelium.core.profiles import PROFILES, Profile
from mycelium.core.settings import GRANULARITIES, MISSING
from mycelium.frames import _options
from mycelium.frames.pandas import MyceliumAccessor
from mycelium.legacy import span_coverage
from mycelium.stats.comparison import TESTS

HAS_POLARS = importlib.util.find_spec("polars") is not None
HAS_SPARK = importlib.util.find_spec("pyspark") is not None


def test_literal_options_are_the_values_the_core_validates():
    assert get_args(_options.Average) == AVERAGES == ("macro", "micro")
    assert get_args(_options.Granularity) == GRANULARITIES == ("char", "word", "sentence")
    assert get_args(_options.Missing) == MISSING == ("error", "empty", "drop")
    assert get_args(_options.Test) == TESTS == ("paired_bootstrap", "permutation")
    assert get_args(_options.ProfileName) == tuple(PROFILES) == (
        "mu_shroom", "ragtruth", "psiloqa", "fava", "lettucedetect", "shroom_visions")
    assert set(get_args(_options.ZeroDivision)) == {float, Literal["nan", "warn"], type(None)}
    assert set(get_args(_options.ProfileArg)) == {
        Literal["mu_shroom", "ragtruth", "psiloqa", "fava", "lettucedetect",
                "shroom_visions"], Profile,
        type(None)}


def _public() -> list:
    out = [MyceliumAccessor.evaluate, MyceliumAccessor.score, MyceliumAccessor.compare,
           main, span_coverage.span_coverage, span_coverage.span_coverage_counts]
    out += [getattr(mycelium.io, n) for n in ("read_parquet", "write_parquet",
                                              "read_mushroom", "read_ragtruth")]
    out += [getattr(mycelium.protocols.mushroom, n) for n in mycelium.protocols.mushroom.__all__
            if callable(getattr(mycelium.protocols.mushroom, n))
            and not isinstance(getattr(mycelium.protocols.mushroom, n), type)]
    if HAS_POLARS:
        from mycelium.frames.polars import MyceliumExpr, MyceliumFrame
        from mycelium.frames.polars_lazy import MyceliumLazyFrame

        out += [MyceliumFrame.evaluate, MyceliumFrame.score, MyceliumFrame.compare,
                MyceliumExpr.statistics, MyceliumExpr.score, MyceliumLazyFrame.evaluate,
                MyceliumLazyFrame.score]
    if HAS_SPARK:
        from mycelium.frames import spark

        out.append(spark.evaluate)
    return out


PUBLIC = _public()


def _hints(func, **kwargs) -> dict:
    """``get_type_hints``, with the optional modules a signature names only for type
    checkers (``if TYPE_CHECKING:`` imports of polars, pyspark and pandas)."""
    import pandas as pd

    import types

    optional = {"pd": pd}
    if HAS_POLARS:
        import polars

        optional["polars"] = polars
    else:  # the annotations still resolve: to stand-in classes of the same names
        optional["polars"] = types.SimpleNamespace(
            **{n: type(n, (), {}) for n in ("DataFrame", "LazyFrame", "Series", "Expr")})
    if HAS_SPARK:
        import pyspark.sql

        optional["pyspark"] = pyspark
    else:
        optional["pyspark"] = types.SimpleNamespace(
            sql=types.SimpleNamespace(DataFrame=type("DataFrame", (), {})))
    return get_type_hints(func, localns=optional, **kwargs)


@pytest.mark.parametrize("func", PUBLIC, ids=lambda f: f.__qualname__)
def test_public_docstrings_are_numpydoc_with_examples(func):
    doc = func.__doc__ or ""
    sections = ["Parameters\n", "Examples\n"]
    if _hints(func)["return"] is not type(None):  # numpydoc: no Returns for None
        sections.append("Returns\n")
    for section in sections:
        assert section in doc, f"{func.__module__}.{func.__qualname__} lacks {section!r}"
    assert ">>> " in doc.split("Examples\n", 1)[1]


@pytest.mark.parametrize("func", PUBLIC, ids=lambda f: f.__qualname__)
def test_public_annotations_resolve_and_return_types_are_given(func):
    hints = _hints(func, include_extras=True)
    assert "return" in hints
    params = [p for p in func.__code__.co_varnames[:func.__code__.co_argcount
                                                    + func.__code__.co_kwonlyargcount]
              if p != "self"]
    if func not in (span_coverage.span_coverage, span_coverage.span_coverage_counts):
        assert [p for p in params if p not in hints] == [], func.__qualname__


def _literal_values(hint) -> set:
    """The strings a hint's ``Literal`` parts allow (looking inside Optional/Union)."""
    if get_origin(hint) is Literal:
        return set(get_args(hint))
    if get_origin(hint) in (Union, getattr(typing, "UnionType", None)) or \
            type(hint).__name__ == "UnionType":
        return set().union(*(_literal_values(a) for a in get_args(hint)))
    return set()


@pytest.mark.parametrize("func", PUBLIC, ids=lambda f: f.__qualname__)
def test_option_parameters_are_literal_types(func):
    expected = {"average": {"macro", "micro"}, "granularity": {"char", "word", "sentence"},
                "test": {"paired_bootstrap", "permutation"},
                "missing": {"error", "empty", "drop"}, "zero_division": {"nan", "warn"}}
    if func.__module__ == "mycelium.legacy.span_coverage":  # standalone: no warnings
        expected["zero_division"] = {"nan"}
    hints = _hints(func)
    for name, values in expected.items():
        if name in hints:
            assert _literal_values(hints[name]) == values, (func.__qualname__, name)
