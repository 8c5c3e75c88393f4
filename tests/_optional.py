"""Optional extras in the tests: ``polars`` (and friends) as a real module when installed,
otherwise a stand-in that skips whichever test touches it.

The suite must pass with only the ``test`` extra installed (README's Quick start): tests of
the pandas face, the core and the command line run; a test that needs Polars skips with a
reason the moment it uses it. Type checks such as ``isinstance(x, pl.DataFrame)`` work on
the stand-in (nothing is a Polars frame when Polars is absent) so shared helpers stay usable.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

_CLASSES = ("DataFrame", "LazyFrame", "Series", "Expr")


class Missing(ModuleType):
    """Stands in for an optional module that is not installed."""

    def __init__(self, name: str, extra: str):
        super().__init__(name)
        self._extra = extra

    def __getattr__(self, attr: str):
        if attr.startswith("__"):  # introspection (pytest's collector, copy, pickle)
            raise AttributeError(attr)
        if attr in _CLASSES:  # isinstance(x, pl.DataFrame) is False; pl.DataFrame() skips
            return type(attr, (), {"__new__": lambda cls, *a, **k: self._skip()})
        self._skip()

    def _skip(self):
        pytest.skip(f"{self.__name__} is not installed (an optional extra: "
                    f"pip install -e '.[{self._extra}]')", allow_module_level=True)


def optional(name: str, extra: str) -> ModuleType:
    """``import name`` if it is installed, else a `Missing` stand-in."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return Missing(name, extra)


def have(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


pl = optional("polars", "polars")
