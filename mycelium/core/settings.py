"""Resolution of scoring options: explicit arguments over the profile over the defaults.

`Settings` is the frozen result every face (evaluate, frames, CLI) scores with; it is
what the signature string records and what `parse_signature` gives back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from ..errors import closest_name
from ..metrics import METRICS, TOKEN_METRICS, recorded_params, resolve_metrics, resolve_params
from .aggregate import resolve_zero_division, warns, zero_division_label
from .pipeline import check_offsets
from .profiles import Profile, get_profile
from .types import (AVERAGES, GRANULARITIES, MISSING, Average, Granularity, Missing,
                    ZeroDivision)

__all__ = ["Bootstrap", "Settings", "resolve_settings", "validate_bootstrap",
           "GRANULARITIES", "MISSING", "TRIM_SPANS", "OPTIONS",
           "typed_options"]

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
    """Every scoring option of a call, validated: built once by each public face
    (`resolve_settings`) and passed whole to every layer below it.

    The first fields determine the numbers and make the signature
    (`mycelium.core.signature`); the last ones shape the call (which rows, which
    breakdown, a progress bar) and are not recorded.

    To add an option: a field here (with a default, so older callers keep working), its
    default in `OPTIONS` and its check in `resolve_settings`; when it changes the numbers,
    its field in `mycelium.core.signature.format_signature`; the code that uses it (the
    span options reach the spans in `mycelium.evaluate.prepare_for`); and the keyword
    with its docstring on each face that offers it. The faces hand their arguments on
    whole (`mycelium.evaluate.settled`, `mycelium.frames.engine.face_call`, the streamed
    score sums' `mycelium.frames.score_sums.score_sums`, `mycelium.cli.args.options_of`,
    the Accumulator's fields), so nothing else changes. A rule between options (one that
    cannot be combined with another yet) is a function here, called by every face
    (`typed_options`).
    """

    profile: Profile | None
    average: Average
    zero_division: float  # resolved: 0.0, 1.0 or NaN
    #: The metrics scored, resolved; empty while the score plan has yet to split the
    #: request (``asked``) into span and score metrics (`scoring`).
    metrics: tuple[str, ...]
    params: dict[str, dict[str, Any]]
    missing: Missing = "error"
    bootstrap: Bootstrap | None = None
    granularity: Granularity = "char"
    #: zero_division="warn": undefined values are 0.0 and each measure with one warns.
    warn_undefined: bool = False
    #: Span edges trimmed before scoring (`TRIM_SPANS`), or None.
    trim_spans: str | None = None
    #: How span offsets are read: "half-open" [s, e), or "inclusive" [s, e] as [s, e + 1)
    #: (`mycelium.core.pipeline.OFFSETS`).
    offsets: str = "half-open"
    #: The ``metrics`` option as given (a tuple of names), or None for the default set.
    asked: tuple[str, ...] | None = None
    #: ``threshold=``: scores above it are spans (a float or a `Tuned` value), or None.
    threshold: Any = None
    #: ``type_field=`` / ``typed_matching=``: the per-type breakdown.
    type_field: str | None = None
    typed_matching: bool = False
    include_per_example: bool = False
    progress: bool | None = None
    #: Each option as the caller spelled it (``None`` for ones left out), for the layers
    #: that pass the call on to another face (`mycelium.evaluate` per group).
    given: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

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

    def scoring(self, metrics: Any, *, soft: bool = False) -> Settings:
        """These settings scoring ``metrics`` (``asked``, or the span metrics of a score
        plan), resolved: None is the profile's set (its span metrics, and
        ``soft_spearman`` with soft labels), else every span metric. ``soft``: the call
        has soft labels."""
        names = _metric_names(self.profile, metrics, soft)
        _soft_granularity(soft, self.granularity)
        _typed_field(names, self.type_field)
        return replace(self, metrics=names)

    def option(self, name: str) -> Any:
        """The option ``name`` as the caller gave it (None when left out)."""
        return self.given.get(name)


#: Every option `resolve_settings` takes, with its default. ``soft``: the call has soft
#: labels; ``ids``: it keys resamples by ids; ``plan``: the metrics are a request the
#: score plan splits later (`Settings.scoring`), not span metrics to resolve now.
OPTIONS: dict[str, Any] = {
    "profile": None, "metrics": None, "average": None, "zero_division": None,
    "params": None, "missing": "error", "soft": False, "ci": None, "n_resamples": 1000,
    "seed": 0, "granularity": "char", "ids": False, "trim_spans": None, "threshold": None,
    "offsets": "half-open",
    "type_field": None, "typed_matching": False, "include_per_example": False,
    "progress": None, "plan": False,
}


def resolve_settings(**options: Any) -> Settings:
    """Validate every option and apply the precedence explicit > profile > default.

    The run-time check of every face's options (`OPTIONS`), so it takes any value (a CLI
    string, an unchecked argument) and raises ValueError or TypeError for an invalid
    one; the resulting `Settings` holds only valid values.

    Examples
    --------
    >>> s = resolve_settings(profile="mu_shroom", metrics="iou")
    >>> s.metrics, s.average, s.signature().split("|")[1]
    (('iou',), 'macro', 'profile:mu_shroom@2')
    >>> resolve_settings(averge="micro")
    Traceback (most recent call last):
    ...
    TypeError: resolve_settings() got an unexpected option 'averge'. Did you mean 'average'?
    """
    for name in options:
        if name not in OPTIONS:
            close = closest_name(name, list(OPTIONS))
            hint = f" Did you mean {close!r}?" if close else ""
            raise TypeError(f"resolve_settings() got an unexpected option {name!r}.{hint}")
    o = {**OPTIONS, **options}
    prof = get_profile(o["profile"])
    average = o["average"]
    if average is None:
        average = prof.average if prof else "macro"
    _choice("average", average, AVERAGES)
    zero_division = o["zero_division"]
    if zero_division is None:
        zero_division = prof.zero_division if prof else 0.0
    zd = resolve_zero_division(zero_division)
    metrics = o["metrics"]
    names = () if o["plan"] else _metric_names(prof, metrics, o["soft"])
    full = resolve_params(prof.params if prof else None, o["params"])
    _choice("missing", o["missing"], MISSING)
    boot = None
    if o["ci"] is not None:
        boot = Bootstrap(*validate_bootstrap(o["ci"], o["n_resamples"], o["seed"]),
                         keys="ids" if o["ids"] else "positions")
    _choice("granularity", o["granularity"], GRANULARITIES)
    if not o["plan"]:
        _soft_granularity(o["soft"], o["granularity"])
        _typed_field(names, o["type_field"])
    if o["trim_spans"] is not None:
        _choice("trim_spans", o["trim_spans"], TRIM_SPANS)
    check_offsets(o["offsets"])
    return Settings(prof, cast(Average, average), zd, names, full,
                        cast(Missing, o["missing"]), boot,
                        cast(Granularity, o["granularity"]), warns(zero_division),
                        o["trim_spans"], asked=_asked(metrics), threshold=o["threshold"],
                        type_field=o["type_field"], typed_matching=o["typed_matching"],
                        include_per_example=o["include_per_example"],
                        progress=o["progress"], offsets=o["offsets"],
                        given=dict(options))


def _metric_names(prof: Profile | None, metrics: Any, soft: bool) -> tuple[str, ...]:
    """The metrics scored: ``metrics`` resolved, None being the profile's (its span
    metrics, and soft ones with soft labels), else every span metric."""
    if metrics is None and prof is not None and prof.metrics is not None:
        metrics = [m for m in prof.metrics if m in METRICS or soft]
    return resolve_metrics(metrics, soft=soft)


#: The error of a call naming ``typed_span`` without ``type_field=``.
TYPED_SPAN_NEEDS_FIELD = ("Expected type_field= with metric 'typed_span', got none; fix by "
                          "naming the span field that holds each span's type, e.g. "
                          "type_field='label'.")


def _typed_field(names: tuple[str, ...], type_field: Any) -> None:
    """``typed_span`` reads each span's type from ``type_field``: required with it."""
    if "typed_span" in names and type_field is None:
        raise ValueError(TYPED_SPAN_NEEDS_FIELD)


def typed_options(settings: Settings) -> None:
    """Raise ValueError for the options the per-type breakdown (``type_field``) cannot
    take yet, the same on every face: ``trim_spans``. (Inclusive ``offsets`` are read
    by the per-type rows too.)"""
    if settings.type_field is None:
        return
    if settings.trim_spans is not None:
        raise ValueError("trim_spans and type_field cannot be combined yet (the per-type "
                         "breakdown would score untrimmed spans); fix by scoring the "
                         "breakdown in a separate call without trim_spans.")


def _soft_granularity(soft: bool, granularity: str) -> None:
    if soft and granularity != "char":
        raise ValueError("soft_spearman compares per-character probability vectors; it has "
                         "no word or sentence granularity. Score soft labels with "
                         "granularity='char' (in a separate call).")


def _asked(metrics: Any) -> Any:
    """The ``metrics`` option as a tuple of names (None and other values as given:
    `mycelium.metrics.resolve_metrics` names what is wrong with them)."""
    if isinstance(metrics, str):
        return (metrics,)
    if isinstance(metrics, (list, tuple)):
        return tuple(metrics)
    return metrics


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
    close = closest_name(value, valid)
    hint = f" Did you mean {close!r}?" if close else ""
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
