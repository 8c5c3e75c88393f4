"""A progress bar for the report's phases: tqdm's ``auto`` bar (terminal or notebook)
where tqdm is installed, else mycelium's plain bar; silent unless asked for or the output
is interactive (a terminal, or a notebook kernel)."""

from __future__ import annotations

import sys

from ..core.progress import Progress

__all__ = ["phase_bar", "interactive"]


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, desc: str) -> None:
        pass

    def close(self) -> None:
        pass


def interactive() -> bool:
    """Standard error is a terminal, or the code runs in a Jupyter kernel."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty()) or "ipykernel" in sys.modules


def phase_bar(total: int, desc: str, progress=None):
    """A bar over ``total`` steps: ``progress`` True / False, or None (automatic)."""
    enabled = interactive() if progress is None else bool(progress)
    if not enabled:
        return _Silent()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Plain(total, desc, True)
    return tqdm(total=total, desc=desc, unit="step", file=sys.stderr, leave=False)


class _Plain(Progress):
    """mycelium's own bar, with the one tqdm method the report calls."""

    def set_description(self, desc: str) -> None:
        pass
