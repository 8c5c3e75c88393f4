"""The command's own process turns numpy's transparent huge pages off (README, "Memory
pages"); a library call of `main(argv)` and a set ``NUMPY_MADVISE_HUGEPAGE`` leave
numpy's setting alone."""

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


def test_the_command_turns_huge_pages_off(monkeypatch, huge_pages_on, capsys):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    monkeypatch.setattr(sys, "argv", ["mycelium", "--version"])
    assert main() == 0
    assert _state() is False


def test_the_variable_and_library_calls_leave_numpy_alone(monkeypatch, huge_pages_on,
                                                           capsys):
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert main(["--version"]) == 0
    assert _state() is True
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    monkeypatch.setattr(sys, "argv", ["mycelium", "--version"])
    assert main() == 0
    assert _state() is True
