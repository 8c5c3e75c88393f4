"""The registry of span metrics: one module per metric, each exporting ``METRIC``.

Every metric is defined by per-example sufficient statistics (see each module's
docstring for its definition, statistics and edge cases); micro and macro averages,
groups and confidence intervals are all computed from those statistics by
`mycelium.core.aggregate`, never by re-matching spans.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..errors import closest_name

from . import character, cleval_1d, deteval_1d, exact_span, iou, span_coverage
from ._base import Metric, Param, Workspace

__all__ = ["METRICS", "SCORE_METRICS", "POOLED_METRICS", "TOKEN_METRICS", "Metric", "Param",
           "Workspace",
           "resolve_metrics", "resolve_params", "recorded_params"]

#: Every span metric, in report order.
METRICS: dict[str, Metric] = {
    m.name: m
    for m in (exact_span.METRIC, iou.METRIC, character.METRIC, deteval_1d.METRIC,
              cleval_1d.METRIC, span_coverage.METRIC)
}

#: Metrics computed from soft labels (their values are never micro-averaged).
SOFT_METRICS = ("soft_spearman",)

#: Threshold-free metrics of detector scores (SPEC section 9), from weighted points; and
#: span metrics that are always pooled over examples. Neither is in the default set.
from . import char_ap, char_auroc, response_auroc, response_level, token_level  # noqa: E402

SCORE_METRICS = {m.NAME: m for m in (char_auroc, char_ap, response_auroc)}
POOLED_METRICS: dict[str, Metric] = {m.name: m for m in (response_level.METRIC,
                                                         token_level.METRIC)}
#: Pooled metrics whose items are tokens: computed only from token scores at a threshold.
TOKEN_METRICS = ("token_level",)


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> ValueError:
    """A ValueError for an unknown name, listing the valid ones with a "did you mean"."""
    valid = list(valid)
    close = closest_name(name, valid)
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(f"Unknown {kind} {name!r}.{hint} Valid {kind}s: {', '.join(valid)}.")


def resolve_metrics(metrics, *, soft: bool) -> tuple[str, ...]:
    """Validate metric names (a name or a sequence of names; None = all that apply)."""
    valid = list(METRICS) + list(SOFT_METRICS)
    if metrics is None:
        return tuple(METRICS) + (SOFT_METRICS if soft else ())
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError(f"metrics is a {type(metrics).__name__}; expected a metric name or "
                        f"a list of names from: {', '.join(valid)}.") from None
    out = []
    for name in names:
        if name not in valid:
            raise unknown_name("metric", name, valid)
        if name in SOFT_METRICS and not soft:
            raise ValueError(f"metric {name!r} needs soft labels: pass soft_references "
                             "and soft_predictions.")
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError(f"metrics is empty; name at least one of: {', '.join(valid)}.")
    return tuple(out)


def resolve_params(*layers: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Merge parameter layers (later wins) over the defaults; validate names and values."""
    known_metrics = {**METRICS, **POOLED_METRICS}
    out = {name: m.default_params() for name, m in known_metrics.items() if m.params}
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, Mapping):
            raise TypeError(f"params is a {type(layer).__name__}; expected a dict such as "
                            "{'deteval_1d': {'recall_threshold': 0.8}}.")
        for metric, values in layer.items():
            if metric not in out:
                raise unknown_name("parameterised metric", metric, out)
            if not isinstance(values, Mapping):
                raise TypeError(f"params[{metric!r}] is a {type(values).__name__}; expected "
                                "a dict of parameter values.")
            known = {p.name: p for p in known_metrics[metric].params}
            for key, value in values.items():
                if key not in known:
                    raise unknown_name(f"{metric} parameter", key, known)
                out[metric][key] = known[key].validate(metric, value)
    return out


def recorded_params(metric: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A metric's resolved parameters as ``meta["params"]`` and signatures record them:
    without its quiet parameters while they have their default (`Param`)."""
    known = {**METRICS, **POOLED_METRICS}
    if metric not in known:
        return dict(values)
    return known[metric].recorded(values)
