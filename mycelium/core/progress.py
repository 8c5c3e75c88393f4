"""A minimal progress bar on standard error, for long resampling runs.

Shown only when asked (``progress=True``) or, by default, when standard error is a
terminal and the work is large; never in pipes, logs or CI.
"""

from __future__ import annotations

import sys
import time

#: Default threshold of (resamples x examples) above which a bar is worth showing.
AUTO_THRESHOLD = 20_000_000


class Progress:
    """``update(n)`` after each step; ``close()`` at the end (also a context manager)."""

    def __init__(self, total: int, desc: str, enabled: bool, stream=None) -> None:
        self.total, self.desc, self.enabled = total, desc, enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done, self.start = 0, time.perf_counter()

    def update(self, n: int) -> None:
        self.done += n
        if self.enabled:
            frac = self.done / self.total if self.total else 1.0
            bar = "#" * int(30 * frac)
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r{self.desc} [{bar:<30}] {self.done}/{self.total} "
                              f"{elapsed:5.1f}s")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def wanted(progress, work: int) -> bool:
    """Resolve ``progress`` (True / False / None = automatic) for ``work`` units."""
    if progress is not None:
        return bool(progress)
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty()) and work >= AUTO_THRESHOLD
