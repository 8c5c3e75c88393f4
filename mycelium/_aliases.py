"""The module paths of earlier versions (``mycelium.bootstrap``, ``mycelium.polars_ext``,
``mycelium.scoring``, ``mycelium.mushroom``, ...), kept importable after the modules moved
into layer folders: scripts, pickles and documented paths that name an old module get the
new one, loaded on first use.

An import of ``mycelium.<old>`` finds `ALIASES` here and returns the module it moved to
(the same object, so ``mycelium.bootstrap is mycelium.stats.bootstrap``). Nothing is
imported until a name is asked for, so ``import mycelium`` stays as light as before.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: old module name -> the module it is now.
ALIASES = {
    "mycelium.spans": "mycelium.core.spans",
    "mycelium.inputs": "mycelium.core.inputs",
    "mycelium.exactsum": "mycelium.core.exactsum",
    "mycelium.aggregate": "mycelium.core.aggregate",
    "mycelium.settings": "mycelium.core.settings",
    "mycelium.profiles": "mycelium.core.profiles",
    "mycelium.signature": "mycelium.core.signature",
    "mycelium.reduce": "mycelium.core.reduce",
    "mycelium.engine_sums": "mycelium.core.engine_sums",
    "mycelium.progress": "mycelium.core.progress",
    "mycelium.granularity": "mycelium.views.granularity",
    "mycelium.typology": "mycelium.views.typology",
    "mycelium.bootstrap": "mycelium.stats.bootstrap",
    "mycelium.comparison": "mycelium.stats.comparison",
    "mycelium.agreement": "mycelium.stats.agreement",
    "mycelium.frames_compare": "mycelium.frames.compare",
    "mycelium.pandas_ext": "mycelium.frames.pandas",
    "mycelium.polars_ext": "mycelium.frames.polars",
    "mycelium.polars_lazy": "mycelium.frames.polars_lazy",
    "mycelium.spark": "mycelium.frames.spark",
    "mycelium.groups": "mycelium.core.groups",
    "mycelium.frames.groups": "mycelium.core.groups",
    "mycelium.cli_evaluate": "mycelium.cli.evaluate",
    "mycelium.cli_output": "mycelium.cli.output",
    "mycelium.cli_mushroom": "mycelium.cli.mushroom",
    # moved into mycelium.scores, mycelium.protocols and mycelium.report
    "mycelium.scoring": "mycelium.scores.spans",
    "mycelium.thresholds": "mycelium.scores.thresholds",
    "mycelium.score_report": "mycelium.scores.report",
    "mycelium.baselines": "mycelium.scores.baselines",
    "mycelium.plot": "mycelium.report.sweep_plot",
    "mycelium.mushroom": "mycelium.protocols.mushroom",
    "mycelium._mushroom_fast": "mycelium.protocols.mushroom",
    "mycelium.psiloqa": "mycelium.protocols.psiloqa",
    "mycelium.fava": "mycelium.protocols.fava",
    # its pieces went to mycelium.scores.plan and mycelium.core.serialize; the accumulator
    # imports each under its old name
    "mycelium.accumulator_parts": "mycelium.accumulator",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        # Already executed under its new name; the import system has just set the old
        # name's spec on it, so give the module its own spec back.
        module.__spec__ = self._spec


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the old name of a moved module and hands out the module it moved to."""

    def find_spec(self, fullname, path=None, target=None):
        moved = ALIASES.get(fullname)
        if moved is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(moved))


def install() -> None:
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(AliasFinder())
