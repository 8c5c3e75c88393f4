"""Data folders named by environment variables (the data is never copied into the
project): the folder, or None and the reason a test that needs it skips."""

from __future__ import annotations

import os
from pathlib import Path

#: The 187 real Mu-SHROOM system submissions (``mushroom_systems/``: SOURCE.md,
#: MANIFEST.csv, OFFICIAL.csv); CI points it at the shared copy.
SYSTEMS_ENV = "MYCELIUM_MUSHROOM_SYSTEMS_DIR"
#: FaithBench's release and companion exports (``faithbench/``) and SHROOM-Visions' files
#: (``shroom_visions/``): the copies the benchmark registry's hashes were taken from, and
#: the files FaithBench's detector table is reproduced from.
FAITHBENCH_ENV = "MYCELIUM_FAITHBENCH_DIR"
SHROOM_VISIONS_ENV = "MYCELIUM_SHROOM_VISIONS_DIR"


def data_folder(name: str) -> tuple[Path | None, str | None]:
    """``(folder, None)`` when the variable ``name`` names a folder, else ``(None, why)``."""
    value = os.environ.get(name, "")
    if not value or not os.path.isdir(value):
        return None, f"{name} is not set to a folder: the tests on its real files are skipped"
    return Path(value), None
