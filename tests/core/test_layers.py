"""The package's architecture, checked: layer folders import only downwards, no module
imports itself through a cycle, and every module imports on its own.

Layers, lowest first (README's Layout): the shared vocabulary (``_version``, ``errors``);
``metrics`` (pure kernels over span arrays); ``core`` (data model, settings, the
statistics pipeline, aggregation, exact sums, reductions); ``views`` (other units and
breakdowns); ``stats``; the dict face ``evaluate``; ``frames``; ``io`` and the Mu-SHROOM
file semantics; ``cli``. ``legacy`` imports nothing of mycelium.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"

LAYERS = [
    {"mycelium._version", "mycelium.errors"},
    {"mycelium.metrics"},
    {"mycelium.core"},
    {"mycelium.adapters"},
    {"mycelium.views"},
    {"mycelium.stats"},
    {"mycelium.evaluate", "mycelium.accumulator", "mycelium.accumulator_parts",
     "mycelium.scoring", "mycelium.score_report", "mycelium.thresholds", "mycelium.plot",
     "mycelium.baselines"},
    {"mycelium.frames"},
    {"mycelium.io", "mycelium.mushroom", "mycelium._mushroom_fast", "mycelium.psiloqa",
     "mycelium.fava", "mycelium.annotators"},
    {"mycelium.report"},
    {"mycelium.cli", "mycelium.__main__"},
]
#: Modules outside the layers: the package's public face, and the stdlib-only legacy scorer.
FACE = {"mycelium", "mycelium._aliases"}
ALONE = {"mycelium.legacy"}
OPTIONAL = {"mycelium.frames.polars": "polars", "mycelium.frames.polars_lazy": "polars",
            "mycelium.frames.polars_expr": "polars",
            "mycelium.frames.polars_batches": "polars",
            "mycelium.frames.spark": "pyspark"}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The mycelium modules ``name`` imports at run time (anywhere in the file)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here[: len(here) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def layer_of(name: str) -> int | None:
    for rank, layer in enumerate(LAYERS):
        if any(name == top or name.startswith(top + ".") for top in layer):
            return rank
    return None


MODULES = modules()
GRAPH = {name: imports_of(name, path, set(MODULES)) for name, path in MODULES.items()}


def test_every_module_has_a_layer():
    loose = [m for m in MODULES if layer_of(m) is None and m not in FACE
             and not any(m == a or m.startswith(a + ".") for a in ALONE)]
    assert loose == []


@pytest.mark.parametrize("name", sorted(m for m in MODULES if layer_of(m) is not None))
def test_imports_point_down(name):
    rank = layer_of(name)
    upward = sorted(t for t in GRAPH[name]
                    if t not in FACE and layer_of(t) is not None and layer_of(t) > rank)
    assert upward == [], f"{name} (layer {rank}) imports higher layers: {upward}"
    assert not any(t in FACE for t in GRAPH[name] - {"mycelium"} ), name


def test_legacy_imports_nothing_of_mycelium():
    for name in MODULES:
        if name.startswith("mycelium.legacy"):
            assert GRAPH[name] == set(), name


def test_no_import_cycles():
    # Package __init__ files are skipped as edges into them: importing a submodule runs
    # its parents' __init__, which re-export submodules by design.
    graph = {m: {t for t in ts if not MODULES[t].name == "__init__.py"}
             for m, ts in GRAPH.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert cycles == []


def test_every_module_imports_on_its_own():
    names = [m for m in MODULES
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


def test_old_module_paths_are_the_moved_modules():
    # mycelium 0.1 had every module at the top level: scripts and documented paths that
    # name one still get it (the same object as its new home).
    code = (
        "import importlib, sys\n"
        "import mycelium\n"
        "from mycelium._aliases import ALIASES\n"
        "heavy = [m for m in ('polars', 'pyspark', 'matplotlib') if m in sys.modules]\n"
        "assert heavy == [], heavy\n"
        "for old, new in ALIASES.items():\n"
        "    if old in ('mycelium.polars_ext', 'mycelium.polars_lazy', 'mycelium.spark'):\n"
        "        continue\n"
        "    assert importlib.import_module(old) is importlib.import_module(new), old\n"
        "    assert importlib.import_module(new).__spec__.name == new, new\n"
        "from mycelium.bootstrap import resampled_values\n"
        "from mycelium.stats.bootstrap import resampled_values as moved\n"
        "assert resampled_values is moved\n"
        "import mycelium.spark\n"
        "assert mycelium.spark.evaluate is mycelium.frames.spark.evaluate\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGE.parent, timeout=120)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr


def test_public_names_complete_in_notebooks():
    import mycelium

    names = dir(mycelium)
    assert set(mycelium.__all__) <= set(names)
    assert {"read_parquet", "read_mushroom", "write_parquet", "read_ragtruth"} <= set(names)


def test_core_inputs_split_keeps_its_import_paths():
    # The columnar half of the input conversion lives in mycelium.core.columns; the
    # names the faces import from mycelium.core.inputs are the same objects.
    from mycelium.core import columns, inputs

    for name in ("text_lengths", "text_values", "arrow_or_python", "_is_null"):
        assert getattr(inputs, name) is getattr(columns, name), name
    assert len(MODULES["mycelium.core.inputs"].read_text(encoding="utf-8").splitlines()) <= 450
