"""README's "In a training loop": its ``datasets`` block runs as written and gives the
commented value, and its Trainer block calls `compute_metrics_for` as it is defined."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from _optional import optional

README = Path(__file__).resolve().parents[2] / "README.md"
datasets = optional("datasets", "datasets")


def _blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## In a training loop")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_the_datasets_block_gives_its_commented_value():
    datasets.Dataset  # skips without the extra
    block = _blocks()[1]
    scope: dict = {}
    exec(block, scope)  # noqa: S102  (the README's own code)
    assert scope["acc"].compute()["iou"] == {"score": 0.5}
    assert scope["acc"].compute()["iou"] == scope["report"]["iou"]


def test_the_trainer_block_uses_the_documented_keywords():
    from mycelium.integrations.transformers import compute_metrics_for

    block = _blocks()[0]
    call = re.search(r"compute_metrics_for\((.*?)\)\n", block, re.S).group(1)
    keywords = set(re.findall(r"(\w+)=", call))
    # (the Trainer itself needs torch and a model: the call is what is checked here)
    assert keywords == {"profile", "tune"}
    assert keywords <= set(inspect.signature(compute_metrics_for).parameters)
