"""The Arrow schema of a sweep's Parquet file, with its units: in the schema's
metadata (`supersheet.units`, JSON: column -> unit, which Parquet keeps as
key-value metadata, where Polars' `read_parquet_metadata` finds it) and in each
column's field metadata (`unit`), where `pyarrow.parquet.read_schema(f)`,
DuckDB's `parquet_schema` and every Arrow reader find it.

Written through pyarrow's own API (pyarrow is a dependency for this): Polars'
schemas carry no field metadata, and setting it on the C structs Polars
exports would depend on how one Polars release lays them out.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

UNITS_KEY = "supersheet.units"


def schema_with_units(schema: pa.Schema, units: dict[str, str], metadata: dict[str, str] | None = None) -> pa.Schema:
    """`schema` with `{"unit": …}` on each field that has a unit, and `metadata` (default: the
    units under `supersheet.units`) on the schema."""
    import pyarrow as pa   # deferred: numpy, pyarrow
    fields = [field.with_metadata({"unit": units[field.name]}) if field.name in units else field for field in schema]
    return pa.schema(fields, metadata=metadata if metadata is not None else
                     {UNITS_KEY: json.dumps(units, ensure_ascii=False)})


def with_units(table: pa.Table, units: dict[str, str], metadata: dict[str, str] | None = None) -> pa.Table:
    """`table` with its units in the field and schema metadata (`schema_with_units`)."""
    return table.cast(schema_with_units(table.schema, units, metadata))


def units_in(metadata: dict[str, str]) -> dict[str, str]:
    """The column units of a sweep's file metadata (`units_metadata`)."""
    return json.loads(metadata.get(UNITS_KEY, "{}"))
