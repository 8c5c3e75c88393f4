"""Private names crossing modules: a ``_name`` of a public module imported by another
module means the module was cut in the wrong place (STYLE.md: a module holds one idea),
and a private module used outside its package is a public module under a private name.

Counted, one entry per imported name:

- every ``from <mycelium module> import _name`` whose source module is public (no part of
  its path starts with ``_``), from a module other than itself;
- every name imported from a private module (a path part such as ``_records``; dunder
  modules such as ``__init__`` are not private), and every private module imported as a
  name (``from ..io import _records``), by a module outside the package that holds the
  private module.

Not counted: a private module serving its own package (``from ._records import _take``
inside ``io``, or ``from . import _options`` inside ``frames``): a ``_module`` exists to
serve its package. Each crossing that remains says why in a comment on its import line.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"
#: At most this many crossings (each with its reason); lower it as crossings go. Was 83,
#: then 34 once private modules used outside their package were counted too; now none.
LIMIT = 0


def _module_name(path: Path, package: Path) -> tuple[list[str], list[str]]:
    """(the module's dotted parts, the parts of the package it sits in)."""
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return parts, parts
    return parts, parts[:-1]


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(dotted: str, package: Path) -> bool:
    path = package.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _outside_its_package(source: list[str], importer: list[str]) -> bool:
    """Whether ``importer`` sits outside the package holding ``source``'s first private
    part (``mycelium.io._records`` serves ``mycelium.io`` and everything under it)."""
    first = next(i for i, part in enumerate(source) if _is_private(part))
    return importer[:first] != source[:first]


def _source(node: ast.ImportFrom, home: list[str]) -> str:
    if node.level:
        base = home[:len(home) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module or ""


def crossings(package: Path = PACKAGE) -> list[str]:
    """``"<importer>:<line> <source>.<name>"`` for every private name of a public
    module imported by another module, and every name of (or being) a private module
    imported from outside that module's package."""
    out = []
    for path in sorted(package.rglob("*.py")):
        parts, home = _module_name(path, package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _source(node, home)
            if source.split(".")[0] != "mycelium" or source == ".".join(parts):
                continue
            for alias in node.names:
                name = alias.name
                as_module = _is_module(f"{source}.{name}", package)
                full = source.split(".") + ([name] if as_module else [])
                if any(_is_private(p) for p in full):
                    counted = _outside_its_package(full, parts)
                else:
                    counted = _is_private(name) and not as_module
                if counted:
                    out.append(f"{'.'.join(parts)}:{node.lineno} {source}.{name}")
    return out


def test_private_names_crossing_modules_stay_few():
    found = crossings()
    assert len(found) <= LIMIT, (
        f"{len(found)} private names cross modules (at most {LIMIT}):\n" + "\n".join(found)
        + "\nfix by giving the name one home (join the modules, or make it public where "
        "it is one module's service to others)")


def test_the_count_sees_a_crossing(tmp_path):
    pkg = tmp_path / "mycelium"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "core" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "core" / "a.py").write_text("def _x():\n    pass\n", encoding="utf-8")
    (pkg / "core" / "_helpers.py").write_text("def _y():\n    pass\n", encoding="utf-8")
    (pkg / "core" / "b.py").write_text(
        "from .a import _x\nfrom ._helpers import _y\nfrom . import _helpers\n"
        "from mycelium.core.a import _x as again\n", encoding="utf-8")
    assert crossings(pkg) == ["mycelium.core.b:1 mycelium.core.a._x",
                              "mycelium.core.b:4 mycelium.core.a._x"]


def test_the_count_sees_a_private_module_used_outside_its_package(tmp_path):
    pkg = tmp_path / "mycelium"
    for sub in ("io", "io/deep", "cli"):
        (pkg / sub).mkdir(parents=True, exist_ok=True)
        (pkg / sub / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "__init__.py").write_text("from .io import _records\n", encoding="utf-8")
    (pkg / "__main__.py").write_text("from .cli import main\n", encoding="utf-8")
    (pkg / "io" / "_records.py").write_text("def take():\n    pass\n", encoding="utf-8")
    (pkg / "io" / "deep" / "c.py").write_text(  # inside io: serves its own package
        "from .._records import take\n", encoding="utf-8")
    (pkg / "cli" / "main.py").write_text(
        "from ..io._records import take\nfrom ..io import _records\n"
        "from mycelium import __main__\n", encoding="utf-8")
    assert crossings(pkg) == ["mycelium:1 mycelium.io._records",
                              "mycelium.cli.main:1 mycelium.io._records.take",
                              "mycelium.cli.main:2 mycelium.io._records"]
