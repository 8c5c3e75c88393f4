"""Argument types the subcommands share (one parser for a comma-separated list of names)."""

from __future__ import annotations

import argparse

__all__ = ["names"]


def names(value: str) -> list[str]:
    """``"a, b,c"`` → ``["a", "b", "c"]``; an empty list is a usage error."""
    out = [v.strip() for v in value.split(",") if v.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {value!r}")
    return out
