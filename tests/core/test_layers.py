"""The package's architecture, checked: every room has one place in one declared order of
layers, imports point down that order only, no module reaches itself through a cycle,
the top of the package stays small, and every module imports on its own.

An import counts wherever it is written: at module level, inside a function, or under
``if TYPE_CHECKING:`` (an annotation is a dependency too), and so does
``importlib.import_module("mycelium....")`` with a literal name. The rule is checked by
`violations`, which `test_the_rule_catches_an_upward_import` runs on a copy of the package
with one upward import added, so the rule cannot quietly weaken.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"

#: The layers, lowest first (docs/architecture.md, "Where things live"), and the rooms in
#: each. A room is a top-level module or subpackage of mycelium; it may import its own
#: layer and below.
LAYERS: list[tuple[str, set[str]]] = [
    ("shared", {"_version", "errors"}),
    ("metrics", {"metrics"}),
    ("core", {"core"}),
    ("adapters", {"adapters"}),
    ("views", {"views"}),
    ("stats", {"stats"}),
    ("scores", {"scores"}),
    ("dict face", {"evaluate", "accumulator"}),
    ("frames", {"frames"}),
    ("datasets", {"datasets"}),
    ("io", {"io"}),
    ("annotators", {"annotators"}),
    ("protocols", {"protocols"}),
    ("report", {"report"}),
    ("integrations", {"integrations"}),
    ("cli", {"cli", "__main__"}),
]
#: Outside the order: the package's public face (it may import any room; no room imports
#: it), and the stdlib-only legacy scorer (imports nothing of mycelium).
FACE = {"__init__"}
ALONE = {"legacy"}
#: At most this many modules at the top of mycelium/ (STYLE.md).
MAX_TOP_MODULES = 8
OPTIONAL = {"mycelium.frames.polars": "polars", "mycelium.frames.polars_lazy": "polars",
            "mycelium.frames.polars_expr": "polars",
            "mycelium.frames.polars_batches": "polars",
            "mycelium.frames.polars_scores": "polars",
            "mycelium.frames.spark": "pyspark"}


@dataclass(frozen=True)
class Arrow:
    """``source`` imports ``target`` at ``path:line`` (``how``: module level, function,
    TYPE_CHECKING or import_module)."""

    source: str
    target: str
    path: Path
    line: int
    how: str


def modules(package: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _how(node: ast.AST, parents: dict) -> str:
    how = "module level"
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return "under TYPE_CHECKING"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            how = "inside a function"
    return how


def _targets(node: ast.AST, here: list[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            up = here[: len(here) - (node.level - 1)]
            base = ".".join(up + ([node.module] if node.module else []))
        return [base] + [f"{base}.{a.name}" for a in node.names]
    if (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module")
            and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("mycelium")):
        return [node.args[0].value]
    return []


def arrows(name: str, path: Path, known: set[str]) -> list[Arrow]:
    """Every import of a mycelium module by ``name``, anywhere in its file. Imports of
    the packages that contain ``name`` are left out: they run before ``name`` anyway."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    ancestors = {".".join(name.split(".")[:i]) for i in range(1, len(name.split(".")))}
    out = []
    for node in ast.walk(tree):
        for target in _targets(node, here):
            while target not in known and "." in target:  # a name inside a module
                target = target.rsplit(".", 1)[0]
            if target in known and target != name and target not in ancestors:
                how = "import_module" if isinstance(node, ast.Call) else _how(node, parents)
                out.append(Arrow(name, target, path, node.lineno, how))
    return sorted(set(out), key=lambda a: (a.target, a.line))


def room_of(name: str) -> str:
    return name.split(".")[1] if name.count(".") >= 1 else "__init__"


def layer_of(name: str) -> int | None:
    room = room_of(name)
    return next((rank for rank, (_, rooms) in enumerate(LAYERS) if room in rooms), None)


def order_said() -> str:
    return " < ".join(f"{label} ({', '.join(sorted(rooms))})" for label, rooms in LAYERS)


def _said(a: Arrow, package: Path) -> str:
    where = a.path.relative_to(package.parent)
    src, dst = layer_of(a.source), layer_of(a.target)
    return (f"{where}:{a.line} ({a.how}): {a.source} -> {a.target}, from layer "
            f"{LAYERS[src][0] if src is not None else '?'} up to layer "
            f"{LAYERS[dst][0] if dst is not None else room_of(a.target)}")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    found = []

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return found


def violations(package: Path) -> list[str]:
    """Every breach of the rule in the package at ``package``, one line each."""
    mods = modules(package)
    known = set(mods)
    graph = {name: arrows(name, path, known) for name, path in mods.items()}
    out = []
    top = sorted(p.name for p in package.glob("*.py"))
    if len(top) > MAX_TOP_MODULES:
        out.append(f"{len(top)} modules at the top of mycelium/ (at most {MAX_TOP_MODULES}): "
                   f"{', '.join(top)}; fix by moving one into the room of its layer")
    rooms = {room_of(m) for m in mods if m != "mycelium"}
    placed = [r for _, rs in LAYERS for r in rs]
    for room in sorted(rooms - set(placed) - FACE - ALONE):
        out.append(f"mycelium.{room} has no layer; fix by giving it a place in LAYERS "
                   f"(tests/core/test_layers.py) and in docs/architecture.md")
    for room in sorted({r for r in placed if placed.count(r) > 1}):
        out.append(f"mycelium.{room} is in more than one layer")
    for name in sorted(graph):
        for a in graph[name]:
            src, dst = layer_of(a.source), layer_of(a.target)
            if room_of(a.source) in ALONE:
                out.append(f"{_said(a, package)}: the legacy scorer imports nothing of "
                           "mycelium")
            elif room_of(a.target) in FACE and room_of(a.source) not in FACE:
                out.append(f"{_said(a, package)}: no room imports the package's face")
            elif src is not None and dst is not None and dst > src:
                out.append(f"{_said(a, package)}; the order, lowest first: {order_said()}")
    edges = {m: {a.target for a in graph[m]} for m in graph}
    for cycle in cycles(edges):
        out.append("import cycle: " + " -> ".join(cycle))
    return out


def test_the_package_keeps_the_rule():
    found = violations(PACKAGE)
    assert found == [], "\n" + "\n".join(found)


def _copy_with(tmp_path: Path, module: str, line: str) -> Path:
    copy = tmp_path / "mycelium"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + line, encoding="utf-8")
    return copy


@pytest.mark.parametrize("module, line, expected", [
    ("metrics/iou.py", "\ndef f():\n    from ..core.spans import SpanBatch\n",
     "mycelium/metrics/iou.py:68 (inside a function): mycelium.metrics.iou -> "
     "mycelium.core.spans, from layer metrics up to layer core; the order, lowest first: "
     "shared (_version, errors) < metrics (metrics) < core (core)"),
    ("core/spans.py", "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
     "    from ..frames.engine import x\n",
     "(under TYPE_CHECKING): mycelium.core.spans -> mycelium.frames.engine, from layer "
     "core up to layer frames"),
    ("scores/thresholds.py", "\nimport importlib\nimportlib.import_module('mycelium.report.view')\n",
     "(import_module): mycelium.scores.thresholds -> mycelium.report.view"),
])
def test_the_rule_catches_an_upward_import(tmp_path, module, line, expected):
    found = violations(_copy_with(tmp_path, module, line))
    assert found and expected in found[0], found  # (a cycle it closes may follow)


def test_the_rule_catches_a_cycle_and_a_crowded_top(tmp_path):
    copy = _copy_with(tmp_path, "report/model.py", "\ndef f():\n    from .view import show\n")
    # one module more than the top may hold, whatever it holds today
    top = len(list(copy.glob("*.py")))
    extras = [f"extra_{i}" for i in range(MAX_TOP_MODULES + 1 - top)]
    for name in extras:
        (copy / f"{name}.py").write_text('"""x"""\n', encoding="utf-8")
    found = violations(copy)
    # which cycle through the two is told first depends on the search's way in
    assert any(f.startswith("import cycle: ") and "mycelium.report.view -> " in f
               and "mycelium.report.model" in f for f in found), found
    assert any(f.startswith(f"{MAX_TOP_MODULES + 1} modules at the top of mycelium/")
               for f in found), found
    assert any("mycelium.extra_0 has no layer" in f for f in found), found


def test_every_module_imports_on_its_own():
    names = [m for m in modules(PACKAGE)
             if m not in OPTIONAL or importlib.util.find_spec(OPTIONAL[m]) is not None]
    code = (
        "import importlib, sys\n"
        "bad = []\n"
        f"for name in {names!r}:\n"
        "    for k in [k for k in sys.modules if k == 'mycelium' or k.startswith('mycelium.')]:\n"
        "        del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_core_inputs_split_keeps_its_import_paths():
    # The columnar half of the input conversion lives in mycelium.core.columns; the
    # names the faces import from mycelium.core.inputs are the same objects.
    from mycelium.core import columns, inputs

    for name in ("text_lengths", "text_values", "arrow_or_python", "is_null"):
        assert getattr(inputs, name) is getattr(columns, name), name
    # No line cap on inputs.py: a module holds one idea, whatever its length (STYLE.md).
