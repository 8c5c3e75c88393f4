"""Other libraries' loops: one module per library, each an optional extra, imported only
when asked for. ``transformers``: `mycelium.integrations.transformers.compute_metrics_for`,
the ``compute_metrics`` of a ``Trainer`` that scores a token classifier's character spans
(it never imports ``transformers`` or ``torch`` itself). Sits above ``report``, below
``cli``; nothing below imports it. (``datasets`` columns need no module here: every input
conversion reads them through their Arrow table, `mycelium.core.arrow_sources`.)
"""

__all__: list[str] = []
