"""The Python blocks of docs/registry.md and docs/rank.md run (offline, on an empty
cache) and print what the pages say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(encoding="utf-8"),
                      flags=re.S)


@pytest.mark.parametrize("name", ["registry.md", "rank.md"])
def test_python_blocks_run(name):
    out = io.StringIO()
    for block in _blocks(name):
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"{name}", "exec"), {})
    text = out.getvalue()
    if name == "rank.md":
        assert text.startswith("iai_MSU 0.650899 1 {'significant': 6}\n")
        assert text.endswith("3 baselines\n")
    else:
        assert "758df17a159b" in text and "Expected a registered copy" in text
