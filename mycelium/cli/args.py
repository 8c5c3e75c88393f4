"""Argument types the subcommands share (one parser for a comma-separated list of names),
and the scoring options among parsed arguments."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["names", "options_of"]


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The scoring options among parsed ``args``: the flags named as the options of
    `mycelium.core.settings.resolve_settings` (``--zero-division`` is ``zero_division``),
    so a new option's flag reaches the scorers without another list."""
    # Imported here: the settings load numpy, and ``mycelium --help`` / ``--version``
    # import this module (for `names`) without scoring anything.
    from ..core.settings import OPTIONS

    return {k: v for k, v in vars(args).items() if k in OPTIONS}


def names(value: str) -> list[str]:
    """``"a, b,c"`` → ``["a", "b", "c"]``; an empty list is a usage error."""
    out = [v.strip() for v in value.split(",") if v.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {value!r}")
    return out
