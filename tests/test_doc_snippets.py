"""Every ```python block of README.md and docs/**/*.md runs, so a snippet that stops working
fails the suite.

The blocks of one page run in order in one namespace (a page reads as one session), in a
temporary directory holding a copy of the repository's ``examples/`` (the data the snippets
read), with matplotlib drawing off screen. Every page runs in the same directory: Spark's
JVM resolves relative paths against the directory it started in, and one session serves
every page. A block skips, with the reason, when

- it imports an optional extra that is not installed (``polars``, ``pyspark``,
  ``datasets``, ``matplotlib``, ...), or uses Spark without a Java runtime;
- it reads a data folder named by an environment variable (``MYCELIUM_MUSHROOM_DIR``, ...)
  that is not set;
- its first line is the visible marker ``# not run: <reason>``; the reason is required.

A skipped block does not skip the blocks after it: a block that needs an extra is written
to stand on its own.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: The visible marker of a block that is not run, and its reason.
NOT_RUN = re.compile(r"# not run: (\S.*)")
DATA_ENV = re.compile(r"MYCELIUM_[A-Z_]+_DIR")
#: The extras whose absence skips a block, by the top-level module a block imports.
OPTIONAL = {"polars", "pyspark", "datasets", "matplotlib", "transformers", "tokenizers",
            "tqdm", "ipywidgets", "scipy", "sklearn"}


def blocks(page: Path) -> list[tuple[int, str]]:
    """The page's ```python blocks with the line each starts on."""
    text = page.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        found.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return found


def why_not_run(code: str) -> str | None:
    """The reason a block cannot run here, or None."""
    first = code.lstrip().splitlines()[0] if code.strip() else ""
    marker = NOT_RUN.match(first)
    if marker:
        return f"marked not run: {marker.group(1)}"
    if first.startswith("# not run"):
        raise AssertionError("a block marked '# not run' must give its reason: "
                             "'# not run: <reason>'")
    for name in sorted(set(DATA_ENV.findall(code))):
        value = os.environ.get(name, "")
        if not value or not os.path.isdir(value):
            return f"{name} is not set to a folder"
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    for name in sorted(modules & OPTIONAL):
        if importlib.util.find_spec(name) is None:
            return f"needs {name}, which is not installed"
    if "pyspark" in modules and shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs a Java runtime, and none is on PATH"
    return None


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_pages_have_python_blocks():
    assert sum(len(blocks(p)) for p in PAGES) > 30
    assert blocks(ROOT / "README.md")


def test_the_marker_needs_a_reason():
    assert why_not_run("# not run: needs a trained model\nx = 1\n") == \
        "marked not run: needs a trained model"
    with pytest.raises(AssertionError, match="must give its reason"):
        why_not_run("# not run\nx = 1\n")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("snippets")
    shutil.copytree(ROOT / "examples", path / "examples",
                    ignore=shutil.ignore_patterns("output", "__pycache__"))
    return path


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=_page_id)
def test_page_blocks_run(page, workdir, monkeypatch):
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.syspath_prepend(str(ROOT))
    scope: dict = {"__name__": "__doc_snippet__"}
    skipped = []
    for line, code in blocks(page):
        reason = why_not_run(code)
        if reason:
            skipped.append(f"line {line}: {reason}")
            continue
        where = f"{_page_id(page)}, the block at line {line}"
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(code, where, "exec"), scope)  # noqa: S102  (the page's own code)
            except Exception as exc:  # noqa: BLE001  (re-raised with the block's place)
                raise AssertionError(f"{where} fails: {type(exc).__name__}: {exc}") from exc
    if skipped:
        # Everything else ran; say what did not, and why.
        if len(skipped) == len(blocks(page)):
            pytest.skip("; ".join(skipped))
        sys.stderr.write(f"{_page_id(page)}: skipped {'; '.join(skipped)}\n")
