"""Sweeps set up step by step and streamed: what `Sheet.sweep` and `supersheet sweep` run.

A `SweepSetup` is a sweep of a `Sheet` (`supersheet.sheet.open_checked`, or
`supersheet.load` with inputs set):
one the sheet defines, or an ad hoc one, with axes added or replaced (parsed
from `NAME=VALUES` text as `--vary` writes them, or given as Python values),
the cells to show and a `where` condition. `plan()` checks it all and gives a
`SweepPlan`, whose rows are evaluated in chunks of bounded memory: collected
into one Polars DataFrame, written to a CSV, Parquet (units in its metadata),
JSON, text or Markdown file, or run as Ray tasks into a Parquet dataset. A
`progress(done, total)` callback hears of the rows done after each chunk; the
API draws nothing. Problems in the sheet raise a `Problem` (an axis or the
`where` at its place), problems of the request a `RequestError`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from supersheet.engine.base.limits import MAX_TABLE_ROWS
from supersheet.engine.base.span import Origin
from supersheet.engine.scenarios.axes import Axis, cli_axis
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.scenarios.sweep import SweepSpec, iterate_chunks, load_sweep, plans_for

from .errors import AxisError, RequestError
from .inputs import Sampling, ray_session
import json
from supersheet.engine.scenarios.sweep import units_metadata

if TYPE_CHECKING:
    import polars as pl

    from .plots import PlotRequest

    from supersheet.engine.scenarios.sweep import Plan

    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle

__all__ = ["CHUNK_ROWS", "FORMATS", "MAX_TABLE_ROWS", "STREAMED", "AxisError", "Progress", "SweepPlan", "SweepSetup",
           "check_table_rows", "check_writable", "render_table"]

Progress = Callable[[int, int], None]   # progress(rows done, rows in all), after each chunk
CHUNK_ROWS = 1_000_000                  # rows evaluated at a time (memory is bounded by a chunk)
STREAMED = ("csv", "parquet")           # formats written as the rows come; the others are built whole in memory
FORMATS = ("csv", "parquet", "json", "text", "markdown")


class SweepSetup:
    """A sweep of `sheet` (with the inputs set on it): the sweep `name` of the sheet, or an
    ad hoc one (no axes yet)."""

    def __init__(self, sheet: SheetHandle, name: str | None = None) -> None:
        self._start(sheet.written_workbook, name)

    @classmethod
    def of_workbook(cls, workbook: Workbook, name: str | None = None) -> SweepSetup:
        """A sweep of a workbook the API opened itself (the report's sheet at another revision)."""
        setup = cls.__new__(cls)
        setup._start(workbook, name)
        return setup

    def _start(self, workbook: Workbook, name: str | None) -> None:
        self.workbook = workbook
        self.spec = load_sweep(workbook, name) if name else SweepSpec("ad hoc", Grid([]))

    @property
    def sweeps(self) -> list[str]:
        """The sweeps the sheet defines (for a message that lists them)."""
        root = self.workbook.model.root
        return list(root.sweeps) if root else []

    @property
    def checks(self) -> list[str]:
        """The sheet's checks (a chart marks the rows where one fails)."""
        root = self.workbook.model.root
        return list(root.checks) if root else []

    @property
    def title(self) -> str:
        """The sweep's name and the sheet's title, as a chart's title."""
        title = self.workbook.model.title
        return f"{self.spec.name} — {title}" if self.spec.name != "ad hoc" and title else (title or self.spec.name)

    @property
    def plot_defaults(self) -> PlotRequest | None:
        """The sweep's own `plot:` (x, y, color, facet, log_x, log_y, title), if it has one."""
        root = self.workbook.model.root
        block = root.sweeps.get(self.spec.name) if root is not None else None
        plot = block.plot if block is not None else None
        if plot is None:
            return None
        from .plots import PlotRequest   # deferred: plots, for a chart only (not for `sweep`)
        return PlotRequest(str(plot.x.value), tuple(str(y.value) for y in plot.y),
                            str(plot.color.value) if plot.color else None, str(plot.facet.value) if plot.facet else None,
                            plot.log_x, plot.log_y, plot.title)

    @property
    def explicit_rows(self) -> bool:
        """The sweep lists its rows: no axis can be added to it."""
        return self.spec.grid.rows is not None

    def parse_axis(self, text: str) -> Axis:
        """An axis written `NAME=VALUES`, as `--vary` takes it: `tp=1,2,4,8`,
        `context=4096token..131072token*2`, `message=10KiB..30KiB+10KiB`, `m=1KiB..1GiB:50log`,
        `model=a.yaml,b.yaml` (an import axis). Its values are checked against the cell."""
        return cli_axis(self.workbook, text)

    def check_can_vary(self) -> None:
        """AxisError when the sweep lists its rows (no axis can be added to it)."""
        if self.explicit_rows:
            raise AxisError("E-SHEET", "axes cannot be added to a sweep of explicit rows")

    def vary(self, axis: Axis) -> None:
        """Add the axis, or replace the sweep's axis of the same name."""
        self.check_can_vary()
        self.spec.grid.axes = [a for a in self.spec.grid.axes if a.name != axis.name] + [axis]

    def show(self, cells: Sequence[str]) -> None:
        """Output only these cells (beside the axes)."""
        self.spec.show = list(cells)

    def where(self, condition: str, source: str = "<where>") -> None:
        """Keep only rows where `condition` holds; its diagnostics name `source` as the file."""
        self.spec.where, self.spec.where_origin = condition, Origin(source, 1, 1)

    @property
    def rows(self) -> int:
        """Rows of the grid (before `where`)."""
        return self.spec.grid.size()

    def plan(self, sampling: Sampling = Sampling()) -> SweepPlan:
        """Check the shown cells, the `where` and every swept sheet, and plan the evaluation."""
        units: dict = {}
        spec = self.spec
        plans = plans_for(self.workbook, spec.grid, spec.show, spec.where, spec.where_origin,
                          (sampling.samples, sampling.seed, sampling.max_memory), units)
        return SweepPlan(spec, plans, units, sampling)


@dataclass(frozen=True)
class SweepPlan:
    """A checked sweep ready to evaluate; `rows` rows, columns headed `name [unit]`."""

    spec: SweepSpec
    plans: list[Plan]
    units: dict
    sampling: Sampling

    @property
    def rows(self) -> int:
        return self.spec.grid.size()

    def chunks(self, chunk_rows: int = CHUNK_ROWS, progress: Progress | None = None) -> Iterator[pl.DataFrame]:
        """The rows, chunk by chunk, in grid order (the first axis slowest)."""
        yield from iterate_chunks(self.plans, self.spec.grid, max(1, chunk_rows), progress)

    def frame(self, chunk_rows: int = CHUNK_ROWS, progress: Progress | None = None) -> pl.DataFrame:
        """Every row in one DataFrame, in the columns the sheet and this sweep decide (an error
        column for every cell that can hold one, numbers Float64), whatever the rows hold."""
        import polars as pl   # deferred: polars
        frames = list(self.chunks(chunk_rows, progress))
        if not frames:
            return pl.DataFrame()
        return pl.concat(frames, how="diagonal_relaxed")

    def column_units(self) -> dict[str, str]:
        """Each column's unit by header (what a Parquet file keeps in its metadata)."""

        return json.loads(units_metadata(self.plans)["supersheet.units"])

    def write(self, path: str | Path, format: str | None = None, chunk_rows: int = CHUNK_ROWS,
              progress: Progress | None = None, force: bool = False, max_table_rows: int = MAX_TABLE_ROWS) -> int:
        """Stream the rows to a file (format: csv, parquet, json, text, markdown; default from the
        extension), written to a temporary file renamed at the end. Returns the rows written.
        Only a regular file is replaced, a read-only one only when `force` (docs/security.md);
        RequestError otherwise, or when the write fails (a full disk)."""
        from supersheet.engine.scenarios.output import OutputError, write_csv, write_parquet, write_text   # deferred: polars
        path = Path(path)
        fmt = output_format(path, format)
        check_writable(path, force)
        if fmt not in STREAMED:
            check_table_rows(self.rows, max_table_rows)
        try:
            if fmt == "parquet":
                return write_parquet(self.chunks(chunk_rows, progress), None, path, units_metadata(self.plans),
                                     force=force)
            if fmt == "csv":
                return write_csv(self.chunks(chunk_rows, progress), path, force)
            frame = self.frame(chunk_rows, progress)
            write_text(path, render_table(frame, fmt) + "\n", force)
        except OutputError as e:
            raise RequestError(str(e)) from None
        return frame.height

    def write_dataset(self, directory: str | Path, address: str | None = None, part_rows: int | None = None,
                      chunk_rows: int = CHUNK_ROWS, progress: Progress | None = None) -> tuple[int, int]:
        """Evaluate row ranges as Ray tasks, each writing one Parquet file of the dataset
        `directory`: (rows, files) written. RequestError when Ray is unavailable or a task fails."""
        from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed   # deferred: engine.scenarios.on_ray (slow to import)
        from supersheet.engine.scenarios.sweep_parts import PartError   # deferred: polars
        from supersheet.engine.scenarios.sweep_ray import sweep_to_dataset   # deferred: polars
        spec = self.spec
        try:
            with ray_session(address):
                written = sweep_to_dataset(self.plans, spec.grid, spec.show, spec.where, spec.where_origin,
                                           (self.sampling.samples, self.sampling.seed), self.units, str(directory),
                                           address=address, part_rows=part_rows, chunk_rows=max(1, chunk_rows),
                                           progress=progress)
        except (RayUnavailable, TaskFailed, PartError) as e:
            raise RequestError(str(e)) from None
        return written.rows, len(written.parts)


def output_format(path: Path, format: str | None) -> str:
    """The format asked for, else the one of the file's extension."""
    fmt = format or path.suffix.lstrip(".")
    if fmt not in FORMATS:
        raise RequestError(f"cannot tell the format of {str(path)!r}; give format= one of {', '.join(FORMATS)}")
    return fmt


def check_writable(path: Path, force: bool = False) -> None:
    """RequestError unless a file can be written at `path` (checked before a long sweep runs):
    a new file in a writable folder, or a regular file to replace (a read-only one only when
    `force`); never a device, FIFO, socket or folder."""
    from supersheet.engine.scenarios.output import OutputError, check_writable as writable   # deferred: polars
    try:
        writable(path, force)
    except OutputError as e:
        raise RequestError(str(e)) from None



def check_table_rows(rows: int, limit: int = MAX_TABLE_ROWS) -> None:
    """RequestError when a table, JSON or Markdown output of `rows` rows (built whole in memory,
    about a kilobyte a row) would pass `limit`: checked before any row is computed."""
    if rows > limit:
        raise RequestError(f"the sweep has {rows:,} rows, more than --max-table-rows {limit:,} for a text, JSON or "
                           "Markdown table (built whole in memory); write CSV or Parquet, which stream: -o FILE.csv, "
                           "-o FILE.parquet or --format csv (or raise --max-table-rows)")


def render_table(frame: pl.DataFrame, format: str, digits: int = 4) -> str:
    """A DataFrame of a sweep or choice as `supersheet` prints it: `json` (every column, numbers
    as floats, under the schema `supersheet-sweep/1`), or `text` (aligned columns) and `markdown`
    for people, which show an error column only where some row holds an error."""
    from supersheet.engine.scenarios.output import render_table as rendered   # deferred: polars
    return rendered(frame, format, digits)


def sheet_plot(sheet: SheetHandle, name: str | None, axes: dict[str, Any], x: str | None, y: str | Sequence[str] | None,
                color: str | None, facet: str | None, log_x: bool, log_y: bool, title: str | None) -> Any:
    """`Sheet.plot`: the sweep's rows charted, as an altair chart."""
    from .plots import PlotError, PlotRequest, as_altair, chart   # deferred: plots, for a chart only
    setup = SweepSetup(sheet, name)
    defaults = setup.plot_defaults if x is None and y is None else None
    ys = (y,) if isinstance(y, str) else tuple(y or (defaults.y if defaults else ()))
    x = x or (defaults.x if defaults else None)
    if not x or not ys:
        raise PlotError("give x and y (or the name of a sweep whose block has a plot:)")
    request = PlotRequest(x, ys, color or (defaults.color if defaults else None),
                          facet or (defaults.facet if defaults else None),
                          log_x or bool(defaults and defaults.log_x), log_y or bool(defaults and defaults.log_y),
                          title or (defaults.title if defaults else "") or setup.title, tuple(setup.checks))
    result = sheet.sweep(name, show=list(dict.fromkeys([*ys, *setup.checks])), **axes)
    return as_altair(chart(result.headed(), request))
