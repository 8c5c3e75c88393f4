"""The local Spark session of the Spark tests (one per test run: starting one is slow)."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    """``local[1]``, UI off, one shuffle partition; workers run this interpreter.

    Skips with the reason when pyspark is not installed or cannot start (no Java).
    """
    pytest.importorskip("pyspark", reason="pyspark is not installed; install the "
                        "extra with pip install -e '.[spark]' to run the Spark tests")
    from pyspark.sql import SparkSession

    # Python workers start the interpreter named here (else `python3` from PATH, which
    # may lack mycelium when the tests run from a virtual environment not activated).
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        session = (SparkSession.builder.master("local[1]").appName("mycelium-tests")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "1")
                   .config("spark.driver.memory", "1g")
                   .getOrCreate())
    except Exception as exc:  # e.g. no Java runtime on the machine
        pytest.skip(f"a local Spark session could not start: {exc}")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if previous is None:
        os.environ.pop("PYSPARK_PYTHON", None)
    else:
        os.environ["PYSPARK_PYTHON"] = previous
