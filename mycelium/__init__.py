"""mycelium: score hallucination-span detectors the way each benchmark does, and all ways at once.

The names here are the ones most calls need: `evaluate` (and `Accumulator`, the same in
a loop), `compare`, the benchmark loaders, `show` / `explain` to look at examples, the
span type and profiles. Everything else lives in the subpackage its layer names, lowest
first (docs/architecture.md, "Where things live"):

- `mycelium.metrics`: one module per metric, the kernels over span arrays;
- `mycelium.core`: spans, inputs, settings, profiles, signature, the statistics pipeline,
  aggregation, exact sums, detector scores as weighted runs;
- `mycelium.adapters`: detector output onto characters (`align_tokens`, `convert_offsets`,
  `anchor_phrases`, `parse_tagged`);
- `mycelium.views`: other units and breakdowns (granularity, typology);
- `mycelium.stats`: intervals, paired comparisons, metric agreement;
- `mycelium.scores`: spans at a threshold, sweeps and tuned thresholds, baselines from a
  model's own signals;
- `mycelium.evaluate` and `mycelium.accumulator`: the dict face;
- `mycelium.frames`: pandas, Polars (eager and lazy) and Spark faces over one engine;
- `mycelium.datasets`: benchmarks by name (files, hashes, licences, citations, the local
  cache) and the published leaderboards ``mycelium rank`` places a submission on;
- `mycelium.io`: Parquet and the benchmark loaders;
- `mycelium.annotators`: many annotators as an input;
- `mycelium.protocols`: benchmark procedures beyond a profile (the Mu-SHROOM scorer,
  PsiloQA's and FAVA's);
- `mycelium.report`: span views, explanations, the HTML report and its figures;
- `mycelium.integrations`: other libraries' loops;
- `mycelium.cli`: the ``mycelium`` command.

Names that used to be exported here (``mycelium.sweep``, ``mycelium.leave_one_out``, ...)
still resolve, to the same objects as their subpackages'.
"""

import sys
import types

from ._version import __version__
from .core.lazy import lazy_names
from .errors import (EmptySpanWarning, MyceliumError, SpanValidationError,
                     UndefinedMetricWarning)
from .frames import hooks as _hooks


__all__ = [
    "evaluate", "statistics", "aggregate", "per_example", "Accumulator", "compare",
    "show", "explain", "explain_view",
    "read_mushroom", "read_ragtruth", "read_ragtruth_pp", "read_psiloqa", "read_fava",
    "read_lettucedetect", "read_parquet", "write_parquet",
    "spans_at", "align_tokens",
    "to_spans", "SPAN_TYPE", "Profile", "PROFILES", "get_profile", "parse_signature",
    "METRICS", "MyceliumError", "SpanValidationError", "UndefinedMetricWarning",
    "EmptySpanWarning", "__version__",
]

#: The public names above that load on first use, and the module that defines each.
_LAZY = {
    "statistics": "evaluate",
    "aggregate": "core.aggregate", "per_example": "core.aggregate",
    "to_spans": "core.inputs", "SPAN_TYPE": "core.spans",
    "PROFILES": "core.profiles", "Profile": "core.profiles", "get_profile": "core.profiles",
    "parse_signature": "core.signature", "METRICS": "metrics", "compare": "stats.comparison",
    "Accumulator": "accumulator",
    "show": "report", "explain": "report", "explain_view": "report",
    "read_mushroom": "io", "read_ragtruth": "io", "read_ragtruth_pp": "io",
    "read_psiloqa": "io", "read_fava": "io", "read_lettucedetect": "io",
    "read_parquet": "io", "write_parquet": "io",
    "spans_at": "scores", "align_tokens": "adapters",
}
#: Names exported here by earlier versions, now found in their subpackages (not listed by
#: ``dir``; each resolves to the same object as its new home).
_EARLIER = {
    "metric_agreement": "stats",
    "sweep": "scores", "tune_threshold": "scores", "token_logit_scores": "scores",
    "plot_sweep": "report.sweep_plot",
    "score_psiloqa": "protocols", "score_fava": "protocols",
    "convert_offsets": "adapters", "anchor_phrases": "adapters", "parse_tagged": "adapters",
    "attach_dataset": "io", "dataset_of": "io", "Dataset": "io",
    "annotator_table": "annotators", "pairwise_agreement": "annotators",
    "leave_one_out": "annotators", "majority_reference": "annotators",
    "soft_reference": "annotators",
    "_frame_view": "report.frame",  # df.mycelium.show: the view layer sits above frames
}
#: Subpackages reachable as attributes without their own import (``mycelium.scores.sweep``).
_SUBPACKAGES = ("metrics", "core", "adapters", "views", "stats", "scores", "frames", "datasets",
                "io", "annotators", "protocols", "report", "integrations", "accumulator")

_public_getattr, _public_dir = lazy_names(
    __name__, {**_LAZY, **{m: m for m in _SUBPACKAGES}}, globals())


class _Package(types.ModuleType):
    """This package's module type: ``mycelium.evaluate`` stays the function.

    The function and the module that defines it share a name, and the import system sets
    a submodule as an attribute of its package when it first loads it. With the function
    loaded lazily, the first ``import mycelium.evaluate`` (by any module) would otherwise
    put the module where the function belongs."""

    def __setattr__(self, name: str, value) -> None:
        if name == "evaluate" and isinstance(value, types.ModuleType):
            value = value.evaluate
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    if name == "evaluate":  # the function (_Package keeps it in place of its module)
        from .evaluate import evaluate

        return evaluate
    if name in _EARLIER:
        import importlib

        value = getattr(importlib.import_module(f".{_EARLIER[name]}", __name__), name)
        globals()[name] = value
        return value
    return _public_getattr(name)


def __dir__() -> list[str]:
    """Every public name, the lazily loaded ones included (for completion in notebooks)."""
    return sorted(set(_public_dir()) - set(_EARLIER) | set(__all__))


# Nothing heavy is imported here: numpy, pyarrow and the scoring modules load with the
# first name that needs them, so that ``mycelium --version`` and a bare ``import
# mycelium`` stay fast. ``df.mycelium`` and ``pl.DataFrame.mycelium`` are registered as
# soon as pandas or Polars is imported (mycelium.frames.hooks).
# Last, once the package's module type and __getattr__ are in place: when pandas is
# already imported, install() registers the accessor at once, which imports the scoring
# modules (mycelium.evaluate among them) while this package is still loading.
_hooks.install()
