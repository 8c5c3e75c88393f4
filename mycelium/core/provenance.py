"""Dataset provenance: which release of which files a result was computed from.

A benchmark loader (`mycelium.io.provenance.attach_dataset`) records a `Dataset` in its
frame's ``attrs["mycelium_dataset"]``; the faces that score a frame or its columns
(`mycelium.evaluate` of a pandas Series, ``df.mycelium.evaluate`` / ``score``) append it
to the result's signature as ``dataset:<name>@sha256:<12 hex>`` and
``dataset_files:<file>,<file>...``, and `mycelium.parse_signature` reads both back. This
module holds the value and reads its signature fields back (`mycelium.core.signature`
writes them); hashing files lives in `mycelium.io`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import unquote

__all__ = ["Dataset", "DATASET_ATTR", "dataset_of", "parse_dataset_fields"]

#: The ``DataFrame.attrs`` key of a loaded frame's provenance (a JSON-serialisable dict,
#: so it survives `mycelium.write_parquet` / `mycelium.read_parquet`).
DATASET_ATTR = "mycelium_dataset"
#: Characters of the digest shown in signatures (48 bits: enough to tell releases apart).
SHORT = 12
_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Dataset:
    """The files a frame was read from and their content hash.

    Parameters
    ----------
    name : str
        The benchmark, e.g. ``"ragtruth"`` (no ``|`` or ``@``).
    files : tuple of str
        The files' base names, in reading order.
    sha256 : str
        64 hex digits: the SHA-256 of the single file's bytes (what ``sha256sum``
        prints), or for several files the SHA-256 of their sorted per-file hex digests,
        each followed by a newline (independent of file names and reading order).
    file_sha256 : tuple of str
        Each file's own SHA-256, aligned with ``files``.
    float_parse : str or None
        How the loader turned the files' JSON numbers into floats (``"exact"`` or
        ``"pandas-fast"``, `mycelium.io.float_parse`), when it matters for the benchmark;
        written into the signature as ``float_parse:<rule>`` in place of the profile's.

    Examples
    --------
    >>> d = Dataset("ragtruth", ("response.jsonl",), "ab" * 32, ("ab" * 32,))
    >>> d.tag
    'ragtruth@sha256:abababababab'
    """

    name: str
    files: tuple[str, ...]
    sha256: str
    file_sha256: tuple[str, ...] = ()
    float_parse: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or set(self.name) & set("|@"):
            raise ValueError(f"Expected a dataset name without '|' or '@', got "
                             f"{self.name!r}, at Dataset(name=...); fix by naming the "
                             "benchmark, e.g. 'ragtruth'.")
        if not isinstance(self.sha256, str) or not _HEX.fullmatch(self.sha256):
            raise ValueError(f"Expected 64 lower-case hex digits, got {self.sha256!r}, at "
                             "Dataset(sha256=...); fix by passing hashlib's hexdigest().")
        object.__setattr__(self, "files", tuple(self.files))
        object.__setattr__(self, "file_sha256", tuple(self.file_sha256))

    @property
    def tag(self) -> str:
        """``name@sha256:<first 12 hex digits>``, as written in signatures."""
        return f"{self.name}@sha256:{self.sha256[:SHORT]}"

    def to_attrs(self) -> dict[str, Any]:
        """The JSON-serialisable form stored in ``attrs["mycelium_dataset"]``."""
        out = {"name": self.name, "sha256": self.sha256, "tag": self.tag,
               "files": [{"name": f, "sha256": h} for f, h in
                         zip(self.files, self.file_sha256 or [None] * len(self.files))]}
        if self.float_parse is not None:
            out["float_parse"] = self.float_parse
        return out

    @classmethod
    def from_attrs(cls, value: Mapping[str, Any]) -> "Dataset":
        files = list(value.get("files") or [])
        float_parse = value.get("float_parse")
        return cls(str(value["name"]), tuple(str(f["name"]) for f in files),
                   str(value["sha256"]),
                   tuple(str(f["sha256"]) for f in files if f.get("sha256")),
                   None if float_parse is None else str(float_parse))


def dataset_of(*objects: Any) -> Dataset | None:
    """The provenance recorded in the first of ``objects`` (frames or Series) having one.

    Objects without ``attrs`` (lists, Arrow arrays, Polars frames) have none.
    """
    for obj in objects:
        attrs = getattr(obj, "attrs", None)
        if isinstance(attrs, Mapping) and isinstance(attrs.get(DATASET_ATTR), Mapping):
            try:
                return Dataset.from_attrs(attrs[DATASET_ATTR])
            except (KeyError, TypeError, ValueError):
                return None  # not written by mycelium: no provenance rather than a guess
    return None


def parse_dataset_fields(key: str, value: str, out: dict[str, Any]) -> bool:
    """Read a ``dataset`` or ``dataset_files`` field into ``out["dataset"]``; False for
    any other key."""
    if key == "dataset":
        name, sep, digest = value.rpartition("@sha256:")
        if not sep:
            raise ValueError(f"Expected dataset:<name>@sha256:<hex>, got {value!r}, at the "
                             "signature's dataset field; fix by copying the signature whole.")
        out.setdefault("dataset", {}).update(name=name, sha256=digest)
        return True
    if key == "dataset_files":
        out.setdefault("dataset", {})["files"] = [unquote(f) for f in value.split(",")] \
            if value else []
        return True
    return False
