"""The public surface: the names at the top of the package, the subpackages that hold the
rest, and every earlier import path (modules and names) still leading to the same object."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import mycelium
from mycelium._aliases import ALIASES

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
                                     "frames", "integrations"])
def test_every_subpackage_says_what_lives_there(package):
    module = getattr(mycelium, package)
    assert module is importlib.import_module(f"mycelium.{package}")
    assert module.__doc__ and len(module.__doc__.split()) >= 15, package
    for name in getattr(module, "__all__", []):
        assert getattr(module, name) is not None, f"{package}.{name}"


def test_old_module_paths_are_the_moved_modules():
    # Earlier versions had modules at the top level (0.1: every module; later: scoring,
    # thresholds, mushroom, ...): scripts and documented paths that name one still get it,
    # the same object as its new home, and importing mycelium loads none of the heavy
    # optional faces.
    code = (
        "import importlib, sys\n"
        "import mycelium\n"
        "from mycelium._aliases import ALIASES\n"
        "heavy = [m for m in ('polars', 'pyspark', 'matplotlib') if m in sys.modules]\n"
        "assert heavy == [], heavy\n"
        "for old, new in ALIASES.items():\n"
        "    if old in ('mycelium.polars_ext', 'mycelium.polars_lazy', 'mycelium.spark'):\n"
        "        continue\n"
        "    assert importlib.import_module(old) is importlib.import_module(new), old\n"
        "    assert importlib.import_module(new).__spec__.name == new, new\n"
        "from mycelium.bootstrap import resampled_values\n"
        "from mycelium.stats.bootstrap import resampled_values as moved\n"
        "assert resampled_values is moved\n"
        "from mycelium.scoring import spans_at, Tuned, split_metrics, check_threshold\n"
        "from mycelium.scores.spans import spans_at as s2\n"
        "from mycelium.scores.plan import Tuned as T2\n"
        "assert spans_at is s2 and Tuned is T2\n"
        "from mycelium.thresholds import sweep, tune_threshold\n"
        "from mycelium.mushroom import score_files, MushroomInputError, derive_hard_labels\n"
        "import mycelium._mushroom_fast\n"
        "from mycelium.psiloqa import score_psiloqa\n"
        "from mycelium.fava import score_fava\n"
        "from mycelium.baselines import token_logit_scores\n"
        "from mycelium.plot import plot_sweep\n"
        "from mycelium.score_report import score_report\n"
        "from mycelium.accumulator_parts import (_arrow, _concat, _concat_runs, _ipc,\n"
        "    _json_default, _numpy, _plan_key, _plan_of, _said)\n"
        "import mycelium.spark\n"
        "assert mycelium.spark.evaluate is mycelium.frames.spark.evaluate\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr


def test_aliases_point_at_real_modules():
    for old, new in ALIASES.items():
        assert old.startswith("mycelium.") and new.startswith("mycelium."), old
        assert importlib.util.find_spec(new) is not None, new
