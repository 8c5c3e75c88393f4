"""Columns of libraries that keep their data in Arrow but hand out Python sequences: a
Hugging Face ``datasets`` column (``ds["spans"]``) read through its dataset's Arrow table.

Every input conversion (`mycelium.core.inputs`, `mycelium.core.columns`,
`mycelium.core.token_input`) passes its argument through `arrow_source` first, so such a
column is converted as the Arrow array it is, never row by row in Python. ``datasets`` is
not imported: its column is recognised by its module and attributes.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["arrow_source"]


def _is_datasets_column(obj) -> bool:
    return type(obj).__module__.startswith("datasets") and hasattr(obj, "source") \
        and hasattr(obj, "column_name")


def arrow_source(obj):
    """``obj`` as a ``pyarrow.ChunkedArray`` when it is a ``datasets`` column, else ``obj``.

    The column is read from its dataset's Arrow table in the dataset's row order (a
    shuffled, selected or filtered dataset's indices are applied by Arrow's ``take``); a
    nested column (``ds["meta"]["spans"]``) is the struct field of its parent. A dataset
    with a custom formatting transform (``set_transform``) is left to its transform: its
    rows are what the transform makes of them, read as Python values.

    Examples
    --------
    >>> import pyarrow as pa
    >>> arrow_source([[0, 3]])
    [[0, 3]]
    """
    if not _is_datasets_column(obj):
        return obj
    source = obj.source
    if _is_datasets_column(source):
        parent = arrow_source(source)
        if isinstance(parent, pa.ChunkedArray) and pa.types.is_struct(parent.type):
            return pc.struct_field(parent, obj.column_name)
        return obj
    if getattr(source, "_format_type", None) == "custom" or not hasattr(source, "with_format"):
        return obj
    column = source.with_format("arrow")[obj.column_name]
    return column if isinstance(column, (pa.ChunkedArray, pa.Array)) else obj
