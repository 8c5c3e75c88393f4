"""``python docs/build_reference.py [OUT]``: the API reference as a static site (pdoc, numpydoc
docstrings), into ``OUT`` (default ``docs/reference/``). No network is needed; any warning
(an unresolvable name, a module that fails to import, a malformed docstring) is an error,
so the reference cannot silently lose a page.

Needs the ``docs`` extra (``pip install -e ".[docs]"``); the optional faces (Polars, Spark)
are documented when their extras are installed and left out otherwise.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The pages, in layer order (README's "Where things live"): one page per subpackage, which
#: lists what lives there, and a page per module a user reads (each metric's definition is
#: its module docstring; the faces' classes document every method). pdoc follows a
#: package's ``__all__``, which names functions rather than submodules, so the modules of
#: a package with ``__all__`` are listed one by one; ``core`` and ``views`` bring all their
#: submodules. A ``!`` pattern leaves out what only the package uses internally.
PAGES = (
    "mycelium", "mycelium.errors",
    "mycelium.metrics", "mycelium.metrics.exact_span", "mycelium.metrics.iou",
    "mycelium.metrics.character", "mycelium.metrics.deteval_1d",
    "mycelium.metrics.cleval_1d", "mycelium.metrics.span_coverage",
    "mycelium.metrics.soft_spearman", "mycelium.metrics.char_auroc",
    "mycelium.metrics.char_ap", "mycelium.metrics.response_auroc",
    "mycelium.metrics.response_level",
    "mycelium.core", "!mycelium.core.progress", "!mycelium.core.lazy",
    "!mycelium.core.serialize",
    "mycelium.adapters",
    "mycelium.views",
    "mycelium.stats", "mycelium.stats.bootstrap", "mycelium.stats.comparison",
    "mycelium.stats.agreement",
    "mycelium.scores", "mycelium.scores.spans", "mycelium.scores.thresholds",
    "mycelium.scores.baselines",
    "mycelium.accumulator",
    "mycelium.frames",
    r"!mycelium\.frames\.(_|engine$|compare$|polars_batches$|polars_expr$|"
    r"to_pandas$|spark_checks$|score_sums$|polars_scores$|spark_scores$)",
    "mycelium.io",
    "mycelium.annotators",
    "mycelium.protocols", "mycelium.protocols.mushroom", "mycelium.protocols.psiloqa",
    "mycelium.protocols.fava",
    "mycelium.report",
    "mycelium.integrations", "mycelium.integrations.transformers",
    "mycelium.cli",
    "mycelium.legacy",
)
#: Kept for scripts that read the earlier name: every page of the layers below the faces.
LOWER_LAYERS = PAGES
OPTIONAL = {"mycelium.frames.polars": "polars", "mycelium.frames.polars_lazy": "polars",
            "mycelium.frames.polars_expr": "polars",
            "mycelium.frames.polars_batches": "polars", "mycelium.frames.spark": "pyspark"}


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "reference"
    sys.path.insert(0, str(ROOT))
    import pdoc
    import pdoc.render

    import mycelium

    for name in mycelium._LAZY:  # resolve the lazily loaded public names for pdoc
        getattr(mycelium, name)
    missing = sorted(m for m, extra in OPTIONAL.items() if importlib.util.find_spec(extra) is None)
    modules = [*PAGES] + [f"!{m}" for m in missing]
    pdoc.render.configure(docformat="numpy", show_source=False,
                          footer_text=f"mycelium {mycelium.__version__}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdoc.pdoc(*modules, output_directory=out)
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    print(f"wrote {len(pages)} pages to {out}" + (f" (left out: {', '.join(missing)})"
                                                  if missing else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
