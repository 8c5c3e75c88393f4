"""The report's progress bar: shown when asked (tqdm's bar where installed), silent when
not asked and the output is not interactive."""

from __future__ import annotations

import builtins

import pandas as pd
import pytest

import mycelium  # noqa: F401
from mycelium.report.document import ReportOptions, build_report
from mycelium.report.progress import phase_bar

FRAME = pd.DataFrame({"detector": ["a", "a", "b", "b"], "text": ["abcd"] * 4,
                      "ref": [[[0, 2]], [], [[0, 2]], []],
                      "pred": [[[0, 2]], [], [[1, 3]], [[0, 1]]]})


def build(progress):
    return build_report(FRAME, "ref", "pred", detector_col="detector", text_col="text",
                        options=ReportOptions(ci=None, progress=progress))


def test_silent_when_not_interactive(capsys):
    build(None)  # pytest's captured stderr is not a terminal
    build(False)
    assert capsys.readouterr().err == ""


def test_a_bar_when_asked(capsys):
    pytest.importorskip("tqdm", reason="tqdm draws the bar when installed")
    build(True)
    err = capsys.readouterr().err
    assert "report: scoring" in err and "0/5 [" in err and "step/s" in err


def test_plain_bar_without_tqdm(monkeypatch, capsys):
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    bar = phase_bar(2, "report", True)
    bar.update(1)
    bar.update(1)
    bar.close()
    assert "report [" in capsys.readouterr().err
