"""One grouping engine for span and score statistics alike: `mycelium.core.groups`.

Two tests keep it one. The structural one walks ``mycelium/`` with ``ast`` and fails if
a module other than the engine sorts rows by group, sums columns by group codes,
defines its own per-group sums or attaches group keys to result rows: a second
implementation of any of these is how the span and score paths drifted apart before
(each had its sort by group, its sums and its tidy-table builder). The behavioural one
records which engine functions the span path and the score paths of the frame faces
call, and checks that they are the same ones.

The metric kernels (``mycelium/metrics``, below ``core``) add up values per example or
per span run with the same numpy primitives; an example is not a group of rows, so
they are not counted.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mycelium  # noqa: F401  (registers the pandas accessor)
from _optional import pl

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"
ENGINE = PACKAGE / "core" / "groups.py"
KERNELS = PACKAGE / "metrics"


def _dotted(node: ast.AST) -> str:
    """``np.add.reduceat`` for the expression of a called function (else "")."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _names_codes(node: ast.AST) -> bool:
    """Is the expression a group-codes array (``codes``, ``x.codes``, ``kept_codes``)?"""
    if isinstance(node, ast.Subscript):
        node = node.value
    name = node.id if isinstance(node, ast.Name) else (
        node.attr if isinstance(node, ast.Attribute) else "")
    return name == "codes" or name.endswith("_codes")


def grouping_outside_the_engine(package: Path = PACKAGE) -> list[str]:
    """``"<file>:<line>: <what>"`` for every piece of a grouping engine outside it."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if path == ENGINE or KERNELS in path.parents:
            continue
        where = path.relative_to(package.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    "group_sum" in node.name or "fsum_by" in node.name):
                found.append(f"{where}:{node.lineno}: defines per-group sums "
                             f"({node.name}); use group_sums / group_fsums")
            if not isinstance(node, ast.Call):
                continue
            called = _dotted(node.func)
            args = node.args
            if called.endswith("searchsorted") and len(args) == 2 \
                    and isinstance(args[0], ast.Subscript) \
                    and isinstance(args[1], ast.Call) \
                    and _dotted(args[1].func).endswith("arange"):
                found.append(f"{where}:{node.lineno}: splits sorted rows into groups; "
                             "use group_bounds / Groups.positions")
            if called.split(".")[-1] in ("argsort", "bincount", "reduceat", "lexsort") \
                    and args and _names_codes(args[0]):
                found.append(f"{where}:{node.lineno}: {called} of group codes; use "
                             "group_bounds / group_sums")
            if called.endswith("keys.column"):
                found.append(f"{where}:{node.lineno}: attaches group keys to rows; use "
                             "key_columns / grouped_table")
    return sorted(set(found))


def test_no_grouping_outside_the_engine():
    found = grouping_outside_the_engine()
    assert not found, ("Expected every grouping of rows (the sort by group, per-group "
                       "sums, the key columns of result rows) in mycelium/core/groups.py "
                       "only, got:\n" + "\n".join(found))


def test_the_structural_check_sees_a_second_engine(tmp_path):
    # The check itself: each idiom, written in another module, is found.
    room = tmp_path / "mycelium" / "frames"
    room.mkdir(parents=True)
    (room / "other.py").write_text(
        "import numpy as np\n"
        "def my_group_sums(codes, n):\n"
        "    order = np.argsort(codes, kind='stable')\n"
        "    bounds = np.searchsorted(codes[order], np.arange(n + 1))\n"
        "    return np.bincount(codes, minlength=n), bounds\n"
        "def keyed(groups, g):\n"
        "    return {k: groups.keys.column(k).take(g) for k in groups.keys.column_names}\n")
    found = grouping_outside_the_engine(tmp_path / "mycelium")
    assert [f.split(": ", 1)[1].split(";")[0] for f in found] == [
        "defines per-group sums (my_group_sums)", "np.argsort of group codes",
        "splits sorted rows into groups", "np.bincount of group codes",
        "attaches group keys to rows"]


# ------------------------------------------------------------------ the calls

def engine_calls(run) -> set[str]:
    """The names of the engine's functions that ``run()`` calls."""
    seen: set[str] = set()
    engine = str(ENGINE)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == engine:
            seen.add(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return seen


FRAME = pd.DataFrame({
    "model": ["a", "b", "a", "b"],
    "text": ["one two three", "four five", "six seven", "eight nine ten"],
    "ref": [[[0, 3]], [[5, 9]], [], [[0, 5]]],
    "pred": [[[0, 3]], [[0, 4]], [[0, 3]], [[0, 5]]],
    "offsets": [[[0, 3], [4, 7], [8, 13]], [[0, 4], [5, 9]], [[0, 3], [4, 9]],
                [[0, 5], [6, 10], [11, 14]]],
    "scores": [[0.9, 0.1, 0.2], [0.3, 0.8], [0.7, 0.1], [0.9, 0.4, 0.2]],
})
#: What every grouped result goes through, on every path.
SHARED = {"group_codes", "tidy_columns", "grouped_table", "key_columns"}


def test_span_and_score_paths_call_the_same_engine():
    spans = engine_calls(lambda: FRAME.mycelium.evaluate(
        "ref", "pred", text="text", metrics=["iou"], by="model"))
    scores = engine_calls(lambda: FRAME.mycelium.evaluate(
        "ref", text="text", token_offsets_col="offsets", token_scores_col="scores",
        metrics=["char_auroc", "iou"], threshold=0.5, by="model"))
    sweep = engine_calls(lambda: FRAME.mycelium.sweep(
        "ref", text="text", token_offsets_col="offsets", token_scores_col="scores",
        metrics=["iou"], thresholds=[0.25, 0.5], by="model"))
    assert SHARED - {"tidy_columns"} <= scores  # each group scored by evaluate, then keyed
    assert SHARED <= spans and "group_sums" in spans
    assert {"tidy_columns", "grouped_table", "group_sums"} <= sweep
    assert "group_bounds" in scores  # its groups' rows: Groups.positions


@pytest.mark.skipif(pl is None, reason="polars is not installed")
def test_streamed_scores_sum_through_the_engine(monkeypatch):
    # Polars runs a plan's Python functions on threads of its own, which no profile
    # reaches: the engine's functions are watched where the score sums call them.
    from mycelium.core import groups
    from mycelium.frames import score_sums

    seen: set[str] = set()

    def watched(name):
        real = getattr(groups, name)

        def call(*args, **kwargs):
            seen.add(name)
            return real(*args, **kwargs)
        return call

    for name in ("group_sums", "group_fsums", "sparse_sums", "tidy_columns",
                 "grouped_table"):
        monkeypatch.setattr(score_sums, name, watched(name))
    options = dict(text="text", token_offsets_col="offsets", token_scores_col="scores",
                   metrics=["char_auroc", "iou"], threshold=0.5, by="model",
                   average="micro")
    got = pl.from_pandas(FRAME).lazy().mycelium.evaluate("ref", **options).collect()
    assert {"group_sums", "sparse_sums", "tidy_columns", "grouped_table"} <= seen
    eager = FRAME.mycelium.evaluate("ref", **options)
    got = got.to_pandas()
    assert got[["model", "metric", "measure"]].values.tolist() == \
        eager[["model", "metric", "measure"]].values.tolist()
    assert np.array_equal(got["value"].to_numpy(), eager["value"].to_numpy(),
                          equal_nan=True)
