"""One progress path for every long call: tqdm's ``tqdm.auto`` bar when asked or when the
output is interactive (a terminal, a Jupyter kernel), with the right totals, moving during
the long phase; silent otherwise. Checked in process (tqdm writing to captured standard
error), on a real terminal (a pseudo-terminal running the command) and in a real Jupyter
kernel executing a notebook (nbclient), where tqdm draws its widget."""

from __future__ import annotations

import builtins
import os
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

import mycelium
from mycelium.core.progress import bar, inside
from mycelium.report.document import ReportOptions, build_report
from mycelium.report.progress import phase_bar
from mycelium.scores import sweep, tune_threshold

ROOT = Path(__file__).resolve().parents[2]
FRAME = pd.DataFrame({"detector": ["a", "a", "b", "b"], "text": ["abcd"] * 4,
                      "lang": ["x", "y", "x", "y"],
                      "ref": [[[0, 2]], [], [[0, 2]], []],
                      "pred": [[[0, 2]], [], [[1, 3]], [[0, 1]]]})


def counts(err: str) -> list[tuple[int, int]]:
    """Every ``n/total`` tqdm drew, in order."""
    return [(int(a), int(b)) for a, b in re.findall(r"\| *(\d+)/(\d+) \[", err)]


def test_importing_ipykernel_is_not_running_in_a_kernel(capsys):
    pytest.importorskip("ipykernel", reason="the kernel package")
    import ipykernel.kernelapp  # noqa: F401

    from mycelium.core.progress import interactive

    assert not interactive()  # pytest's stderr is no terminal, and no kernel runs
    build(None, ci=None)
    assert capsys.readouterr().err == ""


def build(progress, **options):
    return build_report(FRAME, "ref", "pred", detector_col="detector", text_col="text",
                        options=ReportOptions(progress=progress, **options))


def test_silent_when_not_interactive(capsys):
    build(None, ci=None)  # pytest's captured stderr is not a terminal
    build(False, ci=None)
    mycelium.evaluate([[[0, 2]]], [[[0, 1]]], ci=0.9, n_resamples=50)
    assert capsys.readouterr().err == ""


def test_report_bar_moves_through_the_bootstrap_and_ends_at_its_total(capsys):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    build_report(FRAME, "ref", "pred", detector_col="detector", text_col="text", by="lang",
                 options=ReportOptions(progress=True, n_resamples=300))
    err = capsys.readouterr().err
    seen = counts(err)
    # 300 resamples x 2 detectors, 300 x 4 (detector, lang) groups, then figures,
    # disagreement, one step per detector's examples, the page
    total = 300 * 2 + 300 * 4 + 1 + 1 + 2 + 1
    assert {t for _, t in seen} == {total}
    assert seen[-1] == (total, total)
    assert "report: scoring" in err and "report: examples" in err
    assert err.count("bootstrap") == 0  # no second bar


class Recorder:
    """A bar that records each update under the description it was made in."""

    def __init__(self, total, desc, progress=None) -> None:
        self.total, self.desc, self.steps = total, desc, []

    def update(self, n=1):
        self.steps.append((self.desc, n))

    def set_description(self, desc):
        self.desc = desc

    def close(self):
        pass


def test_report_bar_moves_during_each_bootstrap(monkeypatch):
    made = []
    monkeypatch.setattr("mycelium.report.progress.phase_bar",
                        lambda *a, **k: made.append(Recorder(*a, **k)) or made[-1])
    build_report(FRAME, "ref", "pred", detector_col="detector", text_col="text", by="lang",
                 options=ReportOptions(progress=True, n_resamples=300))
    rec = made[0]
    by_phase: dict = {}
    for desc, n in rec.steps:
        by_phase.setdefault(desc, []).append(n)
    # the bootstraps move the bar chunk by chunk (64 resamples), per detector or group
    assert sum(by_phase["report: scoring"]) == 600 and len(by_phase["report: scoring"]) > 4
    assert sum(by_phase["report: scoring groups"]) == 1200
    assert len(by_phase["report: scoring groups"]) > 8
    assert by_phase["report: examples"] == [1, 1]
    assert sum(n for _, n in rec.steps) == rec.total == 600 + 1200 + 5


def test_evaluate_compare_sweep_and_tune_threshold_totals(capsys):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    refs, a, b = [[[0, 2]], [[1, 3]], []], [[[0, 2]], [], []], [[[0, 1]], [[1, 3]], []]
    mycelium.evaluate(refs, a, ci=0.9, n_resamples=120, progress=True)
    err = capsys.readouterr().err
    assert counts(err)[-1] == (120, 120) and "bootstrap" in err
    mycelium.compare(refs, {"a": a, "b": b}, metrics="iou", n_resamples=100, progress=True)
    assert counts(capsys.readouterr().err)[-1] == (200, 200)  # two detectors
    mycelium.compare(refs, {"a": a, "b": b}, metrics="iou", n_resamples=100,
                     test="permutation", progress=True)
    assert counts(capsys.readouterr().err)[-1] == (300, 300)  # and one pair's permutations
    texts = ["abcdefgh"] * 3
    soft = [[{"start": 0, "end": 2, "prob": 0.3}, {"start": 2, "end": 4, "prob": 0.8}],
            [{"start": 1, "end": 3, "prob": 0.6}], []]
    curve = sweep(refs, text=texts, soft_predictions=soft, metrics=["iou", "deteval_1d"],
                  by=["x", "y", "x"], progress=True)
    cells = len(curve[["by", "threshold"]].drop_duplicates())  # each group's thresholds
    err = capsys.readouterr().err
    # deteval_1d re-scores each example once per segment of its thresholds (one segment
    # per stretch between its own distinct scores: here 3, 2 and 1), then every cell
    done, total = counts(err)[-1]
    assert done == total == 3 + 2 + 1 + cells and "sweep" in err
    best = tune_threshold(refs, text=texts, soft_predictions=soft, progress=True)
    thresholds = len(sweep(refs, text=texts, soft_predictions=soft, metrics=["iou"]))
    assert best["metric"] == "iou"
    assert counts(capsys.readouterr().err)[-1] == (thresholds, thresholds)  # iou: one pass


def test_a_nested_call_moves_the_outer_bar(capsys):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    outer = bar(150, "outer", True)
    with inside(outer):
        mycelium.evaluate([[[0, 2]]], [[[0, 1]]], ci=0.9, n_resamples=100, progress=False)
    outer.update(50)
    outer.close()
    err = capsys.readouterr().err
    assert counts(err)[-1] == (150, 150) and "bootstrap" not in err


def test_plain_bar_without_tqdm(monkeypatch, capsys):
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    plain = phase_bar(2, "report", True)
    plain.update(1)
    plain.update(1)
    plain.close()
    err = capsys.readouterr().err
    assert "report [" in err and err.rstrip().endswith("s") and "2/2" in err


def test_on_a_terminal_the_command_draws_tqdm_s_bar(tmp_path):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    pytest.importorskip("pty", reason="a pseudo-terminal (POSIX)")
    import fcntl
    import struct
    import subprocess
    import termios

    data = ROOT / "examples" / "data"
    preds = sorted(str(p) for p in (data / "predictions").glob("*.jsonl"))
    argv = [sys.executable, "-m", "mycelium", "report", str(data / "references.jsonl"),
            *preds, "--ref-col", "spans", "--pred-col", "spans", "--text-col", "text",
            "--id-col", "id", "--resamples", "50", "-o", str(tmp_path / "r.html")]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 x 24
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:  # read while it runs, so that a full terminal buffer never blocks it
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: everything was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert child.wait(timeout=300) == 0, out
    total = 50 * 4 + 1 + 1 + 4 + 1  # no --by: no grouped phase
    assert counts(out) and counts(out)[-1] == (total, total), out[-800:]
    assert "report: page: 100%" in out and "\r" in out  # one line, redrawn in place


NOTEBOOK_CELLS = [
    "import mycelium, pandas as pd\n"
    "from mycelium.report.document import build_report, ReportOptions",
    "refs = [[[0, 2]], [[1, 3]], []] * 20\npreds = [[[0, 2]], [], [[0, 1]]] * 20\n"
    "report = mycelium.evaluate(refs, preds, ci=0.9, n_resamples=70, progress=True)",
    "frame = pd.DataFrame({'detector': ['a', 'b'] * 30, 'text': ['abcd'] * 60,\n"
    "                      'ref': refs, 'pred': preds})\n"
    "html = build_report(frame, 'ref', 'pred', detector_col='detector', text_col='text',\n"
    "                    options=ReportOptions(n_resamples=40))",
]


def test_in_a_notebook_tqdm_draws_its_widget_with_the_right_totals(tmp_path):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    pytest.importorskip("ipywidgets", reason="tqdm's notebook bar is an ipywidgets widget")
    nbformat = pytest.importorskip("nbformat", reason="a notebook to execute")
    nbclient = pytest.importorskip("nbclient", reason="executes the notebook in a kernel")
    pytest.importorskip("ipykernel", reason="the Python kernel")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     store_widget_state=True, resources={
                                         "metadata": {"path": str(ROOT)}})
    client.execute()
    states = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    bars = [s["state"] for s in states.values()
            if s["model_name"] == "FloatProgressModel"]
    # evaluate's bootstrap (70 resamples), then the report's one bar (automatic in a
    # kernel): 40 x 2 detectors (no grouped phase), figures, disagreement, 2 detectors'
    # examples, the page
    assert [(b["value"], b["max"]) for b in bars] == [(70, 70), (85, 85)]
    for cell in nb.cells[1:]:
        kinds = [o.get("output_type") for o in cell.outputs]
        assert "display_data" in kinds, cell.outputs  # the widget, not stderr text
        assert all(o.get("name") != "stderr" for o in cell.outputs), cell.outputs
