"""Looking at spans: `mycelium.show` (a view of examples for notebooks and terminals),
`explain` and `explain_view` (the examples behind a difference), the frame view behind
``df.mycelium.show``, the self-contained HTML report of ``mycelium report`` with its
figures, `plot_sweep` (a sweep's curves, with matplotlib), `type_table` (a
result's per-type section, printed or drawn) and `visions_report` (a SHROOM-Visions
result's page, per label). The view's data (``model``) sits below its
renderers (``render`` for HTML, ``text`` for terminals). Sits above ``protocols``, below
``integrations`` and ``cli``.
"""

from .explain import explain, explain_view
from .sweep_plot import plot_sweep
from .types import TypeTable, type_table
from .view import SpanView, show
from .visions import visions_report

__all__ = ["show", "SpanView", "explain", "explain_view", "plot_sweep", "type_table",
           "TypeTable", "visions_report"]
