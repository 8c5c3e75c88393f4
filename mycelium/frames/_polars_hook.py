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
    """Wraps the loader of the top-level ``polars`` module to register afterwards."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "polars":
            return None
        sys.meta_path.remove(self)  # one shot: find the real spec without us
        spec = importlib.util.find_spec("polars")
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            _register()

        loader.exec_module = exec_module
        return spec


def install() -> None:
    """Register now if Polars is loaded, else when it is first imported."""
    if "polars" in sys.modules:
        _register()
    elif not any(isinstance(f, _AfterPolars) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterPolars())
