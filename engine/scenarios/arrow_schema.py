"""The Arrow schema of a sweep's Parquet file, with its units: in the schema's
metadata and in each column's field metadata (`unit`), where
`pyarrow.parquet.read_table(f).schema` and every Arrow reader find them
(Parquet's key-value metadata, which Polars' `read_parquet_metadata` reads,
is written too, by the caller).

Polars writes the file and takes the schema through the Arrow C data
interface (`sink_parquet(arrow_schema=...)`), but its own schema carries no
metadata. So the schema Polars exports is taken as it is, and the metadata
pointers of the root and of each column are set to buffers this object owns.
That is the interface's documented layout (a stable C ABI); the producer's
release callback frees only what the producer allocated, and Polars copies
the metadata when it imports the schema, before `sink_parquet` returns. No
pyarrow needed to write.
"""
from __future__ import annotations

import ctypes
import json
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

UNITS_KEY = "supersheet.units"


class _CSchema(ctypes.Structure):
    """struct ArrowSchema of the Arrow C data interface."""


_CSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(_CSchema))), ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
]

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def encode_metadata(metadata: dict[str, str]) -> bytes:
    """The interface's metadata encoding: int32 count, then int32-length-prefixed key and value bytes."""
    out = [struct.pack("<i", len(metadata))]
    for key, value in metadata.items():
        for text in (key.encode(), value.encode()):
            out.append(struct.pack("<i", len(text)) + text)
    return b"".join(out)


class SchemaWithUnits:
    """An Arrow schema exportable (`__arrow_c_schema__`): Polars' `schema` plus
    `metadata` on the schema and `{"unit": …}` on each column that has one
    (read from `metadata["supersheet.units"]`, column header -> unit)."""

    def __init__(self, schema: pl.Schema, metadata: dict[str, str]) -> None:
        self.schema = schema
        self.metadata = metadata
        units = json.loads(metadata.get(UNITS_KEY, "{}"))
        self.fields = {name: {"unit": unit} for name, unit in units.items() if name in schema}
        self._buffers: list[ctypes.Array] = []   # alive as long as this object: Polars reads them on import

    def __arrow_c_schema__(self) -> object:
        capsule = self.schema.__arrow_c_schema__()   # type: ignore[attr-defined]
        root = _CSchema.from_address(_capsule_pointer(capsule, b"arrow_schema"))
        self._attach(root, self.metadata)
        for i in range(root.n_children):
            child = root.children[i].contents
            self._attach(child, self.fields.get((child.name or b"").decode()))
        return capsule

    def _attach(self, schema: _CSchema, metadata: dict[str, str] | None) -> None:
        if not metadata:
            return
        encoded = encode_metadata(metadata)
        buffer = ctypes.create_string_buffer(encoded, len(encoded))
        self._buffers.append(buffer)
        schema.metadata = ctypes.addressof(buffer)
