"""The Polars namespace is registered on the first ``import polars`` after ``import
mycelium``, even when something asked ``importlib.util.find_spec("polars")`` before (as
libraries do to check for an optional dependency)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
ROOT = Path(__file__).resolve().parents[2]


def test_find_spec_before_the_import_does_not_use_up_the_hook():
    pytest.importorskip("polars", reason="polars is not installed (the 'polars' extra)")
    code = ("import importlib.util, sys, mycelium\n"
            "assert 'polars' not in sys.modules\n"
            "assert importlib.util.find_spec('polars') is not None\n"
            "assert importlib.util.find_spec('polars') is not None\n"
            "import polars as pl\n"
            "print(hasattr(pl.DataFrame, 'mycelium'), hasattr(pl.LazyFrame, 'mycelium'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert (done.returncode, done.stdout, done.stderr) == (0, "True True\n", "")
