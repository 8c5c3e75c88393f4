"""The registry of span metrics: one module per metric, each exporting ``METRIC``.

Every metric is defined by per-example sufficient statistics (see each module's
docstring for its definition, statistics and edge cases); micro and macro averages,
groups and confidence intervals are all computed from those statistics by
`mycelium.core.aggregate`, never by re-matching spans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ..errors import closest_name

from . import character, cleval_1d, deteval_1d, exact_span, iou, span_coverage, typed_span
from .base import Metric, Param, Workspace

__all__ = ["REGISTRY", "Entry", "names", "fixed_average",
           "METRICS", "SCORE_METRICS", "POOLED_METRICS", "TOKEN_METRICS", "TYPED_METRICS",
           "STATISTIC_METRICS", "Metric", "Param",
           "Workspace",
           "resolve_metrics", "resolve_params", "recorded_params"]

@dataclass(frozen=True)
class Entry:
    """One metric of the registry.

    ``family``: ``"span"`` (statistics per example, micro or macro), ``"typed"`` (the same,
    from typed spans: needs ``type_field=``, never in the default set), ``"soft"`` (from soft
    labels), ``"score"`` (threshold-free, from detector scores) or ``"pooled"`` (span
    metrics pooled over the examples). ``metric``: what computes it (a `Metric`, a score
    metric's module, or None for ``soft_spearman``, computed from soft labels).
    ``average``: the average its value always has whatever ``average`` says (None: the
    one asked for). ``tokens``: its items are tokens (it needs token scores at a
    threshold)."""

    name: str
    family: str
    metric: Any = None
    average: str | None = None
    tokens: bool = False


from . import char_ap, char_auroc, response_auroc, response_level, token_level  # noqa: E402

#: Every metric, by name, in report order: the one registry. The lookups below (and
#: `names`, `fixed_average`) are its views.
REGISTRY: dict[str, Entry] = {e.name: e for e in (
    *(Entry(m.name, "span", m) for m in (exact_span.METRIC, iou.METRIC, character.METRIC,
                                        deteval_1d.METRIC, cleval_1d.METRIC,
                                        span_coverage.METRIC)),
    Entry(typed_span.METRIC.name, "typed", typed_span.METRIC),
    Entry("soft_spearman", "soft", average="macro"),
    Entry("soft_spearman_by_label", "soft", average="macro"),
    Entry(char_auroc.NAME, "score", char_auroc),
    Entry(char_ap.NAME, "score", char_ap),
    Entry(response_auroc.NAME, "score", response_auroc, average="micro"),
    Entry(response_level.METRIC.name, "pooled", response_level.METRIC, average="micro"),
    Entry(token_level.METRIC.name, "pooled", token_level.METRIC, average="micro",
          tokens=True),
)}


def names(*families: str) -> tuple[str, ...]:
    """The registry's names of these families (all of them without one), in its order.

    Examples
    --------
    >>> names("score")
    ('char_auroc', 'char_ap', 'response_auroc')
    """
    return tuple(n for n, e in REGISTRY.items() if not families or e.family in families)


def fixed_average(name: str) -> str | None:
    """The average metric ``name`` always reports (pooled metrics: ``"micro"``;
    ``soft_spearman``: ``"macro"``), or None when it follows ``average``.

    Examples
    --------
    >>> fixed_average("response_level"), fixed_average("iou")
    ('micro', None)
    """
    entry = REGISTRY.get(name)
    return None if entry is None else entry.average


#: Every span metric, in report order.
METRICS: dict[str, Metric] = {n: REGISTRY[n].metric for n in names("span")}
#: Metrics whose statistics need each span's type (``type_field=``): scored only when
#: named (the untyped `Workspace` cannot compute them).
TYPED_METRICS: dict[str, Metric] = {n: REGISTRY[n].metric for n in names("typed")}
#: Every metric of per-example sufficient statistics, summed for micro averages: what
#: `mycelium.core.aggregate` and `mycelium.stats` look metrics up in.
STATISTIC_METRICS: dict[str, Metric] = {**METRICS, **TYPED_METRICS}
#: Metrics computed from soft labels (their values are never micro-averaged).
SOFT_METRICS = names("soft")
#: The soft metrics scored by default with soft labels (``soft_spearman_by_label`` needs
#: each span's ``label``: only when named, or by a profile such as ``shroom_visions``).
SOFT_DEFAULT = ("soft_spearman",)
#: Threshold-free metrics of detector scores (SPEC section 9), from weighted points; and
#: span metrics that are always pooled over examples. Neither is in the default set.
SCORE_METRICS = {n: REGISTRY[n].metric for n in names("score")}
POOLED_METRICS: dict[str, Metric] = {n: REGISTRY[n].metric for n in names("pooled")}
#: Pooled metrics whose items are tokens: computed only from token scores at a threshold.
TOKEN_METRICS = tuple(n for n, e in REGISTRY.items() if e.tokens)


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> ValueError:
    """A ValueError for an unknown name, listing the valid ones with a "did you mean"."""
    valid = list(valid)
    close = closest_name(name, valid)
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(f"Unknown {kind} {name!r}.{hint} Valid {kind}s: {', '.join(valid)}.")


def resolve_metrics(metrics, *, soft: bool) -> tuple[str, ...]:
    """Validate metric names (a name or a sequence of names; None = all that apply)."""
    valid = list(METRICS) + list(TYPED_METRICS) + list(SOFT_METRICS)
    if metrics is None:
        return tuple(METRICS) + (SOFT_DEFAULT if soft else ())
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
    known_metrics = {**STATISTIC_METRICS, **POOLED_METRICS}
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
    known = {**STATISTIC_METRICS, **POOLED_METRICS}
    if metric not in known:
        return dict(values)
    return known[metric].recorded(values)
