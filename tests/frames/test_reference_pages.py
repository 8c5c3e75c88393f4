"""The docs site builds with warnings as errors (``mkdocs build --strict``), and its API
reference renders the faces: a page per layer, the accessor and namespace methods a user
reaches as ``df.mycelium.<method>``, and no page for the modules only the package uses."""

from __future__ import annotations

import html as html_module
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (the 'docs' extra)")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (the 'docs' extra)")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(out)], capture_output=True, text=True, cwd=ROOT,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return out


def _ids(site: Path, page: str) -> set[str]:
    html = (site / "reference" / page / "index.html").read_text(encoding="utf-8")
    return set(re.findall(r'id="(mycelium[^"]*)"', html))


def test_every_layer_has_a_reference_page(site):
    for layer in ("evaluate", "metrics", "core", "adapters", "views", "stats", "scores",
                  "frames", "io", "annotators", "protocols", "report", "integrations",
                  "cli", "legacy"):
        assert (site / "reference" / layer / "index.html").is_file(), layer


def test_accessor_and_namespace_methods_are_documented(site):
    ids = _ids(site, "frames")
    for name in ("pandas.MyceliumAccessor.evaluate", "pandas.MyceliumAccessor.score",
                 "pandas.MyceliumAccessor.compare", "polars.MyceliumFrame.evaluate",
                 "polars.MyceliumFrame.score", "polars.MyceliumFrame.compare",
                 "polars.MyceliumExpr.statistics", "polars.MyceliumExpr.score",
                 "polars_lazy.MyceliumLazyFrame.evaluate",
                 "polars_lazy.MyceliumLazyFrame.score", "spark.evaluate"):
        assert f"mycelium.frames.{name}" in ids, name
    internal = {f"mycelium.frames.{m}" for m in
                ("engine", "compare", "polars_batches", "spark_checks", "_options",
                 "hooks")}
    assert internal & ids == set()


def test_loaders_the_scorer_and_the_command_are_documented(site):
    ids = _ids(site, "io")
    for name in ("parquet.read_parquet", "parquet.write_parquet", "mushroom.read_mushroom",
                 "ragtruth.read_ragtruth"):
        assert f"mycelium.io.{name}" in ids, name
    assert "mycelium.protocols.mushroom" in _ids(site, "protocols")
    assert "mycelium.legacy.span_coverage" in _ids(site, "legacy")


def test_signatures_are_rendered(site):
    html = (site / "reference" / "frames" / "index.html").read_text(encoding="utf-8")
    text = html_module.unescape(re.sub(r"<[^>]+>", "", html))
    assert "evaluate(ref_col: str, pred_col: str | None = None, *, text: str | None" in text


def test_every_page_of_the_nav_is_built(site):
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = re.findall(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w/.-]+\.md)\s*$", config, flags=re.M)
    assert len(pages) > 30
    for page in pages:
        built = site / (page[:-3] + "/index.html" if not page.endswith("index.md")
                        else page[:-3] + ".html")
        assert built.is_file(), page
