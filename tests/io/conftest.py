"""Fixtures of the I/O tests: Polars (the Mu-SHROOM data folder is the suite-wide
``mushroom_dir``)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def pl():
    """The polars module (skips when it cannot be imported)."""
    try:
        import polars
    except ImportError as exc:  # includes a missing mycelium.frames.polars namespace module
        pytest.skip(f"polars cannot be imported: {exc}")
    return polars
