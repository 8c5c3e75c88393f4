"""The Mu-SHROOM page's "From a model's logits" block runs as written on the real files."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "mu_shroom.md"


def _block() -> str:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## From a model's logits"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_logits_block_runs(mushroom_dir, monkeypatch):
    monkeypatch.setenv("MYCELIUM_MUSHROOM_DIR", str(mushroom_dir))
    out = io.StringIO()
    scope: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(_block(), str(PAGE), "exec"), scope)
    auroc, iou = (float(x) for x in out.getvalue().split())
    assert auroc == round(scope["free"]["char_auroc"]["score"], 3)
    assert 0.45 < auroc < 0.6                     # "near 0.5", as the page says
    assert 0.0 <= iou <= 1.0
    assert scope["at_t"]["meta"]["signature"].endswith("tuned:iou") or \
        "tuned:iou" in scope["at_t"]["meta"]["signature"]
    assert scope["free"]["ci"]["char_auroc"]["score"]["low"] < auroc
