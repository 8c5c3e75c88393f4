"""A figure's fingerprint: which numbers a PNG was drawn from, stored in the PNG itself.

`fingerprint` hashes the input tables of a figure (each written as CSV with floats to 9
significant digits, so machine-level noise in the last bits does not change it);
`add_text` stores it in a PNG ``tEXt`` chunk and `read_text` reads it back (plain PNG
chunks, no image library needed). ``--check`` recomputes the fingerprint from the
reproduced tables and compares it with the committed PNG's.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from pathlib import Path

import pandas as pd

KEY = "mycelium-validation-inputs"
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def fingerprint(tables: dict[str, pd.DataFrame], names: list[str]) -> str:
    """``sha256:<hex>`` of the named tables, in order."""
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode("utf-8") + b"\n")
        h.update(tables[name].to_csv(index=False, lineterminator="\n",
                                     float_format="%.9g").encode("utf-8"))
    return "sha256:" + h.hexdigest()


def _chunks(data: bytes):
    if not data.startswith(_SIGNATURE):
        raise ValueError("Expected a PNG file, got other bytes; fix by redrawing the figure.")
    pos = len(_SIGNATURE)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        yield kind, data[pos + 8:pos + 8 + length], pos
        pos += 12 + length


def add_text(path: Path, key: str, value: str) -> None:
    """Insert a ``tEXt`` chunk ``key``/``value`` before the PNG's ``IEND``."""
    data = path.read_bytes()
    end = next(pos for kind, _, pos in _chunks(data) if kind == b"IEND")
    body = key.encode("latin-1") + b"\x00" + value.encode("latin-1")
    chunk = (struct.pack(">I", len(body)) + b"tEXt" + body
             + struct.pack(">I", zlib.crc32(b"tEXt" + body) & 0xFFFFFFFF))
    path.write_bytes(data[:end] + chunk + data[end:])


def read_text(path: Path) -> dict[str, str]:
    """Every ``tEXt`` chunk of a PNG as ``{key: value}``."""
    out = {}
    for kind, body, _ in _chunks(path.read_bytes()):
        if kind == b"tEXt":
            key, _, value = body.partition(b"\x00")
            out[key.decode("latin-1")] = value.decode("latin-1")
    return out
