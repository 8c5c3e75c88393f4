"""mycelium: score hallucination-span detectors the way each benchmark does, and all ways at once.

Public names only; see `mycelium.evaluate` for the entry point and
``mycelium.metrics.<name>`` for each metric's definition.
"""

__version__ = "0.1.0"

from .aggregate import aggregate, per_example  # noqa: E402
from .errors import MyceliumError, SpanValidationError  # noqa: E402
from .evaluate import evaluate, statistics  # noqa: E402
from .inputs import to_spans  # noqa: E402
from .metrics import METRICS  # noqa: E402
from .profiles import PROFILES, Profile, get_profile  # noqa: E402
from .signature import parse_signature  # noqa: E402
from .spans import SPAN_TYPE  # noqa: E402

__all__ = [
    "evaluate",
    "statistics",
    "aggregate",
    "per_example",
    "METRICS",
    "Profile",
    "PROFILES",
    "get_profile",
    "parse_signature",
    "SPAN_TYPE",
    "to_spans",
    "MyceliumError",
    "SpanValidationError",
    "__version__",
]
