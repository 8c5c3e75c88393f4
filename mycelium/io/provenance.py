"""One call for a loader to record where its frame came from: `attach_dataset`.

A loader ends with ``return attach_dataset(frame, "<benchmark>", paths)``: the files'
base names and SHA-256 go into ``frame.attrs["mycelium_dataset"]``
(`mycelium.core.provenance.Dataset`), and every result scored from that frame, or from
its columns, carries ``dataset:<benchmark>@sha256:<12 hex>|dataset_files:...`` in its
signature, so a number can be traced to the exact release (RAGTruth relabelled its data
in February 2024, for one).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable, TypeVar

from ..core.provenance import DATASET_ATTR, Dataset, dataset_of
from ..datasets import is_data_name, resolve
from ..datasets.cache import file_sha256  # the one home of file hashing (the registry's)

__all__ = ["attach_dataset", "dataset_provenance", "dataset_of", "file_sha256", "Dataset",
           "registered_files"]

_F = TypeVar("_F")


def dataset_provenance(name: str, paths: Iterable[str | os.PathLike[str] | None], *,
                       float_parse: str | None = None) -> Dataset:
    """The `Dataset` of the files at ``paths`` (None entries are skipped).

    One file: its own SHA-256. Several: the SHA-256 of their sorted hex digests, each
    followed by a newline, so the value depends on the bytes only, not on the names or
    the order the files were read in. ``float_parse`` records how the loader read the
    files' numbers (`mycelium.io.float_parse`), when that matters for the benchmark.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "response.jsonl")
    ...     _ = path.write_bytes(b"{}\\n")
    ...     d = dataset_provenance("ragtruth", [path])
    >>> d.tag, d.files
    ('ragtruth@sha256:ca3d163bab05', ('response.jsonl',))
    """
    files = [Path(p) for p in paths if p is not None]
    if not files:
        raise ValueError(f"Expected at least one file, got none, at dataset_provenance("
                         f"{name!r}, ...); fix by passing the paths the loader read.")
    digests = [file_sha256(p) for p in files]
    if len(digests) == 1:
        total = digests[0]
    else:
        total = hashlib.sha256("".join(d + "\n" for d in sorted(digests)).encode()
                               ).hexdigest()
    return Dataset(name, tuple(p.name for p in files), total, tuple(digests), float_parse)


def attach_dataset(frame: _F, name: str,
                   paths: Iterable[str | os.PathLike[str] | None], *,
                   float_parse: str | None = None) -> _F:
    """Record the provenance of ``frame`` (read from ``paths``) and return it.

    Parameters
    ----------
    frame : pandas.DataFrame
        The loader's result; ``frame.attrs["mycelium_dataset"]`` is set (a JSON dict:
        ``name``, ``sha256``, ``tag``, ``files`` with each file's ``name`` and
        ``sha256``), so it survives `mycelium.write_parquet` and copies of the frame.
    name : str
        The benchmark (no ``|`` or ``@``).
    paths : iterable of paths
        Every file the loader read (None entries skipped).
    float_parse : {"exact", "pandas-fast"}, optional
        How the loader read the files' numbers; results scored from the frame then carry
        ``float_parse:<rule>`` in their signature.

    Returns
    -------
    The same frame.

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd, mycelium
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "gold.jsonl")
    ...     _ = path.write_bytes(b"{}\\n")
    ...     df = attach_dataset(pd.DataFrame({"ref": [[[0, 3]]], "pred": [[[0, 2]]]}),
    ...                         "toy", [path])
    >>> df.attrs["mycelium_dataset"]["tag"]
    'toy@sha256:ca3d163bab05'
    >>> sig = df.mycelium.evaluate("ref", "pred", metrics="iou").attrs["mycelium_signature"]
    >>> sig.split("|")[-2:]
    ['dataset:toy@sha256:ca3d163bab05', 'dataset_files:gold.jsonl']
    >>> mycelium.parse_signature(sig)["dataset"]["name"]
    'toy'
    """
    dataset = dataset_provenance(name, paths, float_parse=float_parse)
    frame.attrs[DATASET_ATTR] = dataset.to_attrs()  # type: ignore[attr-defined]
    return frame


def registered_files(value: object, benchmark: str, loader: str) -> list[Path] | None:
    """The registered files of ``value`` when it is a data name of ``benchmark``
    (``"NAME[:SPLIT[:LANG]]"``, `mycelium.datasets`), else None (a path: read as given).

    Raises
    ------
    ValueError
        ``value`` names another registered benchmark.
    mycelium.datasets.DataNotFoundError
        No copy is registered; the message says how to add one.

    Examples
    --------
    >>> registered_files("data/response.jsonl", "ragtruth", "read_ragtruth") is None
    True
    """
    if not is_data_name(value):
        return None
    name = str(value)
    if name.split(":", 1)[0] != benchmark:
        raise ValueError(f"Expected a data name of {benchmark} ('{benchmark}[:SPLIT[:LANG]]'), "
                         f"got {name!r}, at {loader}; fix by using that benchmark's loader "
                         "(`mycelium data info NAME` names it).")
    return resolve(name)
