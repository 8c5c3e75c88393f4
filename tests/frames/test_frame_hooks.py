"""``df.mycelium`` exists as soon as pandas is imported, whichever of pandas and mycelium
comes first, and ``import mycelium`` does not import pandas to register it; the same for
Polars' ``pl.DataFrame.mycelium`` and ``pl.LazyFrame.mycelium``
(`mycelium.frames.hooks`). Each order runs in a fresh interpreter, warnings as errors
(registering over the placeholder must not warn)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USE = ("df = pd.DataFrame({'ref': [[[0, 10]], [[4, 7]]], 'pred': [[[2, 8]], []]})\n"
       "print(df.mycelium.score('ref', 'pred', metrics='iou')['iou_score'].tolist())\n")


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[:-1]


@pytest.mark.parametrize("order", [
    "import mycelium\nimport pandas as pd\n",
    "import pandas as pd\nimport mycelium\n",
    "import mycelium\nimport pandas as pd\nimport mycelium.frames.pandas\n",
    "import mycelium.frames.pandas\nimport pandas as pd\n",
    "import mycelium\nmycelium.evaluate([[(0, 1)]], [[(0, 1)]])\nimport pandas as pd\n",
    # a library checking for pandas first must not use up the hook
    "import importlib.util, mycelium\nassert importlib.util.find_spec('pandas')\n"
    "assert importlib.util.find_spec('pandas')\nimport pandas as pd\n",
])
def test_the_accessor_is_there_whichever_comes_first(order):
    assert _run(order + USE) == ["[0.6, 0.0]"]


def test_import_mycelium_leaves_pandas_unloaded_and_registers_on_its_import():
    out = _run("import sys\n"
               "import mycelium\n"
               "print('pandas' in sys.modules)\n"
               "import pandas as pd\n"
               # registered, the accessor's module still unloaded until first use
               "print('mycelium' in dir(pd.DataFrame), 'mycelium.frames.pandas' in sys.modules)\n"
               + USE +
               "from mycelium.frames.pandas import MyceliumAccessor\n"
               "print(pd.DataFrame.mycelium is MyceliumAccessor)\n")
    assert out == ["False", "True False", "[0.6, 0.0]", "True"]


def test_the_class_attribute_is_the_accessor_class():
    out = _run("import mycelium\nimport pandas as pd\n"
               "from mycelium.frames.pandas import MyceliumAccessor\n"
               "print(pd.DataFrame.mycelium is MyceliumAccessor)\n")
    assert out == ["True"]


def test_a_dataframe_subclass_gets_the_accessor():
    out = _run("import mycelium\nimport pandas as pd\n"
               "class Mine(pd.DataFrame):\n    pass\n"
               "df = Mine({'ref': [[[0, 10]]], 'pred': [[[2, 8]]]})\n"
               "print(df.mycelium.score('ref', 'pred', metrics='iou')['iou_score'].tolist())\n")
    assert out == ["[0.6]"]


def test_pandas_imported_inside_mycelium_registers_without_a_cycle():
    # core.groups imports pandas at its top: the hook must not load the accessor's module
    # graph while that module is half initialized.
    out = _run("import mycelium\nimport mycelium.core.groups\nimport pandas as pd\n" + USE)
    assert out == ["[0.6, 0.0]"]


@pytest.mark.parametrize("first", ["pandas", "polars"])
def test_mycelium_evaluate_stays_the_function_when_a_frame_library_came_first(first):
    # With the library already imported, the hook registers the face while mycelium is
    # still loading, which imports the module mycelium.evaluate: the name must still be
    # the function (it was the module when Polars came first).
    pytest.importorskip(first, reason=f"{first} is not installed")
    out = _run(f"import {first}\nimport mycelium\n"
               "print(callable(mycelium.evaluate), mycelium.evaluate.__module__)\n"
               "print(mycelium.evaluate([[0, 10]], [[2, 8]], metrics='iou')['iou'])\n")
    assert out == ["True mycelium.evaluate", "{'score': 0.6}"]


POLARS_USE = ("df = pl.DataFrame({'ref': [[[0, 10]], [[4, 7]]], 'pred': [[[2, 8]], []]})\n"
              "print(df.mycelium.score('ref', 'pred', metrics='iou')['iou_score'].to_list())\n"
              "print(type(df.lazy().mycelium).__name__)\n")


@pytest.mark.parametrize("order", [
    "import mycelium\nimport polars as pl\n",
    "import polars as pl\nimport mycelium\n",
    "import mycelium\nmycelium.evaluate([[(0, 1)]], [[(0, 1)]])\nimport polars as pl\n",
    "import importlib.util, mycelium\nassert importlib.util.find_spec('polars')\n"
    "import polars as pl\n",
])
def test_the_polars_namespaces_are_there_whichever_comes_first(order):
    pytest.importorskip("polars", reason="polars is not installed")
    assert _run(order + POLARS_USE) == ["[0.6, 0.0]", "MyceliumLazyFrame"]


def test_import_mycelium_leaves_polars_unloaded_and_registers_on_its_import():
    pytest.importorskip("polars", reason="polars is not installed")
    out = _run("import sys\nimport mycelium\n"
               "print('polars' in sys.modules)\n"
               "import polars as pl\n"
               "print('mycelium.frames.polars' in sys.modules, hasattr(pl.DataFrame, 'mycelium'))\n")
    assert out == ["False", "True True"]
