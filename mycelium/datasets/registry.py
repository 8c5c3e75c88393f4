"""The registry of benchmarks mycelium reads: `benchmarks`, `get_benchmark`, `parse_name`.

The entries live in ``registry.json`` beside this module (built from the local copies by
``validation/build_datasets.py``): per benchmark its name, version, splits, languages,
licence as its source states it, BibTeX citation, the loader that reads it, and its
files, each with the path inside a copy of the benchmark, the URL where one exists, and
the SHA-256 where a copy was at hand when the registry was built (else null:
``mycelium data add`` records the hashes of the copy it registers).

A *data name* selects files of one benchmark: ``NAME[:SPLIT[:LANG]]``, for instance
``"mu_shroom:test:en"`` (one file), ``"mu_shroom:test"`` (the 14 test files) or
``"faithbench"`` (every data file).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import closest_name

__all__ = ["DataFile", "Benchmark", "benchmarks", "get_benchmark", "parse_name",
           "is_data_name"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*(:[A-Za-z0-9_]+){0,2}$")


@dataclass(frozen=True)
class DataFile:
    """One file of a benchmark.

    Attributes
    ----------
    path : str
        Where the file sits inside a copy of the benchmark (``/``-separated).
    split, lang : str or None
        The split and language it holds (None: not a data file, e.g. a licence).
    url : str or None
        Where it can be downloaded (a commit-pinned URL where the source has one).
    sha256 : str or None
        The SHA-256 of its bytes; None when no copy was at hand to hash.
    bytes : int or None
        Its size.
    """

    path: str
    split: str | None
    lang: str | None
    url: str | None
    sha256: str | None
    bytes: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "split": self.split, "lang": self.lang, "url": self.url,
                "sha256": self.sha256, "bytes": self.bytes}


@dataclass(frozen=True)
class Benchmark:
    """A registry entry (see `benchmarks`); ``info`` holds every field of the entry."""

    name: str
    version: str
    files: tuple[DataFile, ...]
    info: dict

    @property
    def licence(self) -> str:
        return str(self.info.get("licence") or "")

    @property
    def citation(self) -> str | None:
        return self.info.get("citation")

    @property
    def loader(self) -> str | None:
        return self.info.get("loader")

    @property
    def splits(self) -> list[str]:
        return list(self.info.get("splits") or {})

    @property
    def languages(self) -> list[str]:
        return list(self.info.get("languages") or [])

    def select(self, split: str | None = None, lang: str | None = None) -> list[DataFile]:
        """The data files of ``split`` and ``lang`` (None: any); every file when both are
        None, licences included.

        Raises
        ------
        KeyError
            No file matches; the message lists the splits and languages there are.
        """
        if split is None and lang is None:
            return list(self.files)
        chosen = [f for f in self.files if f.split is not None
                  and (split is None or f.split == split) and (lang is None or f.lang == lang)]
        if not chosen:
            splits = sorted({f.split for f in self.files if f.split})
            langs = sorted({f.lang for f in self.files if f.lang
                            and (split is None or f.split == split)})
            raise KeyError(f"Expected a split in {splits} and a language in {langs}, got "
                           f"split={split!r} lang={lang!r}, at benchmark {self.name!r}; fix by "
                           f"naming one of them, e.g. '{self.name}:{splits[0]}"
                           f"{':' + langs[0] if langs else ''}'.")
        return chosen

    def to_dict(self) -> dict[str, Any]:
        """The entry as JSON: every field, files as dicts."""
        out = dict(self.info)
        out["files"] = [f.to_dict() for f in self.files]
        return out


@lru_cache(maxsize=1)
def _entries() -> dict[str, Benchmark]:
    text = resources.files(__package__).joinpath("registry.json").read_text(encoding="utf-8")
    out = {}
    for entry in json.loads(text)["benchmarks"]:
        files = tuple(DataFile(f["path"], f.get("split"), f.get("lang"), f.get("url"),
                               f.get("sha256"), f.get("bytes")) for f in entry["files"])
        info = {k: v for k, v in entry.items() if k != "files"}
        out[entry["name"]] = Benchmark(entry["name"], entry["version"], files, info)
    return out


def benchmarks() -> list[Benchmark]:
    """Every registered benchmark, in the registry's order.

    Examples
    --------
    >>> [b.name for b in benchmarks()]  # doctest: +NORMALIZE_WHITESPACE
    ['mu_shroom', 'ragtruth', 'ragtruth_pp', 'psiloqa', 'fava', 'lettucedetect',
     'shroom_visions', 'faithbench']
    >>> get_benchmark("mu_shroom").select("test", "en")[0].sha256[:12]
    '758df17a159b'
    """
    return list(_entries().values())


def get_benchmark(name: str) -> Benchmark:
    """The entry called ``name``.

    Raises
    ------
    KeyError
        No such benchmark; the message lists them and suggests the closest.
    """
    entries = _entries()
    if name in entries:
        return entries[name]
    close = closest_name(name, list(entries))
    hint = f"did you mean {close!r}? " if close else ""
    raise KeyError(f"Expected a registered benchmark ({', '.join(entries)}), got {name!r}; "
                   f"{hint}fix by running `mycelium data list`.")


def is_data_name(value: object) -> bool:
    """Whether ``value`` is a string of the form ``NAME[:SPLIT[:LANG]]`` whose NAME is
    registered (a loader then resolves it rather than opening it as a path).

    Examples
    --------
    >>> is_data_name("mu_shroom:test:en"), is_data_name("data/en.jsonl")
    (True, False)
    """
    return (isinstance(value, str) and _NAME.match(value) is not None
            and value.split(":", 1)[0] in _entries())


def parse_name(name: str) -> tuple[Benchmark, str | None, str | None]:
    """``"mu_shroom:test:en"`` -> (the mu_shroom entry, ``"test"``, ``"en"``).

    Examples
    --------
    >>> bench, split, lang = parse_name("mu_shroom:val")
    >>> bench.name, split, lang
    ('mu_shroom', 'val', None)
    """
    if not isinstance(name, str) or _NAME.match(name) is None:
        raise ValueError(f"Expected a data name NAME[:SPLIT[:LANG]], e.g. 'mu_shroom:test:en', "
                         f"got {name!r}; fix by running `mycelium data list` for the names.")
    parts = name.split(":")
    bench = get_benchmark(parts[0])
    split = parts[1] if len(parts) > 1 else None
    lang = parts[2].lower() if len(parts) > 2 else None
    return bench, split, lang
