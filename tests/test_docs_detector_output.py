"""The detector-scores page's code and the reports page's span view run, and their
commented results are what they say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
            if "plot_sweep" not in b]  # the figure needs matplotlib (tests/test_doc_snippets.py)


def test_scores_and_adapters_snippets_give_the_commented_values():
    scope: dict = {}
    for block in _blocks("scores.md"):
        exec(block, scope)  # noqa: S102  (the README's own code)
    r, best = scope["r"], scope["best"]
    assert r["iou"]["score"] == pytest.approx((1 + 5 / 11 + 0) / 3, rel=1e-15)
    assert r["response_level"] == {"precision": 2 / 3, "recall": 1.0, "f1": 0.8}
    assert (best["threshold"], best["value"]) == (0.7, 1.0)
    m = scope["mycelium"]
    text = scope["text"]
    assert m.convert_offsets([(17, 28)], text, unit="utf8") == [(16, 26)]
    assert m.align_tokens(text, ["<s>", "Z", "Ã¼", "rich", "Ġliegt", "Ġin",
                                 "ĠÃĸsterreich", "."]) == [
        (0, 0), (0, 1), (1, 2), (2, 6), (7, 12), (13, 15), (16, 26), (26, 27)]
    assert m.parse_tagged("Zürich liegt in [HAL]Österreich[/HAL].") == (
        "Zürich liegt in Österreich.", [{"start": 16, "end": 26, "tag": "HAL"}])


def test_show_snippet_prints_the_commented_rows():
    import mycelium

    scope: dict = {"mycelium": mycelium}
    block = _blocks("reports.md")[0]
    exec(block, scope)  # noqa: S102
    lines = repr(scope["v"]).splitlines()
    assert lines[2].rstrip() == "reference                                      ^^^^        ^^^^^^^^^^"
    assert lines[3].startswith("careful                                        ====        ----------")
    assert "iou 0.286" in lines[3] and "iou 0.438" in lines[4]
