"""Benchmarks by name: the registry, the local cache, and published reference results.

- `benchmarks` / `get_benchmark`: every benchmark mycelium reads (Mu-SHROOM, RAGTruth,
  RAGTruth++, PsiloQA, FAVA, LettuceDetect's sets, SHROOM-Visions, FaithBench), each with
  its version, splits, languages, files (path, URL, SHA-256), licence, citation and loader.
- `add` / `verify` / `resolve` / `fetch` / `data_dir`: the offline-first cache
  (``$MYCELIUM_DATA_DIR``); loaders resolve a data name such as ``"mu_shroom:test:en"``
  through it.
- `leaderboard`: published leaderboard rows with their sources, which ``mycelium rank``
  ranks a submission against.

The command line is ``mycelium data list|info|verify|path|add|fetch``.
"""

from .cache import (DATA_DIR_ENV, DataFetchError, DataHashError, DataNotFoundError, Problem,
                    Registration, add, data_dir, fetch, file_sha256, registered, resolve, root,
                    verify)
from .references import ReferenceRow, leaderboard, round_printed
from .registry import Benchmark, DataFile, benchmarks, get_benchmark, is_data_name, parse_name

__all__ = ["benchmarks", "get_benchmark", "parse_name", "is_data_name", "Benchmark",
           "DataFile", "data_dir", "DATA_DIR_ENV", "add", "verify", "resolve", "fetch",
           "registered", "root", "file_sha256", "Registration", "Problem", "DataNotFoundError",
           "DataHashError", "DataFetchError", "leaderboard", "ReferenceRow", "round_printed"]
