"""Suite-wide setup: ``tests/`` on ``sys.path`` (for the shared ``_optional`` and
``reference`` helpers), and doctest collection over ``mycelium/`` that leaves out the
modules of an optional face whose extra is not installed (their tests under ``tests/``
skip with a reason instead)."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

TESTS = str(Path(__file__).resolve().parent / "tests")
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

_NEEDS = {"frames/polars.py": "polars", "frames/polars_lazy.py": "polars",
          "frames/polars_batches.py": "polars", "frames/polars_expr.py": "polars",
          "frames/polars_scores.py": "polars",
          "frames/spark.py": "pyspark",
          "report/sweep_plot.py": "matplotlib"}

collect_ignore = [f"mycelium/{module}" for module, extra in _NEEDS.items()
                  if importlib.util.find_spec(extra) is None]

# The test folders' own conftest.py files hold fixtures, not doctests; collecting them as
# doctest modules would import several modules named ``conftest`` when folders are named
# on the command line together (``pytest tests/io tests/cli``).
collect_ignore_glob = ["tests/*/conftest.py", "tests/*/*/conftest.py"]

MUSHROOM_ENV = "MYCELIUM_MUSHROOM_DIR"


@pytest.fixture(scope="session")
def mushroom_dir() -> Path:
    """The Mu-SHROOM labeled data (``splits/val/...``, ``splits/test_labeled/...``), from
    the environment: the data is never copied into the project; CI points the variable
    at a copy. Tests that need it skip with the reason when it is not set."""
    value = os.environ.get(MUSHROOM_ENV)
    if not value:
        pytest.skip(f"{MUSHROOM_ENV} is not set; set it to the Mu-SHROOM data folder "
                    "(the one holding splits/) to run the tests on the real files.")
    path = Path(value)
    if not (path / "splits").is_dir():
        pytest.skip(f"{MUSHROOM_ENV}={value!r} has no splits/ folder; point it at the "
                    "Mu-SHROOM data folder.")
    return path
