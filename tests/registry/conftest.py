"""Every registry test runs against its own empty cache (never the user's)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """A fresh ``MYCELIUM_DATA_DIR`` for the test."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MYCELIUM_DATA_DIR", str(folder))
    return folder
