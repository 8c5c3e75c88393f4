"""The Trainer page (docs/faces/trainer.md): its ``datasets`` block runs as written and gives the
commented value, and its Trainer block calls `compute_metrics_for` as it is defined."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from _optional import optional

PAGE = Path(__file__).resolve().parents[2] / "docs" / "faces" / "trainer.md"
datasets = optional("datasets", "datasets")


def _blocks() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_datasets_block_gives_its_commented_value():
    datasets.Dataset  # skips without the extra
    block = _blocks()[2]
    scope: dict = {}
    exec(block, scope)  # noqa: S102  (the page's own code)
    assert scope["acc"].compute()["iou"] == {"score": 0.5}
    assert scope["acc"].compute()["iou"] == scope["report"]["iou"]


def test_the_trainer_block_uses_the_documented_keywords():
    from mycelium.integrations.transformers import compute_metrics_for

    block = _blocks()[1]
    call = re.search(r"compute_metrics_for\((.*?)\)\n", block, re.S).group(1)
    keywords = set(re.findall(r"(\w+)=", call))
    # (the Trainer itself needs torch and a model: the call is what is checked here)
    assert keywords == {"profile", "tune"}
    assert keywords <= set(inspect.signature(compute_metrics_for).parameters)
