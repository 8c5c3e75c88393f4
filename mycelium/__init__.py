"""mycelium: score hallucination-span detectors the way each benchmark does, and all ways at once.

Public names only; see `mycelium.evaluate` for the entry point and
``mycelium.metrics.<name>`` for each metric's definition. The package is laid out by
layer, lowest first: ``metrics`` (the kernels), ``core`` (spans, inputs, settings, the
statistics pipeline, aggregation), ``adapters`` (detector output onto characters),
``views`` (granularity, typology), ``stats`` (intervals, comparisons, agreement), the
dict face ``evaluate`` with ``accumulator``, ``scoring``, ``thresholds`` and
``baselines`` beside it, ``frames`` (pandas, Polars, Spark), ``io`` and ``mushroom``
(files) with ``annotators`` (many annotators as an input), ``report`` (span views, the
HTML report), ``cli`` (the command).
"""

from . import _aliases
from ._version import __version__
from .core.aggregate import aggregate, per_example
from .core.inputs import to_spans
from .core.profiles import PROFILES, Profile, get_profile
from .core.signature import parse_signature
from .core.spans import SPAN_TYPE
from .errors import MyceliumError, SpanValidationError, UndefinedMetricWarning
from .evaluate import evaluate, statistics
from .frames import _polars_hook
from .frames import pandas as _pandas_face  # noqa: F401  (registers df.mycelium)
from .metrics import METRICS
from .stats.agreement import metric_agreement
from .stats.comparison import compare

_aliases.install()  # mycelium 0.1's module paths (mycelium.spark, mycelium.bootstrap, ...)
_polars_hook.install()  # pl.DataFrame.mycelium / pl.LazyFrame.mycelium, lazily

_LAZY = {  # public names whose modules load on first use
    "read_parquet": "io", "write_parquet": "io",
    "read_mushroom": "io", "read_ragtruth": "io", "read_psiloqa": "io", "read_fava": "io",
    "score_psiloqa": "psiloqa", "score_fava": "fava",
    "read_mushroom": "io", "read_ragtruth": "io",
    "read_ragtruth_pp": "io", "read_lettucedetect": "io",
    "attach_dataset": "io",
    "pairwise_agreement": "annotators", "leave_one_out": "annotators",
    "majority_reference": "annotators", "soft_reference": "annotators",
    "annotator_table": "annotators", "dataset_of": "io", "Dataset": "io",
    "Accumulator": "accumulator",
    "align_tokens": "adapters", "convert_offsets": "adapters",
    "anchor_phrases": "adapters", "parse_tagged": "adapters",
    "spans_at": "scoring", "sweep": "thresholds", "tune_threshold": "thresholds",
    "plot_sweep": "plot",
    "token_logit_scores": "baselines",
    "show": "report", "explain": "report", "explain_view": "report",
    "_frame_view": "report.frame",  # df.mycelium.show: the view layer sits above frames
}

__all__ = [
    "evaluate",
    "statistics",
    "aggregate",
    "per_example",
    "compare",
    "metric_agreement",
    "METRICS",
    "Profile",
    "PROFILES",
    "get_profile",
    "parse_signature",
    "SPAN_TYPE",
    "to_spans",
    "read_parquet",
    "write_parquet",
    "read_mushroom",
    "read_ragtruth",
    "read_psiloqa",
    "read_fava",
    "score_psiloqa",
    "score_fava",
    "read_ragtruth_pp",
    "read_lettucedetect",
    "attach_dataset",
    "dataset_of",
    "Dataset",
    "annotators",
    "annotator_table",
    "pairwise_agreement",
    "leave_one_out",
    "majority_reference",
    "soft_reference",
    "Accumulator",
    "align_tokens",
    "convert_offsets",
    "anchor_phrases",
    "parse_tagged",
    "spans_at",
    "sweep",
    "tune_threshold",
    "plot_sweep",
    "token_logit_scores",
    "show",
    "explain",
    "explain_view",
    "MyceliumError",
    "SpanValidationError",
    "UndefinedMetricWarning",
    "__version__",
]


#: public subpackages that load on first use (``mycelium.annotators``)
_LAZY_MODULES = ("annotators",)


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # loaded once; later lookups skip this function
        return value
    raise AttributeError(f"module 'mycelium' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Every public name, the lazily loaded ones included (for completion in notebooks)."""
    return sorted(set(globals()) | set(__all__))
