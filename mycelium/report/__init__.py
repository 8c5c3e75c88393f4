"""Looking at spans: `mycelium.show` (a view of examples for notebooks and terminals),
the frame view behind ``df.mycelium.show``, and the self-contained HTML report of
``mycelium report``. Sits above ``frames`` and ``io``, below ``cli``.
"""

from .explain import explain, explain_view
from .view import SpanView, show

__all__ = ["show", "SpanView", "explain", "explain_view"]
