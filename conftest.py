"""Suite-wide setup: ``tests/`` on ``sys.path`` (for the shared ``_optional`` and
``reference`` helpers), and doctest collection over ``mycelium/`` that leaves out the
modules of an optional face whose extra is not installed (their tests under ``tests/``
skip with a reason instead)."""

import importlib.util
import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parent / "tests")
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

_NEEDS = {"frames/polars.py": "polars", "frames/polars_lazy.py": "polars",
          "frames/polars_batches.py": "polars", "frames/polars_expr.py": "polars",
          "frames/spark.py": "pyspark",
          "plot.py": "matplotlib"}

collect_ignore = [f"mycelium/{module}" for module, extra in _NEEDS.items()
                  if importlib.util.find_spec(extra) is None]

# The test folders' own conftest.py files hold fixtures, not doctests; collecting them as
# doctest modules would import several modules named ``conftest`` when folders are named
# on the command line together (``pytest tests/io tests/cli``).
collect_ignore_glob = ["tests/*/conftest.py", "tests/*/*/conftest.py"]
