"""The command's own process turns numpy's transparent huge pages off (README, "Memory
pages") before it runs a subcommand (``--version`` and ``--help`` do not load numpy); a
library call of `main(argv)` and a set ``NUMPY_MADVISE_HUGEPAGE`` leave numpy's setting
alone."""

import json
import sys

import pytest

madvise = pytest.importorskip("numpy._core.multiarray")._set_madvise_hugepage

from mycelium.cli.app import main  # noqa: E402


@pytest.fixture
def huge_pages_on():
    before = madvise(True)
    yield
    madvise(before)


def _state() -> bool:
    state = madvise(True)  # returns the previous state
    madvise(state)
    return state


@pytest.fixture
def command(tmp_path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps({"ref": [[0, 10]], "pred": [[2, 8]]}) + "\n", encoding="utf-8")
    return ["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred", "--metrics",
            "iou", "--format", "csv"]


def test_the_command_turns_huge_pages_off(monkeypatch, huge_pages_on, capsys, command):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    monkeypatch.setattr(sys, "argv", ["mycelium", *command])
    assert main() == 0
    assert _state() is False


def test_version_and_help_leave_numpy_alone(monkeypatch, huge_pages_on, capsys):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    for flag in ("--version", "--help"):
        monkeypatch.setattr(sys, "argv", ["mycelium", flag])
        assert main() == 0
        assert _state() is True


def test_the_variable_and_library_calls_leave_numpy_alone(monkeypatch, huge_pages_on,
                                                           capsys, command):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert main(command) == 0
    assert _state() is True
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    monkeypatch.setattr(sys, "argv", ["mycelium", *command])
    assert main() == 0
    assert _state() is True
