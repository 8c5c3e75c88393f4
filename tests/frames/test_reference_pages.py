"""The API reference renders the faces: ``docs/build_reference.py`` (warnings are errors)
writes a page per public face module, and the accessor and namespace pages document
every method a user reaches as ``df.mycelium.<method>``."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    pytest.importorskip("pdoc", reason="pdoc is not installed (the 'docs' extra)")
    out = tmp_path_factory.mktemp("reference")
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "build_reference.py"),
                           str(out)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return out


def test_face_modules_have_pages_and_internal_ones_do_not(reference):
    pages = {p.relative_to(reference).as_posix() for p in reference.rglob("*.html")}
    expected = {"mycelium/frames.html", "mycelium/frames/pandas.html", "mycelium/io.html",
                "mycelium/protocols/mushroom.html", "mycelium/cli.html",
                "mycelium/legacy/span_coverage.html"}
    # one page per subpackage, saying what lives there
    expected |= {f"mycelium/{p}.html" for p in (
        "metrics", "core", "adapters", "views", "stats", "scores", "frames", "io",
        "annotators", "protocols", "report", "integrations", "cli", "legacy")}
    if importlib.util.find_spec("polars") is not None:
        expected |= {"mycelium/frames/polars.html", "mycelium/frames/polars_lazy.html"}
    if importlib.util.find_spec("pyspark") is not None:
        expected.add("mycelium/frames/spark.html")
    assert expected <= pages
    internal = {f"mycelium/frames/{m}.html" for m in
                ("engine", "groups", "compare", "polars_batches", "spark_checks",
                 "_options", "_hooks")}
    assert internal & pages == set()


def test_accessor_methods_are_documented(reference):
    page = (reference / "mycelium" / "frames" / "pandas.html").read_text(encoding="utf-8")
    for method in ("evaluate", "score", "compare"):
        assert f'id="MyceliumAccessor.{method}"' in page
    signatures = re.sub(r"<[^>]+>", "", page)  # the highlighted signatures as text
    assert "average: Optional[Literal['macro', 'micro']] = None" in signatures
    io_page = (reference / "mycelium" / "io.html").read_text(encoding="utf-8")
    for name in ("read_parquet", "write_parquet", "read_mushroom", "read_ragtruth"):
        assert f'id="{name}"' in io_page
    assert 'id="main"' in (reference / "mycelium" / "cli.html").read_text(encoding="utf-8")


def test_polars_namespace_methods_are_documented(reference):
    pytest.importorskip("polars")
    page = (reference / "mycelium" / "frames" / "polars.html").read_text(encoding="utf-8")
    for name in ("MyceliumFrame.evaluate", "MyceliumFrame.score", "MyceliumFrame.compare",
                 "MyceliumExpr.statistics", "MyceliumExpr.score"):
        assert f'id="{name}"' in page
    lazy = (reference / "mycelium" / "frames" / "polars_lazy.html").read_text("utf-8")
    assert 'id="MyceliumLazyFrame.evaluate"' in lazy and 'id="MyceliumLazyFrame.score"' in lazy
