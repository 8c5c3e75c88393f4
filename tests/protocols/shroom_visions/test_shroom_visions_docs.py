"""docs/benchmarks/shroom_visions.md: its Python block runs on the shipped example and
prints what the page says; the worked example's command prints the page's table (and
README.md's lines); the shipped example files are what examples/make_shroom_visions_data.py
writes."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

from mycelium.cli.app import main

ROOT = Path(__file__).resolve().parents[3]
PAGE = (ROOT / "docs" / "benchmarks" / "shroom_visions.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_block_runs_and_prints_the_page_numbers(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    for block in re.findall(r"```python\n(.*?)```", PAGE, flags=re.S):
        with contextlib.redirect_stdout(out):
            exec(compile(block, "shroom_visions.md", "exec"), {})
    text = out.getvalue()
    assert text.startswith("Cor    : 0.81751245\nIoU    : 0.66567460\nCor lbl: 0.64529184\n")
    assert "demo-en-2  Cor 0.9990  Cor+Lbl 0.2181" in text
    assert "demo-en-3  Cor 0.6523  Cor+Lbl 0.5000" in text
    # the profile on a frame: the kit's three means, then the per-label rows
    for row in ("(all)          soft_spearman   score 0.8175         6",
                "(all) soft_spearman_by_label   score 0.6453         6",
                "(all)                    iou   score 0.6657         6",
                "OCR          soft_spearman   score 0.8360         2",
                "other                 counts  n_pred 1.0000         1"):
        assert row in text, row


def test_worked_example_command_prints_the_page_table(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(ROOT)
    table = re.search(r"```text\n(.*?)```", PAGE, flags=re.S).group(1)
    assert main(["shroom-visions", "examples/data/shroom_visions/gold.jsonl",
                 "examples/data/shroom_visions/pred.jsonl", str(tmp_path / "out.txt"),
                 "--per-label"]) == 0
    assert capsys.readouterr().out == table
    assert (tmp_path / "out.txt").read_text() == "Cor    : 0.81751245\nCor lbl: 0.64529184\n"


def test_readme_example_prints_the_readme_lines(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(ROOT)
    lines = re.search(r"mycelium shroom-visions .*?```text\n(.*?)```", README,
                      flags=re.S).group(1)
    assert main(["shroom-visions", "examples/data/shroom_visions/gold.jsonl",
                 "examples/data/shroom_visions/pred.jsonl", str(tmp_path / "out.txt")]) == 0
    assert capsys.readouterr().out == lines
    # the numbers the README quotes for demo-en-2
    from mycelium.protocols.shroom_visions import score_files

    result = score_files("examples/data/shroom_visions/gold.jsonl",
                         "examples/data/shroom_visions/pred.jsonl")
    at = result.ids.index("demo-en-2")
    assert (round(result.cor[at], 3), round(result.cor_lbl[at], 3)) == (0.999, 0.218)
    assert "Cor 0.999 and Cor+Lbl 0.218" in " ".join(README.split())


def test_shipped_example_is_current(tmp_path):
    data = ROOT / "examples" / "data" / "shroom_visions"
    before = {p.name: p.read_bytes() for p in data.glob("*.jsonl")}
    subprocess.run([sys.executable, str(ROOT / "examples" / "make_shroom_visions_data.py")],
                   check=True, env=dict(os.environ))
    after = {p.name: p.read_bytes() for p in data.glob("*.jsonl")}
    assert before == after and set(before) == {"gold.jsonl", "pred.jsonl"}
