"""The Spark tests' session fixture (``local[1]``; skips without pyspark or Java) for test
modules outside ``tests/frames/spark`` (``from _spark_fixture import spark``: ``tests/``
is on ``sys.path``), loaded from that folder's conftest by path: a second module named
``conftest`` would clash with the others."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "_spark_session_conftest",
    Path(__file__).resolve().parent / "frames" / "spark" / "conftest.py")
assert _SPEC is not None and _SPEC.loader is not None
_SESSION = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_SESSION)
spark = _SESSION.spark
