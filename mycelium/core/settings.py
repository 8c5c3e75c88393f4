"""Resolution of scoring options: explicit arguments over the profile over the defaults.

`Settings` is the frozen result every face (evaluate, frames, CLI) scores with; it is
what the signature string records and what `parse_signature` gives back.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..metrics import METRICS, TOKEN_METRICS, recorded_params, resolve_metrics, resolve_params
from .aggregate import resolve_zero_division, warns, zero_division_label
from .pipeline import check_offsets
from .profiles import Profile, get_profile
from .types import (AVERAGES, GRANULARITIES, MISSING, Average, Granularity, Missing,
                    ZeroDivision)

__all__ = ["Bootstrap", "Settings", "resolve_settings", "validate_bootstrap",
           "GRANULARITIES", "MISSING", "TRIM_SPANS"]

#: Boundary normalisation (`mycelium.adapters.trim`): ``"whitespace"`` strips Unicode
#: White_Space from both ends of every span, ``"punctuation"`` White_Space and Unicode
#: punctuation (P*). Never on by default.
TRIM_SPANS = ("whitespace", "punctuation")


@dataclass(frozen=True)
class Bootstrap:
    """Percentile-bootstrap interval settings (see `mycelium.stats.bootstrap`)."""

    ci: float
    n_resamples: int
    seed: int
    keys: str = "positions"  # what identifies an example: "positions" or "ids"


@dataclass(frozen=True)
class Settings:
    """Everything that determines the numbers of a scoring call."""

    profile: Profile | None
    average: Average
    zero_division: float  # resolved: 0.0, 1.0 or NaN
    metrics: tuple[str, ...]
    params: dict[str, dict[str, Any]]
    missing: Missing = "error"
    bootstrap: Bootstrap | None = None
    granularity: Granularity = "char"
    #: zero_division="warn": undefined values are 0.0 and each measure with one warns.
    warn_undefined: bool = False
    #: Span edges trimmed before scoring (`TRIM_SPANS`), or None.
    trim_spans: str | None = None
    #: How span offsets are read: "half-open" [s, e) or "inclusive" [s, e] as [s, e + 1).
    offsets: str = "half-open"

    @property
    def span_metrics(self) -> tuple[str, ...]:
        return tuple(m for m in self.metrics if m in METRICS)

    @property
    def zero_division_label(self) -> ZeroDivision:
        return "warn" if self.warn_undefined else zero_division_label(self.zero_division)

    @property
    def zero_division_option(self) -> ZeroDivision:
        """The ``zero_division`` to aggregate a report with ("warn" warns there)."""
        return "warn" if self.warn_undefined else self.zero_division

    def resampling(self) -> Bootstrap:
        """The interval settings, for code that only runs when intervals were asked for."""
        if self.bootstrap is None:
            raise ValueError("These settings ask for no confidence intervals; expected "
                             "ci=<level> (e.g. 0.95); fix by passing ci.")
        return self.bootstrap

    def used_params(self) -> dict[str, dict[str, Any]]:
        """Parameters of the selected metrics only (quiet ones only when set,
        `mycelium.metrics.Param`)."""
        return {m: recorded_params(m, v) for m, v in self.params.items()
                if m in self.metrics}

    def signature(self) -> str:
        from .signature import format_signature

        return format_signature(self)


def resolve_settings(*, profile: str | Profile | None = None, metrics=None,
                     average: str | None = None, zero_division: Any = None,
                     params: Any = None, missing: str = "error", soft: bool = False,
                     ci: Any = None, n_resamples: Any = 1000, seed: Any = 0,
                     granularity: str = "char", ids: bool = False,
                     trim_spans: str | None = None, offsets: str = "half-open") -> Settings:
    """Validate every option and apply the precedence explicit > profile > default.

    The run-time check of every face's options, so it takes any value (a CLI string, an
    unchecked argument) and raises ValueError or TypeError for an invalid one; the
    resulting `Settings` holds only valid values.
    """
    prof = get_profile(profile)
    if average is None:
        average = prof.average if prof else "macro"
    _choice("average", average, AVERAGES)
    if zero_division is None:
        zero_division = prof.zero_division if prof else 0.0
    zd = resolve_zero_division(zero_division)
    if metrics is None and prof is not None and prof.metrics is not None:
        metrics = [m for m in prof.metrics if m in METRICS or soft]
    names = resolve_metrics(metrics, soft=soft)
    full = resolve_params(prof.params if prof else None, params)
    _choice("missing", missing, MISSING)
    boot = None
    if ci is not None:
        boot = Bootstrap(*validate_bootstrap(ci, n_resamples, seed),
                         keys="ids" if ids else "positions")
    _choice("granularity", granularity, GRANULARITIES)
    if soft and granularity != "char":
        raise ValueError("soft_spearman compares per-character probability vectors; it has "
                         "no word or sentence granularity. Score soft labels with "
                         "granularity='char' (in a separate call).")
    if trim_spans is not None:
        _choice("trim_spans", trim_spans, TRIM_SPANS)
    check_offsets(offsets)
    return Settings(prof, cast(Average, average), zd, names, full, cast(Missing, missing),
                    boot, cast(Granularity, granularity), warns(zero_division), trim_spans,
                    offsets)


def profile_default_metrics(profile, *, soft: bool) -> list[str] | None:
    """The default metrics of a profile with ``extra_metrics`` (its span metrics, then the
    extra ones), or None when the profile adds none (the usual default applies)."""
    prof = get_profile(profile)
    if prof is None or not prof.extra_metrics:
        return None
    # Metrics over tokens need token scores: a call with spans alone leaves them out.
    extra = [m for m in prof.extra_metrics if m not in TOKEN_METRICS]
    return [*resolve_settings(profile=prof, soft=soft).metrics, *extra]


def _choice(option: str, value: object, valid: tuple[str, ...]) -> None:
    """Raise ValueError for a value outside ``valid``, with a "did you mean"."""
    if isinstance(value, str) and value in valid:
        return
    close = difflib.get_close_matches(value, valid, n=1) if isinstance(value, str) else []
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{option}={value!r} is not supported; expected one of "
                     f"{', '.join(map(repr, valid))}.{hint}")


def validate_bootstrap(ci: Any, n_resamples: Any, seed: Any) -> tuple[float, int, int]:
    """Check the bootstrap options; return them normalised."""
    if isinstance(ci, (bool, np.bool_)) or not isinstance(ci, (int, float, np.integer,
                                                               np.floating)) \
            or not 0 < ci < 1:
        raise ValueError(f"ci={ci!r} is not a confidence level; expected a number in "
                         "(0, 1), e.g. 0.95.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 2:
        raise ValueError(f"n_resamples={n_resamples!r}; expected an integer >= 2 "
                         "(1000 or more for a 95% interval).")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < 2**64:
        raise ValueError(f"seed={seed!r}; expected an integer in [0, 2**64) (it is "
                         "recorded in the signature so that intervals can be reproduced).")
    return float(ci), int(n_resamples), int(seed)
