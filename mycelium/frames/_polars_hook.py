"""Register the Polars namespace when Polars is imported — without importing it ourselves.

``import mycelium`` must stay fast for users who never touch Polars, yet
``pl.DataFrame.mycelium`` must exist as soon as they do. If Polars is already imported,
the namespace is registered at once; otherwise a meta-path finder waits for the first
``import polars`` and registers right after Polars has finished loading.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys


def _register() -> None:
    # The decorators in these modules register the namespaces.
    from . import polars, polars_lazy  # noqa: F401


class _AfterPolars(importlib.abc.MetaPathFinder):
    """Wraps the loader of the top-level ``polars`` module to register afterwards.

    It stays on the meta path until Polars has actually loaded: a bare
    ``importlib.util.find_spec("polars")`` (how libraries check for an optional
    dependency) asks the finders without importing, and must not use up the hook.
    """

    def __init__(self) -> None:
        self._finding = False

    def find_spec(self, fullname, path, target=None):
        if fullname != "polars" or self._finding:
            return None
        self._finding = True  # find the real spec without us
        try:
            spec = importlib.util.find_spec("polars")
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
            _register()

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Register now if Polars is loaded, else when it is first imported."""
    if "polars" in sys.modules:
        _register()
    elif not any(isinstance(f, _AfterPolars) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterPolars())
