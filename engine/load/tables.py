"""A table of `tables:` read from its file: a CSV whose header names each
column with its unit (`size [B],time [us]`) or a Parquet file with the units
supersheet writes (each field's `unit` metadata, or the `supersheet.units`
key of the schema: engine/scenarios/arrow_schema.py, or the `name [unit]`
header itself).

Nothing in a table is executed or trusted: the file is read as bytes within
the table limits (regular files only, at most `--max-table-size` bytes and
`--max-data-rows` rows), every value must be a finite number, every column
needs a unit Pint reads. What is wrong is a diagnostic at the file's line and
column (a CSV) or at the sheet's `tables:` entry (a Parquet file, which has no
lines), never a traceback.
"""
from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_bytes
from supersheet.engine.base.span import Span
from supersheet.units import UnitError, parse_unit

UNITS_KEY = "supersheet.units"      # as engine/scenarios/arrow_schema.py writes it (load imports no later stage)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HEADER = re.compile(r"\s*(?P<name>[^\[\]]*?)\s*(?:\[(?P<unit>[^\]]*)\]\s*)?\Z")
_HEADER_HINT = "a column's header is its name and its unit in brackets: size [B], time [us]; a plain number is n [1]"


@dataclass(frozen=True)
class TableColumn:
    """One column: its values (floats, in `unit`), its unit as written and where its header is."""
    name: str
    unit: str
    values: Any                  # a float64 numpy array, in `unit`
    span: Span

    @property
    def factor(self) -> float:
        """What one `unit` is in base units (values * factor are SI magnitudes)."""
        return parse_unit(self.unit).factor


@dataclass(frozen=True)
class Table:
    """A table file read: its columns by name, in file order, and its number of rows."""
    name: str
    path: Path
    columns: dict[str, TableColumn] = field(default_factory=dict)
    rows: int = 0


def read_table(name: str, path: Path, entry: Span) -> tuple[Table | None, list[Diagnostic]]:
    """The table `name` from `path` (located and allowed already), or None with why not.
    `entry` is where the sheet names it (a Parquet file's problems are reported there)."""
    limits = current_limits()
    try:
        data = read_sheet_bytes(path, limits.max_data_size)
    except FileNotFoundError:
        return None, [Diagnostic("E-IMPORT", f"table file not found: {path}", entry)]
    except UnreadableSheet as e:
        return None, [Diagnostic("E-IMPORT", str(e).replace("as sheets", "as tables"), entry)]
    if path.name.lower().endswith(".parquet"):
        return _parquet(name, path, data, entry)
    return _csv(name, path, data, entry)


def _csv(name: str, path: Path, data: bytes, entry: Span) -> tuple[Table | None, list[Diagnostic]]:
    import numpy as np   # deferred: numpy
    file = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return None, [Diagnostic("E-SHEET", f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x})",
                                 Span(file, line, 1, 2))]
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        return None, [Diagnostic("E-SHEET", f"table {name!r} has no header", Span(file, 1, 1, 2), hint=_HEADER_HINT)]
    header = next(csv.reader([lines[0]]))
    starts = _field_starts(lines[0], header)
    problems: list[Diagnostic] = []
    columns: list[tuple[str, str, Span]] = []
    for i, cell in enumerate(header):
        span = Span(file, 1, starts[i], starts[i] + max(1, len(cell)))
        named = _header_column(cell, span, problems)
        if named is None:
            continue
        if any(c[0] == named[0] for c in columns):
            problems.append(Diagnostic("E-SHEET", f"table {name!r} has two columns named {named[0]!r}", span))
            continue
        columns.append(named + (span,))
    if problems:
        return None, problems
    limit = current_limits().max_data_rows
    rows: list[list[str]] = []
    numbers: list[int] = []        # the file's line of each row
    for number, row in enumerate(csv.reader(lines[1:]), start=2):
        if not row or all(not v.strip() for v in row):
            continue
        if len(rows) >= limit:
            return None, [Diagnostic("E-SHEET", f"table {name!r} has more than {limit:,} rows", entry,
                                     hint="raise the limit with --max-data-rows N")]
        if len(row) != len(header):
            return None, [Diagnostic("E-SHEET", f"line {number} has {len(row)} values, the header {len(header)}",
                                     Span(file, number, 1, 2), hint=_HEADER_HINT)]
        rows.append(row)
        numbers.append(number)
    if not rows:
        return None, [Diagnostic("E-SHEET", f"table {name!r} has no rows", Span(file, 1, 1, 2))]
    table = Table(name, path, rows=len(rows))
    for index, (column, unit, span) in enumerate(columns):
        try:
            values = np.array([float(row[index]) for row in rows], dtype=np.float64)
        except ValueError:
            values = None
        at: int | None   # the first row whose value is not a finite number, to point at it
        if values is None:
            at = next(r for r, row in enumerate(rows) if not _finite(row[index]))
        else:
            bad = np.flatnonzero(~np.isfinite(values))
            at = int(bad[0]) if len(bad) else None
        if at is not None:
            col = _field_starts(lines[numbers[at] - 1], rows[at])[index]
            return None, [Diagnostic("E-PARSE", f"{rows[at][index].strip() or 'an empty value'} in column "
                                                f"{column!r} is not a finite number",
                                     Span(file, numbers[at], col, col + max(1, len(rows[at][index]))),
                                     hint="every value of a table is a number in its column's unit")]
        table.columns[column] = TableColumn(column, unit, values, span)
    return table, []


def _finite(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return value - value == 0


def _header_column(cell: str, span: Span, problems: list[Diagnostic]) -> tuple[str, str] | None:
    """`size [B]` -> ("size", "B"); a missing or unknown unit or a name that is not a cell name is a problem."""
    match = _HEADER.match(cell)
    name = match.group("name") if match else cell.strip()
    if match is None or not _NAME.match(name):
        problems.append(Diagnostic("E-SHEET", f"column {cell.strip()!r} is not a name and a unit", span,
                                   hint="names are letters, digits and _, not starting with a digit; " + _HEADER_HINT))
        return None
    unit = match.group("unit")
    if unit is None or not unit.strip():
        problems.append(Diagnostic("E-UNIT", f"column {name!r} has no unit", span,
                                   hint=f"write its unit in the header: {name} [us] ({_HEADER_HINT})"))
        return None
    try:
        parse_unit(unit.strip())
    except UnitError as e:
        at = span.col + cell.index("[") + 1 + (len(unit) - len(unit.lstrip())) + e.offset
        problems.append(Diagnostic("E-UNIT", f"column {name!r}: {e.message}", Span(span.file, 1, at, at + max(1, e.length)),
                                   hint=e.hint or _HEADER_HINT))
        return None
    return name, unit.strip()


def _field_starts(line: str, fields: list[str]) -> list[int]:
    """The 1-based column where each field of a CSV line starts (1 for all when quoting makes it unclear)."""
    if '"' in line:
        return [1] * len(fields)
    starts, col = [], 1
    for value in fields:
        starts.append(col + len(value) - len(value.lstrip()))
        col += len(value) + 1
    return starts


def _parquet(name: str, path: Path, data: bytes, entry: Span) -> tuple[Table | None, list[Diagnostic]]:
    import numpy as np   # deferred: numpy
    import pyarrow as pa   # deferred: numpy, pyarrow
    import pyarrow.parquet as pq   # deferred: numpy, pyarrow
    try:
        arrow = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as e:
        return None, [Diagnostic("E-SHEET", f"{path} is not a Parquet file that can be read: {e}", entry)]
    limit = current_limits().max_data_rows
    if arrow.num_rows > limit:
        return None, [Diagnostic("E-SHEET", f"table {name!r} has {arrow.num_rows:,} rows, more than {limit:,}", entry,
                                 hint="raise the limit with --max-data-rows N")]
    metadata = {k.decode(): v.decode() for k, v in (arrow.schema.metadata or {}).items()}
    try:
        written = json.loads(metadata.get(UNITS_KEY, "{}"))
    except ValueError:
        written = {}
    ours = UNITS_KEY in metadata           # a file supersheet wrote: a column without a unit is a plain number
    table = Table(name, path, rows=arrow.num_rows)
    for index, column in enumerate(arrow.schema):
        if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
            continue            # text (error codes, names of rows outside the model): not a number column
        header = _HEADER.match(column.name)
        plain = header.group("name") if header else column.name
        if not _NAME.match(plain):
            continue            # `x[0] [ms]`, `step p95 [ms]`: columns a formula cannot name
        unit = (column.metadata or {}).get(b"unit", b"").decode() or written.get(column.name) \
            or (header.group("unit") if header else None) or ("1" if ours else None)
        if unit is None:
            return None, [Diagnostic("E-UNIT", f"column {column.name!r} of {path.name} has no unit", entry,
                                     hint="a Parquet column carries its unit in its field metadata ({unit: B}, as "
                                          "supersheet sweep writes) or in its name: size [B]")]
        try:
            parse_unit(unit)
        except UnitError as e:
            return None, [Diagnostic("E-UNIT", f"column {column.name!r} of {path.name}: {e.message}", entry,
                                     hint=e.hint)]
        chunk = arrow.column(index)
        if chunk.null_count:
            return None, [Diagnostic("E-SHEET", f"column {column.name!r} of {path.name} has {chunk.null_count:,} "
                                                f"empty values", entry, hint="every value of a table is a number")]
        values = np.asarray(chunk.to_numpy(), dtype=np.float64)
        if not np.isfinite(values).all():
            return None, [Diagnostic("E-PARSE", f"column {column.name!r} of {path.name} holds a value that is not a "
                                                f"finite number (row {int(np.flatnonzero(~np.isfinite(values))[0]) + 1})",
                                     entry)]
        table.columns[plain] = TableColumn(plain, unit, values, entry)
    if not table.columns:
        return None, [Diagnostic("E-SHEET", f"{path.name} has no number column a formula can name", entry)]
    return table, []
