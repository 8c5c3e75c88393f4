"""The one progress path of every long call (intervals, comparisons, sweeps, the report,
the command): tqdm's bar where tqdm is installed (in a Jupyter kernel ``tqdm.auto``'s,
a widget with ipywidgets; elsewhere its terminal bar, a line redrawn in place), else a
plain bar on standard error.

Shown when asked (``progress=True``) or, by default, when the output is interactive (a
terminal, or a Jupyter kernel) and the work is large; never in pipes, logs or CI. A call
that runs inside another's bar (the report's phases) adds its steps to that bar instead
of drawing its own (`inside`), so one bar moves through the whole run and ends at its
total.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from typing import Iterator, Protocol

__all__ = ["Progress", "Bar", "bar", "running", "wanted", "interactive", "inside",
           "AUTO_THRESHOLD"]

#: Default amount of work (e.g. resamples x examples) above which a bar is worth showing.
AUTO_THRESHOLD = 20_000_000


class Bar(Protocol):
    """What every caller uses of a bar (tqdm's names)."""

    def update(self, n: int = 1) -> object: ...

    def set_description(self, desc: str) -> object: ...

    def close(self) -> object: ...


class Progress:
    """The plain bar, without tqdm: ``update(n)`` after each step; ``close()`` at the end
    (also a context manager). Redraws one line with ``\\r`` on a terminal."""

    def __init__(self, total: int, desc: str, enabled: bool, stream=None) -> None:
        self.total, self.desc, self.enabled = total, desc, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done, self.start = 0, time.perf_counter()

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.enabled:
            frac = self.done / self.total if self.total else 1.0
            shown = "#" * int(30 * min(frac, 1.0))
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r{self.desc} [{shown:<30}] {self.done}/{self.total} "
                              f"{elapsed:5.1f}s")
            self.stream.flush()

    def set_description(self, desc: str) -> None:
        self.desc = desc

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, desc: str) -> None:
        pass

    def close(self) -> None:
        pass


class _Within:
    """A nested call's bar inside an outer one: its steps move the outer bar; closing it
    leaves the outer bar open."""

    def __init__(self, outer: Bar) -> None:
        self.outer = outer

    def update(self, n: int = 1) -> None:
        self.outer.update(n)

    def set_description(self, desc: str) -> None:
        pass

    def close(self) -> None:
        pass


_OUTER: contextvars.ContextVar[Bar | None] = contextvars.ContextVar("mycelium_progress",
                                                                    default=None)


def interactive() -> bool:
    """Standard error is a terminal, or the code runs in a Jupyter kernel."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty()) or _in_kernel()


def _in_kernel() -> bool:
    """A Jupyter kernel runs this code: IPython's shell has a kernel (importing ipykernel,
    as a test or a tool may, is not enough)."""
    ipython = sys.modules.get("IPython")
    if "ipykernel" not in sys.modules or ipython is None:
        return False
    get = getattr(ipython, "get_ipython", None)
    shell = get() if get is not None else None
    return getattr(shell, "kernel", None) is not None


def wanted(progress, work: int, threshold: int = AUTO_THRESHOLD) -> bool:
    """Resolve ``progress`` (True / False / None = automatic) for ``work`` units: automatic
    means interactive output and at least ``threshold`` units of work."""
    if progress is not None:
        return bool(progress)
    return interactive() and work >= threshold


def bar(total: int, desc: str, enabled: bool, *, unit: str = "it") -> Bar:
    """A bar over ``total`` steps: inside an outer bar (`inside`), a share of it whatever
    ``enabled`` says; else tqdm's ``tqdm.auto`` bar (or the plain one without tqdm) when
    ``enabled``, and a silent one otherwise."""
    outer = _OUTER.get()
    if outer is not None:
        return _Within(outer)
    if not enabled:
        return _Silent()
    try:
        # tqdm.auto picks its notebook bar when ipykernel is merely imported (it decides
        # once, at its own import): ask it only inside a kernel, tqdm's terminal bar else.
        if _in_kernel():
            from tqdm.auto import tqdm
        else:
            from tqdm.std import tqdm
    except ImportError:
        return Progress(total, desc, True)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)


@contextlib.contextmanager
def inside(outer: Bar) -> Iterator[Bar]:
    """Within the block, every `bar` that calls make adds its steps to ``outer``."""
    token = _OUTER.set(outer)
    try:
        yield outer
    finally:
        _OUTER.reset(token)


@contextlib.contextmanager
def running(total: int, desc: str, enabled: bool, *, unit: str = "it") -> Iterator[Bar]:
    """`bar` as a context manager that closes it."""
    b = bar(total, desc, enabled, unit=unit)
    try:
        yield b
    finally:
        b.close()
