"""Other libraries' loops: one module per library, each an optional extra, imported only
when asked for. Sits above ``report``, below ``cli``; nothing below imports it.
"""

__all__: list[str] = []
