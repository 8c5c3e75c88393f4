"""``df.mycelium`` and ``pl.DataFrame.mycelium`` as soon as pandas or Polars is imported,
without importing either ourselves.

A user who writes ``df.mycelium`` has already imported pandas, so ``import mycelium``
need not (pandas alone takes longer to import than numpy and pyarrow together). For each
frame library, `install` registers at once if the library is already in ``sys.modules``;
otherwise a one-shot meta-path finder waits for its first import and registers right
after the library has finished loading.

pandas gets a placeholder attribute that imports `mycelium.frames.pandas` (whose
decorator registers the real accessor) on first use: a pandas import triggered from
inside one of mycelium's own modules must not load the accessor's module graph while
that module is half initialized. Polars gets its namespaces registered at once.
"""

from __future__ import annotations

import sys
from typing import Any, Callable


class _Pending:
    """``pd.DataFrame.mycelium`` until first use: loads the real accessor in its place.

    `mycelium.frames.pandas` takes the placeholder away (it knows it by
    ``placeholder``) before its decorator registers ``MyceliumAccessor``, which would
    otherwise warn that it overrides an attribute."""

    placeholder = True

    def __get__(self, obj: Any, cls: type) -> Any:
        import pandas as pd

        from . import pandas as face  # noqa: F401  (registers the accessor)

        real = pd.DataFrame.__dict__["mycelium"]
        return real.__get__(obj, cls)


def _pandas() -> None:
    import pandas as pd

    if "mycelium" not in pd.DataFrame.__dict__:
        pd.DataFrame.mycelium = _Pending()
        pd.DataFrame._accessors.add("mycelium")  # for dir() and completion


def _polars() -> None:
    # The decorators in these modules register the namespaces.
    from . import polars, polars_lazy  # noqa: F401


#: frame library -> what registers mycelium on it.
REGISTER: dict[str, Callable[[], None]] = {"pandas": _pandas, "polars": _polars}


class _After:
    """Wraps the loader of one top-level module to call ``register`` once it has loaded.

    It stays on the meta path until the module has actually loaded: a bare
    ``importlib.util.find_spec(name)`` (how libraries check for an optional dependency)
    asks the finders without importing, and must not use up the hook. (A meta-path
    finder needs only ``find_spec``; not deriving from ``importlib.abc.MetaPathFinder``
    spares every ``import mycelium`` importing ``importlib.abc``, which loads
    ``importlib.resources``, ``tempfile``, ...)
    """

    def __init__(self, name: str, register: Callable[[], None]) -> None:
        self.name, self.register = name, register
        self._finding = False

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name or self._finding:
            return None
        import importlib.util

        self._finding = True  # find the real spec without us
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module
        finder = self

        def exec_module(module):
            original(module)
            if finder in sys.meta_path:
                sys.meta_path.remove(finder)
            finder.register()

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Register on each frame library now if it is loaded, else when it is first imported."""
    for name, register in REGISTER.items():
        if name in sys.modules:
            register()
        elif not any(isinstance(f, _After) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _After(name, register))
