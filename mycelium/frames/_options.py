"""The option types of the frame faces' signatures: the core's vocabularies
(`mycelium.core.types`), plus the argument shapes only the faces take."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from ..core.profiles import Profile
from ..core.types import Average, Granularity, Missing, ProfileName, Test
from ..core.types import ZeroDivision as _ZeroDivision

__all__ = ["Average", "Granularity", "Missing", "Test", "ProfileName", "ZeroDivision",
           "ProfileArg", "Metrics", "By", "Params", "TrimSpans"]

#: ``None``: the profile's policy, else 0.0; ``"nan"`` keeps undefined values as NaN.
ZeroDivision = Union[_ZeroDivision, None]
ProfileArg = Union[ProfileName, Profile, None]
Metrics = Union[str, Sequence[str], None]
By = Union[str, Sequence[str], None]
Params = Union[Mapping[str, Mapping[str, Any]], None]
#: ``trim_spans=``: ``None`` (off), ``"whitespace"`` or ``"punctuation"``.
TrimSpans = Union[Literal["whitespace", "punctuation"], None]
