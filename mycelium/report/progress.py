"""The report's one bar: tqdm's ``auto`` bar (terminal or notebook) where tqdm is
installed, else mycelium's plain bar (`mycelium.core.progress`); silent unless asked for
or the output is interactive (a terminal, or a notebook kernel). The bootstrap of each
scoring phase moves the same bar, resample by resample."""

from __future__ import annotations

import contextlib
from typing import Iterator

from ..core.progress import bar, inside, interactive

__all__ = ["phase_bar", "interactive", "Phases"]


def phase_bar(total: int, desc: str, progress=None):
    """A bar over ``total`` steps: ``progress`` True / False, or None (automatic)."""
    enabled = interactive() if progress is None else bool(progress)
    return bar(total, desc, enabled, unit="step")


class Phases:
    """The report's bar split into phases of known size: within ``phase(steps, desc)``,
    every nested bar (a bootstrap's resamples) moves this one; a phase that made fewer
    steps than it was given is topped up when it ends, so the bar ends at its total."""

    def __init__(self, sizes: list[int], desc: str, progress=None) -> None:
        self.total = sum(sizes)
        self.bar = phase_bar(self.total, desc, progress)
        self.done = 0

    def update(self, n: int = 1) -> None:
        self.done += n
        self.bar.update(n)

    def set_description(self, desc: str) -> None:
        self.bar.set_description(desc)

    def close(self) -> None:
        pass

    @contextlib.contextmanager
    def phase(self, steps: int, desc: str) -> Iterator["Phases"]:
        self.bar.set_description(desc)
        target = self.done + steps
        with inside(self):
            yield self
        if self.done < target:
            self.update(target - self.done)

    def finish(self) -> None:
        if self.done < self.total:
            self.update(self.total - self.done)
        self.bar.close()
