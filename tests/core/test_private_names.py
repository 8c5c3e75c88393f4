"""Private names crossing modules: a ``_name`` of a public module imported by another
module means the module was cut in the wrong place (STYLE.md: a module holds one idea).

Counted: every ``from <mycelium module> import _name`` whose source module is public (no
part of its path starts with ``_``), from a module other than itself. Not counted: a
private helper module's names (``from ._records import _take``: a ``_module`` exists to
serve its package) and private modules themselves (``from . import _options``). Each
crossing that remains says why in a comment on its import line.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"
#: At most this many crossings (each with its reason); lower it as crossings go. Was 83.
LIMIT = 11


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


def crossings(package: Path = PACKAGE) -> list[str]:
    """``"<importer>:<line> <source>.<name>"`` for every private name of a public
    module imported by another module."""
    out = []
    for path in sorted(package.rglob("*.py")):
        parts, home = _module_name(path, package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = home[:len(home) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "mycelium" or source == ".".join(parts):
                continue
            if any(_is_private(p) for p in source.split(".")):
                continue
            for alias in node.names:
                name = alias.name
                if _is_private(name) and not _is_module(f"{source}.{name}", package):
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
