"""Writing sweep results: CSV (full float precision), Parquet (written by
pyarrow, chunk by chunk: units in the file's key-value metadata, the Arrow
schema's metadata and each column's field metadata: arrow_schema.py), JSON, and text/Markdown tables. Large grids are streamed
chunk by chunk, so memory stays bounded whatever the number of rows."""
from __future__ import annotations

import itertools
import json
import math
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import polars as pl

from supersheet.engine.base import scratch
from supersheet.engine.base.targets import OutputError, check_target, commit, temp_for, write_error
from supersheet.engine.expect.assume import OUTSIDE_HEADER
from supersheet.engine.present.headers import ERROR_UNIT, is_error_header, split_header
from supersheet.engine.scenarios.arrow_schema import schema_with_units, units_in
from supersheet.units import format_number

SWEEP_SCHEMA = "supersheet-sweep/1"   # the JSON schema of `sweep --format json` (supersheet/schemas/)


def write_csv(chunks: Iterator[pl.DataFrame], path: Path, force: bool = False) -> int:
    """Stream chunks into a CSV file. Its columns are the sweep's, decided by the sheet and the
    command (an error column for every cell that can hold one), never by the rows: every run
    of one sweep has one header, and numbers are written as floats (`4.0`), as `run` writes them."""
    rows = 0
    with _replacing(path, force) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            first = True
            for chunk in chunks:
                chunk.write_csv(handle, include_header=first)
                first = False
                rows += chunk.height
    return rows


def write_parquet(chunks: Iterator[pl.DataFrame], schema: pl.Schema | None, path: Path,
                  metadata: dict[str, str], force: bool = False) -> int:
    """Stream chunks into one Parquet file, one row group per chunk (bounded memory), in
    `schema` (None: the first chunk's), the units in the metadata (arrow_schema.py). Every part
    of a dataset and every run of one sweep has that schema, whatever its rows hold."""
    import pyarrow.parquet as pq   # deferred: numpy, pyarrow
    chunks = iter(chunks)
    first = next(chunks, None)
    if schema is None:
        schema = first.schema if first is not None else pl.Schema()
    arrow = schema_with_units(pl.DataFrame(schema=schema).to_arrow().schema, units_in(metadata), metadata)
    rows = 0
    with _replacing(path, force) as tmp:
        # zstd as Polars writes it; no dictionary encoding, which pyarrow tries on every column by
        # default and which a sweep's float columns never pay back (2.4x Polars' CPU with it, 0.84x
        # without: bench/bench_parquet_units.py)
        with pq.ParquetWriter(tmp, arrow, compression="zstd", use_dictionary=False) as writer:
            for chunk in itertools.chain([first] if first is not None else [], chunks):
                rows += chunk.height
                writer.write_table(_in_schema(chunk.select(schema.names()).to_arrow(), arrow))
    return rows


def _in_schema(table, arrow):
    """`table` with `arrow`'s fields (their units): the same columns, relabelled, where the types
    are the same (a cast goes through pyarrow.compute, ~30 ms of CPU to import); cast otherwise."""
    import pyarrow as pa   # deferred: numpy, pyarrow
    if table.schema.equals(arrow, check_metadata=False):
        return pa.Table.from_arrays(table.columns, schema=arrow)
    return table.cast(arrow)


def frame_cells(frame: pl.DataFrame, digits: int = 4) -> list[list[dict]]:
    """Each row as a list of cells in the schema `run --format json` uses:
    {"name", "value", "unit", "display"} (+ "error" where the cell holds one)."""
    columns = [(split_header(h), h) for h in frame.columns]
    rows: list[list[dict]] = []
    for values in frame.iter_rows():
        cells: dict[str, dict] = {}
        errors: dict[str, str] = {}
        for ((name, unit), header), value in zip(columns, values):
            if header == OUTSIDE_HEADER:   # names, not a quantity in a unit
                cells[name] = {"name": name, "value": value, "unit": None, "display": value or ""}
                continue
            if unit == ERROR_UNIT:
                if value is not None:
                    errors[name] = value
                continue
            cells[name] = {"name": name, "value": json_number(value), "unit": unit,
                           "display": _cell_text(value, digits) + (f" {unit}" if unit and value is not None else "")}
        for name, code in errors.items():
            if name in cells:
                cells[name]["display"] = code
                cells[name]["error"] = code
        rows.append(list(cells.values()))
    return rows


def json_number(value: object) -> object:
    """A value as JSON can hold it: an infinity as "inf"/"-inf", NaN as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def render_table(frame: pl.DataFrame, fmt: str, digits: int = 4) -> str:
    """The rows as text: `json` (every column: the sheet's schema, numbers as floats), `markdown`
    and `text` for people (an error column only where some row holds an error)."""
    if fmt == "json":
        return json.dumps({"schema": SWEEP_SCHEMA, "columns": frame.columns, "rows": frame_cells(frame, digits)},
                          indent=2, ensure_ascii=False)
    from supersheet.engine.scenarios.sweep import drop_clean_error_columns   # deferred: numpy
    frame = drop_clean_error_columns(frame)
    headers = frame.columns
    rows = [[_cell_text(v, digits) for v in row] for row in frame.iter_rows()]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def _cell_text(value: object, digits: int) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_number(value, digits)
    return str(value)


@contextmanager
def _replacing(path: Path, force: bool = False) -> Iterator[str]:
    """A temporary file beside `path` to write the output into: renamed over `path` when the
    block ends (the replaced file's mode, owner and extended attributes kept), removed when
    it raises, when a signal stops the process or, if a second Ctrl+C cut that short, at its
    exit (scratch.py). OutputError for a target that is not a regular file, a read-only one
    unless `force`, and for a write that fails (a full disk, also as Arrow or Polars say it)."""
    target = check_target(path, force)
    tmp = temp_for(target)
    try:
        try:
            yield tmp
            commit(tmp, target)
        except OSError as e:
            raise write_error(path, e) from None
        except pl.exceptions.PolarsError as e:
            if "os error" not in str(e) and "IO error" not in str(e):
                raise
            raise write_error(path, e) from None
    finally:
        scratch.discard(tmp)


def check_writable(path: Path, force: bool = False) -> None:
    """Refuse before any work is done, with what is wrong, rather than fail on the temp file."""
    check_target(path, force)


def write_text(path: Path, text: str, force: bool = False) -> None:
    with _replacing(path, force) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def write_bytes(path: Path, data: bytes, force: bool = False) -> None:
    """A chart or a report (SVG, PNG, HTML), written as every output is: whole or not at all."""
    with _replacing(path, force) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(data)
