"""The option vocabularies are defined once (`mycelium.core.types`): the Literal aliases
that type checkers see are the values the run-time checks accept, and the public
signatures carry them."""

from __future__ import annotations

import inspect
import typing

import pytest

import mycelium
from mycelium.core import types
from mycelium.core.settings import resolve_settings


def test_literal_aliases_are_the_accepted_values():
    assert typing.get_args(types.Average) == ("macro", "micro")
    assert typing.get_args(types.Granularity) == ("char", "word", "sentence")
    assert typing.get_args(types.Missing) == ("error", "empty", "drop")
    assert typing.get_args(types.Test) == ("paired_bootstrap", "permutation")
    assert types.PROFILE_NAMES == tuple(mycelium.PROFILES) == (
        "mu_shroom", "ragtruth", "psiloqa", "fava", "lettucedetect", "shroom_visions")
    from mycelium.core.aggregate import AVERAGES
    from mycelium.core.settings import GRANULARITIES, MISSING
    from mycelium.stats.comparison import TESTS
    assert (AVERAGES, GRANULARITIES, MISSING, TESTS) == (
        types.AVERAGES, types.GRANULARITIES, types.MISSING, types.TESTS)


@pytest.mark.parametrize("option,value,valid", [
    ("average", "mikro", "'macro', 'micro'"),
    ("missing", "skip", "'error', 'empty', 'drop'"),
    ("granularity", "token", "'char', 'word', 'sentence'"),
])
def test_values_outside_the_alias_are_rejected(option, value, valid):
    with pytest.raises(ValueError, match=f"{option}={value!r} is not supported; expected "
                                          f"one of {valid}"):
        resolve_settings(**{option: value})


def test_public_signatures_carry_the_aliases():
    hints = typing.get_type_hints(mycelium.evaluate)
    assert hints["average"] == typing.Optional[types.Average]
    assert hints["granularity"] == types.Granularity
    assert hints["missing"] == types.Missing
    assert hints["zero_division"] == typing.Optional[types.ZeroDivision]
    assert typing.get_type_hints(mycelium.compare)["test"] == types.Test
    assert typing.get_type_hints(mycelium.get_profile)["profile"] == typing.Optional[
        typing.Union[str, mycelium.Profile]]
    assert inspect.signature(mycelium.aggregate).parameters["average"].default == "macro"
