"""Fixtures of the study tests: the project root on ``sys.path`` (``validation`` is a
top-level folder, not part of the installed package), the data folder, and one run of
the study on two languages."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _study import LANGUAGES, MUSHROOM_ENV, have_matplotlib  # noqa: E402


@pytest.fixture(scope="session")
def mushroom_dir() -> Path:
    value = os.environ.get(MUSHROOM_ENV)
    if not value:
        pytest.skip(f"{MUSHROOM_ENV} is not set; point it at the Mu-SHROOM data folder "
                    "(holding splits/val/v2 and splits/test_labeled/v1) to run the study "
                    "tests.")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"{MUSHROOM_ENV}={value!r} is not a directory.")
    return path


@pytest.fixture(scope="session")
def study(mushroom_dir, tmp_path_factory):
    """The study on EN and FI, written to a temporary folder: ``(result, out_dir)``."""
    from validation.run import study as run_study

    out = tmp_path_factory.mktemp("validation_results")
    result = run_study(mushroom_dir, out, languages=LANGUAGES, seed=0,
                       figures=have_matplotlib())
    return result, out
