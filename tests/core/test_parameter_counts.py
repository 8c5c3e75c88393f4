"""No function below the public faces takes more than 10 parameters.

Options travel as one `mycelium.core.settings.Settings` value and data as one
`mycelium.core.inputs.Inputs` value, so a new option is a field there, not an edit to
every signature on the way down. The public faces keep their keyword signatures (users
call them with keywords, as scikit-learn's are called); they are listed here by name.
"""

from __future__ import annotations

import ast
from pathlib import Path

LIMIT = 10
PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"

# module path (relative to mycelium/), function name -> why it may take more.
FACE = "public face: the user's keyword options, turned into Settings once here"
FACES = {
    ("evaluate.py", "evaluate"): FACE,
    ("frames/face.py", "evaluate"): FACE + " (df.mycelium.evaluate on pandas and Polars)",
    ("frames/face.py", "compare"): FACE + " (df.mycelium.compare on pandas and Polars)",
    ("frames/pandas.py", "score"): FACE,
    ("frames/polars.py", "score"): FACE,
    ("frames/polars_lazy.py", "evaluate"): FACE,
    ("frames/polars_lazy.py", "score"): FACE,
    ("frames/spark.py", "evaluate"): FACE,
    ("stats/comparison.py", "compare"): FACE + " (mycelium.compare)",
    ("annotators/__init__.py", "pairwise_agreement"): FACE,
    ("annotators/__init__.py", "leave_one_out"): FACE,
    ("scores/thresholds.py", "sweep"): FACE + " (mycelium.sweep)",
    ("scores/thresholds.py", "tune_threshold"): FACE + " (mycelium.tune_threshold)",
    ("report/explain.py", "explain"): FACE + " (mycelium.explain)",
    ("report/frame.py", "frame_view"): FACE + " (df.mycelium.show's keywords: the pandas "
                                              "and Polars show methods forward theirs here)",
    ("integrations/transformers.py", "compute_metrics_for"): FACE + " (the Trainer hook)",
}
# Below the faces and still over the limit: each is to take Settings / Inputs whole.
PENDING: set[tuple[str, str]] = set()


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    count = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    if names and names[0].arg in ("self", "cls"):
        count -= 1
    return count


def over_limit() -> dict[tuple[str, str], tuple[int, int]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = parameter_count(node)
                if n > LIMIT:
                    out[(rel, node.name)] = (n, node.lineno)
    return out


def test_no_function_below_the_faces_takes_more_than_ten_parameters():
    found = over_limit()
    bad = [f"{rel}:{line} {name} takes {n}" for (rel, name), (n, line) in found.items()
           if (rel, name) not in FACES and (rel, name) not in PENDING]
    assert not bad, ("Expected at most 10 parameters below the public faces, got:\n  "
                     + "\n  ".join(bad) + "\nfix by passing the options as one "
                     "mycelium.core.settings.Settings and the data as one "
                     "mycelium.core.inputs.Inputs.")


def test_the_lists_name_only_functions_over_the_limit():
    # A face or pending entry that no longer exceeds the limit is dropped from the list,
    # so the lists stay the truth.
    found = over_limit()
    stale = sorted(set(FACES) - set(found)) + sorted(PENDING - set(found))
    assert not stale, f"Expected only functions over the limit listed, got {stale}."


def test_parameter_count_counts_every_kind():
    tree = ast.parse("def f(a, /, b, *c, d, **e): pass\nclass K:\n def m(self, x): pass")
    f, m = tree.body[0], tree.body[1].body[0]
    assert isinstance(f, ast.FunctionDef) and isinstance(m, ast.FunctionDef)
    assert (parameter_count(f), parameter_count(m)) == (5, 1)
