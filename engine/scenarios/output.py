"""Writing sweep results: CSV (full float precision), Parquet (written by
pyarrow, chunk by chunk: units in the file's key-value metadata, the Arrow
schema's metadata and each column's field metadata: arrow_schema.py), JSON, and text/Markdown tables. Large grids are streamed
chunk by chunk, so memory stays bounded whatever the number of rows."""
from __future__ import annotations

import atexit
import itertools
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Iterator

import polars as pl

from supersheet.engine.expect.assume import OUTSIDE_HEADER
from supersheet.engine.present.headers import ERROR_UNIT, is_error_header, split_header
from supersheet.engine.scenarios.arrow_schema import schema_with_units, units_in
from supersheet.units import format_number

SWEEP_SCHEMA = "supersheet-sweep/1"   # the JSON schema of `sweep --format json` (supersheet/schemas/)


def write_csv(chunks: Iterator[pl.DataFrame], path: Path) -> int:
    """Stream chunks into a CSV file. Its columns are the sweep's, decided by the sheet and the
    command (an error column for every cell that can hold one), never by the rows: every run
    of one sweep has one header, and numbers are written as floats (`4.0`), as `run` writes them."""
    rows, tmp = 0, None
    try:
        tmp = _temp_path(path)
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            first = True
            for chunk in chunks:
                chunk.write_csv(handle, include_header=first)
                first = False
                rows += chunk.height
        _commit(tmp, path)
    finally:
        if tmp is not None:
            _discard(tmp)
    return rows


def write_parquet(chunks: Iterator[pl.DataFrame], schema: pl.Schema | None, path: Path,
                  metadata: dict[str, str]) -> int:
    """Stream chunks into one Parquet file, one row group per chunk (bounded memory), in
    `schema` (None: the first chunk's), the units in the metadata (arrow_schema.py). Every part
    of a dataset and every run of one sweep has that schema, whatever its rows hold."""
    import pyarrow.parquet as pq
    chunks = iter(chunks)
    first = next(chunks, None)
    if schema is None:
        schema = first.schema if first is not None else pl.Schema()
    arrow = schema_with_units(pl.DataFrame(schema=schema).to_arrow().schema, units_in(metadata), metadata)
    rows, tmp = 0, None
    try:
        tmp = _temp_path(path)
        with pq.ParquetWriter(tmp, arrow) as writer:
            for chunk in itertools.chain([first] if first is not None else [], chunks):
                rows += chunk.height
                writer.write_table(chunk.select(schema.names()).to_arrow().cast(arrow))
        _commit(tmp, path)
    finally:
        if tmp is not None:
            _discard(tmp)
    return rows


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
            cells[name] = {"name": name, "value": _json_number(value), "unit": unit,
                           "display": _cell_text(value, digits) + (f" {unit}" if unit and value is not None else "")}
        for name, code in errors.items():
            if name in cells:
                cells[name]["display"] = code
                cells[name]["error"] = code
        rows.append(list(cells.values()))
    return rows


def _json_number(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def render_table(frame: pl.DataFrame, fmt: str, digits: int = 4) -> str:
    """The rows as text: `json` (every column: the sheet's schema, numbers as floats), `markdown`
    and `text` for people (an error column only where some row holds an error)."""
    if fmt == "json":
        return json.dumps({"schema": SWEEP_SCHEMA, "columns": frame.columns, "rows": frame_cells(frame, digits)},
                          indent=2, ensure_ascii=False)
    from supersheet.engine.scenarios.sweep import drop_clean_error_columns
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


class _atomic:
    """Write to a temp file beside the target, then rename: never a half-written output."""

    def __init__(self, path: Path, mode: str) -> None:
        self.path, self.mode = path, mode

    def __enter__(self):
        self.tmp = _temp_path(self.path)
        self.handle = open(self.tmp, self.mode, **({} if "b" in self.mode else {"encoding": "utf-8", "newline": ""}))
        return self.handle

    def __exit__(self, kind, value, traceback) -> None:
        self.handle.close()
        if kind is None:
            _commit(self.tmp, self.path)
        else:
            _discard(self.tmp)


class OutputError(Exception):
    """An output file that cannot be written (a missing folder, a directory in the way)."""


def check_writable(path: Path) -> None:
    """Refuse before any work is done, with what is wrong, rather than fail on the temp file."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory")
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputError(f"cannot write {path}: the folder {folder} is not writable")


def write_text(path: Path, text: str) -> None:
    with _atomic(path, "w") as handle:
        handle.write(text)


# Temp files not yet renamed into place nor removed. One Ctrl+C while Polars writes a chunk can
# raise KeyboardInterrupt twice (seen: the second inside the `finally` that removes the temp file,
# which then stayed): what a cleanup missed is removed when the process exits.
_PENDING: set[str] = set()


def _commit(tmp: str, path: Path) -> None:
    os.replace(tmp, path)
    _PENDING.discard(tmp)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    _PENDING.discard(tmp)


@atexit.register
def _discard_pending() -> None:
    for tmp in list(_PENDING):
        _discard(tmp)


def write_bytes(path: Path, data: bytes) -> None:
    """A chart or a report (SVG, PNG, HTML), written as every output is: whole or not at all."""
    with _atomic(path, "wb") as handle:
        handle.write(data)


def _temp_path(path: Path) -> str:
    """A temp file beside `path`, with the mode a plain open() would give (0666 less the umask):
    mkstemp's private 0600 would otherwise survive the rename."""
    check_writable(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    _PENDING.add(name)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    finally:
        os.close(fd)
    return name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
