"""Resolution of scoring options: explicit arguments over the profile over the defaults.

`Settings` is the frozen result every face (evaluate, frames, CLI) scores with; it is
what the signature string records and what `parse_signature` gives back.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import METRICS, resolve_metrics, resolve_params
from .aggregate import AVERAGES, resolve_zero_division, zero_division_label
from .profiles import Profile, get_profile

MISSING = ("error", "empty", "drop")
#: Units of scoring (`mycelium.views.granularity` maps spans onto them).
GRANULARITIES = ("char", "word", "sentence")
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
    average: str
    zero_division: float
    metrics: tuple[str, ...]
    params: dict[str, dict[str, Any]]
    missing: str = "error"
    bootstrap: Bootstrap | None = None
    granularity: str = "char"
    trim_spans: str | None = None

    @property
    def span_metrics(self) -> tuple[str, ...]:
        return tuple(m for m in self.metrics if m in METRICS)

    @property
    def zero_division_label(self):
        return zero_division_label(self.zero_division)

    def used_params(self) -> dict[str, dict[str, Any]]:
        """Parameters of the selected metrics only."""
        return {m: dict(v) for m, v in self.params.items() if m in self.metrics}

    def signature(self) -> str:
        from .signature import format_signature

        return format_signature(self)


def resolve_settings(*, profile=None, metrics=None, average=None, zero_division=None,
                     params=None, missing="error", soft=False, ci=None, n_resamples=1000,
                     seed=0, granularity="char", ids=False, trim_spans=None) -> Settings:
    """Validate every option and apply the precedence explicit > profile > default."""
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
    return Settings(prof, average, zd, names, full, missing, boot, granularity, trim_spans)


def _choice(option: str, value, valid) -> None:
    """Raise ValueError for a value outside ``valid``, with a "did you mean"."""
    if isinstance(value, str) and value in valid:
        return
    close = difflib.get_close_matches(value, valid, n=1) if isinstance(value, str) else []
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{option}={value!r} is not supported; expected one of "
                     f"{', '.join(map(repr, valid))}.{hint}")


def validate_bootstrap(ci, n_resamples, seed) -> tuple[float, int, int]:
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
