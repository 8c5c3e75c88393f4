"""The ``mycelium`` command: ``app`` builds the parser and runs a subcommand; one module
per subcommand (``evaluate``, ``mushroom``), ``read`` for input files and ``output`` for
the result formats. It speaks in its own flags and 1-based file rows.
"""

from .app import main

__all__ = ["main"]
