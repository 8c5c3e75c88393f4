"""Public names of a package that load on first use: a package's ``__init__`` lists
``{name: submodule}`` and gets a module ``__getattr__`` and ``__dir__``, so importing the
package stays as light as its docstring while ``package.name`` and tab completion work."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(package: str, names: Mapping[str, str], namespace: dict[str, Any]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps a public name to the
    submodule (relative to ``package``) that defines it; a name listed with its own module
    path (``"spans": "spans"``) is the submodule itself. A loaded name is stored in
    ``namespace`` (the package's globals), so later look-ups do not come back here."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f".{where}", package)
        value = module if where == name else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
