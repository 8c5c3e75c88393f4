"""Fixtures of the study tests: the project root on ``sys.path`` (``validation`` is a
top-level folder, not part of the installed package), the real systems' folder, and one
run of the study on two languages, from the suite-wide ``mushroom_dir``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _study import LANGUAGES, have_matplotlib  # noqa: E402


@pytest.fixture(scope="session")
def systems_dir(mushroom_dir):
    """The real system outputs (``mushroom_systems``: $MYCELIUM_MUSHROOM_SYSTEMS_DIR, else
    beside the Mu-SHROOM data); tests that need them skip when they are absent."""
    from validation.real_systems import systems_dir as find

    path = find(None, mushroom_dir)
    if path is None:
        pytest.skip("no mushroom_systems folder beside the Mu-SHROOM data and "
                    "MYCELIUM_MUSHROOM_SYSTEMS_DIR is not set.")
    return path


@pytest.fixture(scope="session")
def study(mushroom_dir, tmp_path_factory):
    """The study on EN and FI, written to a temporary folder: ``(result, out_dir)``."""
    from validation.run import study as run_study

    out = tmp_path_factory.mktemp("validation_results")
    result = run_study(mushroom_dir, out, languages=LANGUAGES, seed=0,
                       figures=have_matplotlib())
    return result, out
