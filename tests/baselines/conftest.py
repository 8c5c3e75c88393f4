"""Fixtures of the baseline tests: the Mu-SHROOM data folder, from the environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MUSHROOM_ENV = "MYCELIUM_MUSHROOM_DIR"


@pytest.fixture(scope="session")
def mushroom_dir() -> Path:
    """The Mu-SHROOM labeled data (``splits/val/...``, ``splits/test_labeled/...``)."""
    value = os.environ.get(MUSHROOM_ENV)
    if not value:
        pytest.skip(f"{MUSHROOM_ENV} is not set; set it to the Mu-SHROOM data folder "
                    "(the one holding splits/) to score the real logits.")
    path = Path(value)
    if not (path / "splits").is_dir():
        pytest.skip(f"{MUSHROOM_ENV}={value!r} has no splits/ folder; point it at the "
                    "Mu-SHROOM data folder.")
    return path
