"""The option vocabularies of the public API, defined once as `typing.Literal` aliases.

Each alias is both what a type checker sees in the signatures of `mycelium.evaluate`,
`mycelium.compare`, the frame faces and `mycelium.Profile`, and (through
`typing.get_args`) the tuple of values the run-time checks accept, so the two cannot
drift apart.

Examples
--------
>>> from typing import get_args
>>> from mycelium.core.types import Average, Granularity
>>> get_args(Average), get_args(Granularity)
(('macro', 'micro'), ('char', 'word', 'sentence'))
"""

from __future__ import annotations

from typing import Literal, Union, get_args

__all__ = ["Average", "Granularity", "Missing", "Test", "ProfileName", "ZeroDivision",
           "AVERAGES", "GRANULARITIES", "MISSING", "TESTS", "PROFILE_NAMES"]

#: How measures are aggregated over examples: mean of per-example values (``"macro"``)
#: or the measure of the summed statistics (``"micro"``).
Average = Literal["macro", "micro"]
#: The unit of scoring (`mycelium.views.granularity` maps spans onto words or sentences).
Granularity = Literal["char", "word", "sentence"]
#: What a null span list in a batch means: an error, an empty span set, or a dropped
#: example.
Missing = Literal["error", "empty", "drop"]
#: How `mycelium.compare` computes its p-values.
Test = Literal["paired_bootstrap", "permutation"]
#: The names of the built-in profiles (`mycelium.PROFILES`).
ProfileName = Literal["mu_shroom", "ragtruth", "psiloqa", "fava", "lettucedetect",
                      "shroom_visions"]
#: The value of an undefined (0/0) precision or recall: 0.0, 1.0, ``"nan"`` (leave the
#: example out of macro means) or ``"warn"`` (0.0, and a `mycelium.UndefinedMetricWarning`
#: per measure naming how many examples were undefined). Other numbers are rejected at
#: run time.
ZeroDivision = Union[float, Literal["nan", "warn"]]

AVERAGES: tuple[str, ...] = get_args(Average)
GRANULARITIES: tuple[str, ...] = get_args(Granularity)
MISSING: tuple[str, ...] = get_args(Missing)
TESTS: tuple[str, ...] = get_args(Test)
PROFILE_NAMES: tuple[str, ...] = get_args(ProfileName)
