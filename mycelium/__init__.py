"""mycelium: score hallucination-span detectors the way each benchmark does, and all ways at once.

Public names only; see `mycelium.evaluate` for the entry point and
``mycelium.metrics.<name>`` for each metric's definition.
"""

from ._version import __version__  # noqa: E402

from .aggregate import aggregate, per_example  # noqa: E402
from .agreement import metric_agreement  # noqa: E402
from .comparison import compare  # noqa: E402
from .errors import MyceliumError, SpanValidationError  # noqa: E402
from .evaluate import evaluate, statistics  # noqa: E402
from .inputs import to_spans  # noqa: E402
from .metrics import METRICS  # noqa: E402
from .profiles import PROFILES, Profile, get_profile  # noqa: E402
from .signature import parse_signature  # noqa: E402
from .spans import SPAN_TYPE  # noqa: E402
from . import pandas_ext  # noqa: E402,F401  (registers df.mycelium)
from . import _polars_hook  # noqa: E402

_polars_hook.install()  # pl.DataFrame.mycelium / pl.LazyFrame.mycelium, lazily

_LAZY = {  # public names whose modules load on first use
    "read_parquet": "io", "write_parquet": "io",
    "read_mushroom": "io", "read_ragtruth": "io",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'mycelium' has no attribute {name!r}")

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
    "MyceliumError",
    "SpanValidationError",
    "__version__",
]
