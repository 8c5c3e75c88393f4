"""The local cache of benchmark copies: `data_dir`, `add`, `verify`, `resolve`, `fetch`.

Offline first: a benchmark becomes usable by name once a copy is registered with `add`
(``mycelium data add NAME PATH``), which checks every file against the registry's
SHA-256 before anything is written. Fetching (`fetch`) is a convenience on top of it.

Layout::

    <data_dir>/<name>/registered.json   what was registered: version, files, hashes, where
    <data_dir>/<name>/<path>            the files (a copy; absent with link=True)

The folder is `data_dir`: ``$MYCELIUM_DATA_DIR`` when set, else the platform's data
folder (``$XDG_DATA_HOME/mycelium`` or ``~/.local/share/mycelium`` on Linux,
``~/Library/Application Support/mycelium`` on macOS, ``%LOCALAPPDATA%\\mycelium`` on
Windows).

Copy or link: `add` copies by default, so that the registered copy cannot change or
vanish behind the cache's back (the benchmarks are a few MB each); ``link=True`` records
the files where they are instead (for large or shared read-only copies), and `verify`
then re-hashes them there. Either way nothing half-written is left: a registration is
assembled in a temporary folder inside `data_dir` and renamed into place only when every
file is in and checked, and a failed one removes its temporary folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import MyceliumError
from .registry import Benchmark, DataFile, get_benchmark, parse_name

__all__ = ["DATA_DIR_ENV", "data_dir", "file_sha256", "add", "verify", "resolve", "root",
           "registered", "fetch", "DataNotFoundError", "DataHashError", "DataFetchError",
           "Registration", "Problem"]

#: The environment variable naming the cache folder.
DATA_DIR_ENV = "MYCELIUM_DATA_DIR"
_MANIFEST = "registered.json"
_CHUNK = 1 << 20


class DataNotFoundError(MyceliumError, FileNotFoundError):
    """A benchmark (or one of its files) has no registered local copy."""


class DataHashError(MyceliumError, ValueError):
    """A file's bytes differ from the SHA-256 the registry gives it."""


class DataFetchError(MyceliumError, OSError):
    """A download failed (nothing was registered and nothing left in the cache)."""


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, as ``sha256sum`` prints it (read in 1 MiB chunks).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "x")
    ...     _ = path.write_bytes(b"{}\\n")
    ...     file_sha256(path)[:12]
    'ca3d163bab05'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def data_dir() -> Path:
    """The cache folder: ``$MYCELIUM_DATA_DIR``, else the platform's data folder.

    Examples
    --------
    >>> import os
    >>> os.environ["MYCELIUM_DATA_DIR"] = "/tmp/my-benchmarks"
    >>> str(data_dir())
    '/tmp/my-benchmarks'
    >>> del os.environ["MYCELIUM_DATA_DIR"]
    """
    value = os.environ.get(DATA_DIR_ENV)
    if value:
        return Path(value).expanduser()
    home = Path.home()
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "mycelium"


@dataclass(frozen=True)
class Registration:
    """What `add` registered: the benchmark, its folder, the files found and missing."""

    name: str
    folder: Path
    linked: bool
    files: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True)
class Problem:
    """One file `verify` found wrong: its path in the benchmark, where it is, and why."""

    path: str
    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path} ({self.location}): {self.reason}"


def _find(source: Path, f: DataFile) -> Path | None:
    """The copy of ``f`` under ``source``: at its registry path, or by its base name (a
    flat folder of downloaded files)."""
    for candidate in (source / f.path, source / Path(f.path).name):
        if candidate.is_file():
            return candidate
    return None


def _entry(name: str | Benchmark) -> Benchmark:
    return name if isinstance(name, Benchmark) else get_benchmark(name)


def add(name: str | Benchmark, source: str | os.PathLike[str], *, link: bool = False,
        folder: str | os.PathLike[str] | None = None) -> Registration:
    """Register a local copy of benchmark ``name`` after checking every file's hash.

    Parameters
    ----------
    name : str or Benchmark
        A registered benchmark (`mycelium.datasets.benchmarks`), or an entry.
    source : path
        A folder holding the benchmark's files at their registry paths (as the source
        repository lays them out) or side by side under their base names.
    link : bool, default False
        Record the files where they are instead of copying them into the cache.
    folder : path, optional
        The cache folder (default `data_dir`).

    Returns
    -------
    Registration
        The files registered and the registry's files not found (a partial copy, e.g.
        only the test split, is registered; its missing files raise when asked for).

    Raises
    ------
    DataHashError
        A file's SHA-256 differs from the registry's; the message names the file, both
        hashes, and nothing is registered.
    DataNotFoundError
        ``source`` holds none of the benchmark's files.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     src = pathlib.Path(tmp, "download")
    ...     src.mkdir()
    ...     _ = pathlib.Path(src, "response.jsonl").write_text("{}\\n")
    ...     reg = add("ragtruth", src, folder=pathlib.Path(tmp, "cache"))
    ...     reg.files, reg.missing
    (('response.jsonl',), ('source_info.jsonl',))
    """
    bench = _entry(name)
    root = Path(folder) if folder is not None else data_dir()
    src = Path(source)
    if not src.is_dir():
        raise DataNotFoundError(f"Expected a folder holding {bench.name}'s files, got "
                                f"{str(src)!r}, at data add; fix by passing the folder the "
                                "files are in.")
    found: dict[str, Path] = {}
    for f in bench.files:
        path = _find(src, f)
        if path is not None:
            _check(f, path)
            found[f.path] = path
    if not found:
        wanted = ", ".join(f.path for f in bench.files[:3])
        raise DataNotFoundError(f"Expected {bench.name}'s files (e.g. {wanted}) in "
                                f"{str(src)!r}, found none; fix by passing the folder of the "
                                f"benchmark's copy ({bench.info.get('source')}).")
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{bench.name}.", dir=root))
    try:
        files: dict[str, dict[str, str | None]] = {}
        for rel, path in found.items():
            if link:
                files[rel] = {"sha256": file_sha256(path), "location": str(path.resolve())}
                continue
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            # the bytes in the cache are what counts: hash the copy, not the source
            files[rel] = {"sha256": _check(bench_file(bench, rel), target), "location": None}
        manifest = {"name": bench.name, "version": bench.version, "linked": link,
                    "source": str(src.resolve()), "files": files}
        (staging / _MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n",
                                         encoding="utf-8")
        _swap(staging, root / bench.name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    missing = tuple(f.path for f in bench.files if f.path not in found)
    return Registration(bench.name, root / bench.name, link, tuple(found), missing)


def bench_file(bench: Benchmark, rel: str) -> DataFile:
    return next(f for f in bench.files if f.path == rel)


def _check(f: DataFile, path: Path) -> str:
    digest = file_sha256(path)
    if f.sha256 is not None and digest != f.sha256:
        raise DataHashError(f"Expected sha256 {f.sha256} for {f.path}, got {digest}, at "
                            f"{path}; fix by using the release the registry names (a "
                            "changed byte means another version or a damaged copy).")
    return digest


def _swap(staging: Path, final: Path) -> None:
    """Put the assembled folder in place of ``final`` (renames only: never half-written)."""
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old.", dir=final.parent))
        os.replace(final, old / final.name)
    try:
        os.replace(staging, final)
    except BaseException:
        if old is not None:  # put the previous registration back
            os.replace(old / final.name, final)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def registered(name: str, *, folder: str | os.PathLike[str] | None = None
               ) -> dict[str, Any] | None:
    """The registration of ``name`` (`add`'s manifest), or None."""
    path = (Path(folder) if folder is not None else data_dir()) / name / _MANIFEST
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _location(name: str, rel: str, entry: dict, folder: Path) -> Path:
    return Path(entry["location"]) if entry.get("location") else folder / name / rel


def _not_added(bench: Benchmark, folder: Path, what: str) -> DataNotFoundError:
    return DataNotFoundError(
        f"Expected a registered copy of {what} in {folder}, found none; fix by running "
        f"`mycelium data add {bench.name} PATH` with the folder of a copy "
        f"({bench.info.get('source')}), or `mycelium data fetch {bench.name}`, or point "
        f"{DATA_DIR_ENV} at the cache that holds it.")


def resolve(name: str, *, folder: str | os.PathLike[str] | None = None) -> list[Path]:
    """The local files of a data name ``NAME[:SPLIT[:LANG]]``, in registry order.

    Raises
    ------
    DataNotFoundError
        The benchmark, or a file the name selects, has no registered copy; the message
        says how to add it.
    KeyError
        The name selects no file of the benchmark (an unknown split or language).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     resolve("mu_shroom:test:en", folder=tmp)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mycelium.datasets.cache.DataNotFoundError: Expected a registered copy of ...
    """
    bench, split, lang = parse_name(name)
    root = Path(folder) if folder is not None else data_dir()
    chosen = bench.select(split, lang)
    manifest = registered(bench.name, folder=root)
    if manifest is None:
        raise _not_added(bench, root, name)
    paths = []
    for f in chosen:
        entry = manifest["files"].get(f.path)
        if entry is None:
            raise _not_added(bench, root, f"{name} (file {f.path})")
        paths.append(_location(bench.name, f.path, entry, root))
    return paths


def root(name: str, *, folder: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding benchmark ``name``'s registered files at their registry paths:
    its cache folder for a copy, the folder it was added from for a link.

    Raises
    ------
    DataNotFoundError
        No copy is registered; the message says how to add one.
    """
    bench = get_benchmark(name)
    base = Path(folder) if folder is not None else data_dir()
    manifest = registered(bench.name, folder=base)
    if manifest is None:
        raise _not_added(bench, base, bench.name)
    return Path(manifest["source"]) if manifest.get("linked") else base / bench.name


def verify(name: str, *, folder: str | os.PathLike[str] | None = None) -> list[Problem]:
    """Re-hash every registered file of ``name``; the files whose bytes changed.

    Each file is compared with the registry's SHA-256, or, where the registry has none,
    with the one recorded when it was added.

    Returns
    -------
    list of Problem
        Empty when every file is intact.

    Raises
    ------
    DataNotFoundError
        ``name`` has no registered copy.
    """
    bench = get_benchmark(name)
    root = Path(folder) if folder is not None else data_dir()
    manifest = registered(bench.name, folder=root)
    if manifest is None:
        raise _not_added(bench, root, bench.name)
    problems = []
    for rel, entry in manifest["files"].items():
        path = _location(bench.name, rel, entry, root)
        known = next((f.sha256 for f in bench.files if f.path == rel), None)
        expected = known or entry["sha256"]
        if not path.is_file():
            problems.append(Problem(rel, str(path), "missing"))
            continue
        digest = file_sha256(path)
        if digest != expected:
            problems.append(Problem(rel, str(path),
                                    f"sha256 {digest}, expected {expected}"))
    return problems


def fetch(name: str | Benchmark, *, folder: str | os.PathLike[str] | None = None
          ) -> Registration:
    """Download benchmark ``name``'s files from their URLs and register them (`add`).

    Needs the optional ``pooch`` package (``pip install 'mycelium-eval[fetch]'``), which
    downloads each file and checks its SHA-256. Files without a URL are left out (see the
    registration's ``missing``). Nothing is left in the cache when a download fails.

    Parameters
    ----------
    name : str or Benchmark
        A registered benchmark, or an entry (`mycelium.datasets.Benchmark`).
    folder : path, optional
        The cache folder (default `data_dir`).

    Raises
    ------
    DataFetchError
        A URL cannot be reached or answers with an error; the message names the file
        and the URL.
    ImportError
        pooch is not installed.
    """
    bench = _entry(name)
    try:
        import pooch
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("`mycelium data fetch` needs pooch: pip install "
                          "'mycelium-eval[fetch]' (or download the files and run "
                          "`mycelium data add`).") from exc
    root = Path(folder) if folder is not None else data_dir()
    root.mkdir(parents=True, exist_ok=True)
    downloads = Path(tempfile.mkdtemp(prefix=f".{bench.name}.download.", dir=root))
    try:
        for f in bench.files:
            if not f.url:
                continue
            target = downloads / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                pooch.retrieve(f.url, known_hash=f"sha256:{f.sha256}" if f.sha256 else None,
                               fname=target.name, path=target.parent, progressbar=False)
            except Exception as exc:  # network errors come from requests, hashes from pooch
                raise DataFetchError(
                    f"Expected to download {f.path} of {bench.name} from {f.url}, got "
                    f"{type(exc).__name__}: {exc}; nothing was registered. Fix by checking "
                    f"the network, or download the files yourself and run `mycelium data add "
                    f"{bench.name} PATH`.") from exc
        return add(bench, downloads, folder=root)
    finally:
        shutil.rmtree(downloads, ignore_errors=True)
