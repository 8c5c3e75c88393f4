"""The public surface: the names at the top of the package, the subpackages that hold the
rest, and every earlier top-level name still leading to the same object."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import mycelium

#: Every name ``mycelium.__all__`` listed before the rooms of scores and protocols, and
#: where it lives now.
EARLIER_NAMES = {
    "sweep": "mycelium.scores", "tune_threshold": "mycelium.scores",
    "token_logit_scores": "mycelium.scores", "spans_at": "mycelium.scores",
    "plot_sweep": "mycelium.report", "score_psiloqa": "mycelium.protocols",
    "score_fava": "mycelium.protocols", "metric_agreement": "mycelium.stats",
    "align_tokens": "mycelium.adapters",
    "convert_offsets": "mycelium.adapters", "anchor_phrases": "mycelium.adapters",
    "parse_tagged": "mycelium.adapters", "attach_dataset": "mycelium.io",
    "dataset_of": "mycelium.io", "Dataset": "mycelium.io",
    "annotator_table": "mycelium.annotators", "pairwise_agreement": "mycelium.annotators",
    "leave_one_out": "mycelium.annotators", "majority_reference": "mycelium.annotators",
    "soft_reference": "mycelium.annotators",
}


def test_all_has_no_duplicates_and_resolves():
    assert len(mycelium.__all__) == len(set(mycelium.__all__))
    assert len(mycelium.__all__) <= 32
    for name in mycelium.__all__:
        assert getattr(mycelium, name) is not None, name


def test_public_names_complete_in_notebooks():
    names = dir(mycelium)
    assert set(mycelium.__all__) <= set(names)
    assert {"read_parquet", "read_mushroom", "write_parquet", "read_ragtruth"} <= set(names)
    assert {"scores", "protocols", "adapters"} <= set(names)


@pytest.mark.parametrize("name, home", sorted(EARLIER_NAMES.items()))
def test_earlier_top_level_names_are_their_subpackages_objects(name, home):
    assert getattr(mycelium, name) is getattr(importlib.import_module(home), name)


@pytest.mark.parametrize("package", ["scores", "protocols", "adapters", "io", "report",
                                     "annotators", "stats", "views", "core", "metrics",
                                     "frames", "integrations", "datasets"])
def test_every_subpackage_says_what_lives_there(package):
    module = getattr(mycelium, package)
    assert module is importlib.import_module(f"mycelium.{package}")
    assert module.__doc__ and len(module.__doc__.split()) >= 15, package
    for name in getattr(module, "__all__", []):
        assert getattr(module, name) is not None, f"{package}.{name}"




def test_importing_mycelium_loads_no_optional_face():
    # polars, pyspark and matplotlib are extras: `import mycelium` must not pull them in.
    code = ("import sys\n"
            "import mycelium\n"
            "heavy = [m for m in ('polars', 'pyspark', 'matplotlib') if m in sys.modules]\n"
            "assert heavy == [], heavy\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
