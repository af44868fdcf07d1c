"""Writing sweep results: CSV (full float precision), Parquet (written by
pyarrow, chunk by chunk: units in the file's key-value metadata, the Arrow
schema's metadata and each column's field metadata: arrow_schema.py), JSON, and text/Markdown tables. Large grids are streamed
chunk by chunk, so memory stays bounded whatever the number of rows."""
from __future__ import annotations

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


class _ErrorWatch:
    """Which `name [error]` columns hold an error in some row: the others are dropped at the end,
    so a file has the columns stdout has (an error column only where this run has an error)."""

    def __init__(self) -> None:
        self.columns: dict[str, None] = {}
        self.held: set[str] = set()

    def see(self, chunk: pl.DataFrame) -> pl.DataFrame:
        for name in chunk.columns:
            if is_error_header(name):
                self.columns.setdefault(name)
                if name not in self.held and chunk[name].null_count() < chunk.height:
                    self.held.add(name)
        return chunk

    @property
    def clean(self) -> list[str]:
        return [c for c in self.columns if c not in self.held]


def write_csv(chunks: Iterator[pl.DataFrame], path: Path) -> int:
    """Stream chunks into a CSV file; whole-number columns of a chunk are written as integers."""
    rows, watch = 0, _ErrorWatch()
    tmp = _temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            first = True
            for chunk in chunks:
                whole_numbers(watch.see(chunk)).write_csv(handle, include_header=first)
                first = False
                rows += chunk.height
        if watch.clean:   # a second pass over the text as text: the values stay exactly as written
            cleaned = _temp_path(path)
            try:
                pl.scan_csv(tmp, infer_schema=False).drop(watch.clean).sink_csv(cleaned)
                os.replace(cleaned, tmp)
            finally:
                if os.path.exists(cleaned):
                    os.unlink(cleaned)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return rows


def write_parquet(chunks: Iterator[pl.DataFrame], schema: pl.Schema | None, path: Path, metadata: dict[str, str],
                  *, held: set[str] | None = None) -> int:
    """Stream chunks into one Parquet file, one row group per chunk (bounded memory);
    `schema` None: the first chunk's.

    Error columns that hold no error are left out: with one chunk (every sweep of
    up to --chunk-rows rows) they are known before anything is written; with
    more, they are dropped at the end, unless the file is one part of a dataset
    (`held` given): parts keep one schema, and `held` receives the error columns
    that held an error, for `drop_columns` once every part is known."""
    import pyarrow.parquet as pq
    rows, watch = 0, _ErrorWatch()
    first, only, chunks = _peek(chunks)
    if only is not None and held is None:
        watch.see(only)
        only = only.drop(watch.clean)
        chunks, schema, watch = iter([only]), only.schema, _ErrorWatch()
    elif schema is None:
        schema = first.schema if first is not None else pl.Schema()
    arrow = schema_with_units(pl.DataFrame(schema=schema).to_arrow().schema, units_in(metadata), metadata)
    tmp, cleaned = _temp_path(path), None
    try:
        with pq.ParquetWriter(tmp, arrow) as writer:
            for chunk in chunks:
                rows += chunk.height
                watch.see(chunk)
                writer.write_table(chunk.select(schema.names()).to_arrow().cast(arrow))
        if held is not None:
            held.update(watch.held)
        elif watch.clean:
            cleaned = _temp_path(path)
            _sink_without(tmp, watch.clean, cleaned, metadata)
            os.replace(cleaned, tmp)
        os.replace(tmp, path)
    finally:
        for name in (tmp, cleaned):
            if name and os.path.exists(name):
                os.unlink(name)
    return rows


def _peek(chunks: Iterator[pl.DataFrame]) -> tuple[pl.DataFrame | None, pl.DataFrame | None, Iterator[pl.DataFrame]]:
    """The first chunk, the only chunk when there is just one, and all the chunks again."""
    chunks = iter(chunks)
    first = next(chunks, None)
    second = next(chunks, None) if first is not None else None
    if second is None:
        return first, first, iter([first] if first is not None else [])
    return first, None, itertools.chain([first, second], chunks)


def drop_columns(path: Path, columns: list[str], metadata: dict[str, str]) -> None:
    """Rewrite one Parquet file without `columns` (temp file, then rename)."""
    tmp = _temp_path(path)
    try:
        _sink_without(str(path), columns, tmp, metadata)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _sink_without(source: str, columns: list[str], target: str, metadata: dict[str, str]) -> None:
    """Copy a Parquet file into another without `columns`, row group by row group, units kept
    in every metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    reader = pq.ParquetFile(source)
    kept = [name for name in reader.schema_arrow.names if name not in columns]
    arrow = pa.schema([f for f in reader.schema_arrow if f.name in kept], metadata=metadata)
    with pq.ParquetWriter(target, arrow) as writer:
        for group in range(reader.num_row_groups):
            writer.write_table(reader.read_row_group(group, columns=kept).cast(arrow))


_EXACT_INTEGERS = 2.0 ** 53


def whole_numbers(frame: pl.DataFrame) -> pl.DataFrame:
    """Float columns whose every value is a whole number (within ±2^53) as integers: `tp` is 1, not 1.0."""
    casts = []
    for name, dtype in frame.schema.items():
        if dtype != pl.Float64:
            continue
        values = frame[name].drop_nulls()
        if len(values) and bool(((values == values.floor()) & (values.abs() <= _EXACT_INTEGERS)).all()):
            casts.append(pl.col(name).cast(pl.Int64))
    return frame.with_columns(casts) if casts else frame


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
    headers = frame.columns
    rows = [[_cell_text(v, digits) for v in row] for row in frame.iter_rows()]
    if fmt == "json":
        return json.dumps({"columns": headers, "rows": frame_cells(frame, digits)}, indent=2, ensure_ascii=False)
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
        self.handle = open(self.tmp, self.mode, encoding="utf-8", newline="")
        return self.handle

    def __exit__(self, kind, value, traceback) -> None:
        self.handle.close()
        if kind is None:
            os.replace(self.tmp, self.path)
        elif os.path.exists(self.tmp):
            os.unlink(self.tmp)


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


def _temp_path(path: Path) -> str:
    """A temp file beside `path`, with the mode a plain open() would give (0666 less the umask):
    mkstemp's private 0600 would otherwise survive the rename."""
    check_writable(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    finally:
        os.close(fd)
    return name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
