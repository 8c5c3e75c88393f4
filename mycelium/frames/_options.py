"""The option types of the frame faces' signatures (the values `mycelium.evaluate` accepts).

Each ``Literal`` lists exactly the values the core validates (``AVERAGES``,
``GRANULARITIES``, ``MISSING`` of `mycelium.core`, the profiles of ``PROFILES``, the tests
of `mycelium.compare`); tests/frames/test_annotations.py keeps them equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from ..core.profiles import Profile

Average = Literal["macro", "micro"]
Granularity = Literal["char", "word", "sentence"]
Missing = Literal["error", "empty", "drop"]
Test = Literal["paired_bootstrap", "permutation"]
ProfileName = Literal["mu_shroom", "ragtruth"]
#: ``None``: the profile's policy, else 0.0; ``"nan"`` keeps undefined values as NaN.
ZeroDivision = Union[float, Literal["nan"], None]
ProfileArg = Union[ProfileName, Profile, None]
Metrics = Union[str, Sequence[str], None]
By = Union[str, Sequence[str], None]
Params = Union[Mapping[str, Mapping[str, Any]], None]
