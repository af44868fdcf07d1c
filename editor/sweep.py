"""The editor's sweeps: one of the sheet's sweeps, or an ad hoc axis over a
cell (in the `--vary` syntax), run on the open sheet's current (unsaved)
values, small enough to show in a table and a plot. Problems come back as
`SweepRun.error`, never as exceptions. Pure Python: no UI imports.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supersheet.engine.compile.evaluate import Value
from supersheet.engine.present.headers import is_error_header, split_header
from supersheet.engine.workbook import Workbook
from supersheet.engine.present.present import show
from supersheet.errors import RequestError
from supersheet.engine.check.graph import dependents
from supersheet.engine.base.problems import Problem
from supersheet.engine.base.targets import OutputError, check_target
from supersheet.units import format_number

if TYPE_CHECKING:
    from supersheet.engine.scenarios.sweep import SweepSpec

MAX_ROWS = 100_000


@dataclass
class SweepRun:
    title: str
    frame: Any                    # a polars DataFrame in display units, None when the sweep failed
    axes: list[str]               # the axis columns ("context [token]")
    cells: list[str]              # the shown cells' columns
    error: str = ""
    note: str = ""                # what the status line adds (a fit's values and how far it is from the data)
    overlay: dict[str, str] | None = None   # a column -> the one drawn beside it (a fit's model -> its data)

    @property
    def value_cells(self) -> list[str]:
        """The shown cells' columns that hold values (not the `name [error]` columns beside them)."""
        return [c for c in self.cells if not is_error_header(c)]


def column_name(header: str) -> str:
    """The cell a column is about: `context [token]` -> `context`."""
    return split_header(header)[0]


def sweep_names(workbook: Workbook) -> list[str]:
    root = workbook.model.root
    return list(root.sweeps) if root is not None else []


def suggest_axis(workbook: Workbook, key: str, value: Value) -> str:
    """An ad hoc axis around a cell's current value, in the `--vary` syntax:
    from an eighth to eight times the value, doubling."""
    if isinstance(value, bool):
        return f"{key}=false,true"
    shown = show(workbook.checked, key, value)
    number = shown.value
    suffix = f" {shown.unit}" if shown.unit else ""
    if not isinstance(number, float) or isinstance(number, bool) or not math.isfinite(number) or number <= 0:
        return f"{key}=" + (f"{_plain_number(number)}{suffix}" if isinstance(number, float) else "1")
    return f"{key}={_plain_number(number / 8)}{suffix}..{_plain_number(number * 8)}{suffix}*2"


def run_title(name: str | None, axis: str | None) -> str:
    """What a run is called in the sweep view: `sweep NAME` or `ad hoc AXIS`."""
    return f"sweep {name}" if name else f"ad hoc {axis or ''}".strip()


def sweep_spec(workbook: Workbook, name: str | None, axis: str | None) -> SweepSpec:
    """The sweep the view runs: the sheet's sweep `name`, or an ad hoc one over `axis` (in the
    `--vary` syntax) showing this sheet's cells computed from it. AxisError says why not."""
    from supersheet.engine.scenarios.axes import cli_axis   # deferred: engine.scenarios.axes (slow to import)
    from supersheet.engine.scenarios.sweep import Grid, SweepSpec, load_sweep   # deferred: numpy
    if name:
        return load_sweep(workbook, name)
    parsed = cli_axis(workbook, axis or "")
    return SweepSpec("ad hoc", Grid([parsed]), _downstream(workbook, parsed.key) if parsed.key else None)


def run_sweep(workbook: Workbook, name: str | None = None, axis: str | None = None,
              max_rows: int = MAX_ROWS) -> SweepRun:
    """The sweep `name` of the sheet, or an ad hoc one over `axis`."""
    from supersheet.engine.scenarios.axes import AxisError   # deferred: engine.scenarios.axes (slow to import)
    from supersheet.engine.scenarios.sweep import run_in_memory   # deferred: numpy
    title = run_title(name, axis)
    if not workbook.ok:
        return SweepRun(title, None, [], [], "the sheet has problems; fix them first (see the diagnostics)")
    try:
        spec = sweep_spec(workbook, name, axis)
        size = spec.grid.size()
        if size > max_rows:
            return SweepRun(title, None, [], [], f"{size:,} rows is more than the {max_rows:,} shown here; "
                                                 "use `supersheet sweep` for large grids")
        frame = run_in_memory(workbook, spec)
    except AxisError as e:
        return SweepRun(title, None, [], [], e.line())
    except Exception as e:  # noqa: BLE001 - a sweep that cannot run is reported, never fatal to the editor
        return SweepRun(title, None, [], [], f"cannot run {title}: {type(e).__name__}: {e}")
    n_axes = len(spec.grid.import_axes) + len(spec.grid.value_axes)
    return SweepRun(title, frame, frame.columns[:n_axes], frame.columns[n_axes:])


def fit_names(workbook: Workbook) -> list[str]:
    root = workbook.model.root
    return list(root.fit) if root is not None else []


def run_fit(workbook: Workbook, name: str) -> SweepRun:
    """The sheet's fit `name` on its current values, shown as the sweep view shows a sweep: the
    table's rows (each input column as the axis, then each target, the model beside it and its
    error), the fitted values with their standard errors, RMS and worst error in `note`."""
    from supersheet.engine.scenarios.fit import run_fit as fit   # deferred: numpy
    from supersheet.fits import Fitted   # deferred: fits (slow to import)
    title = f"fit {name}"
    if not workbook.ok:
        return SweepRun(title, None, [], [], "the sheet has problems; fix them first (see the diagnostics)")
    try:
        fitted = Fitted(name, workbook, fit(workbook, name))
    except Problem as e:
        return SweepRun(title, None, [], [], e.line())
    except Exception as e:  # noqa: BLE001 - a fit that cannot run is reported, never fatal to the editor
        return SweepRun(title, None, [], [], f"cannot run {title}: {type(e).__name__}: {e}")
    frame = fitted.residuals()
    inputs = len(fitted.result.spec.inputs)
    summary = fitted.summary()
    note = "; ".join(f"{v.name} = {v.display}" for v in fitted.values) + \
        f"; rms {format_number(summary['rms'], 3)} {summary['unit']}, worst {format_number(summary['worst'], 3)} " \
        f"{summary['unit']}" + "".join(f"; ⚠ {w}" for w in fitted.warnings())
    columns = frame.columns
    targets = columns[inputs:]
    overlay = {targets[i + 1]: targets[i] for i in range(0, len(targets), 3)}   # model -> the measured column
    return SweepRun(title, frame, columns[:inputs], targets, note=note, overlay=overlay)


EXPORT_FORMATS = ("csv", "parquet")


def export_sweep(workbook: Workbook, path: Path, name: str | None = None, axis: str | None = None) -> int:
    """Write the sweep the view shows (the sheet's `name`, or the ad hoc `axis`), on the
    open sheet's current values, to `path` (.csv or .parquet) through the CLI's writers
    (engine/scenarios/output.py: the same columns, Parquet's unit metadata, written to a
    temporary file and renamed). Returns the rows written; ExportError says why not."""
    from supersheet.engine.scenarios.axes import AxisError   # deferred: engine.scenarios.axes (slow to import)
    from supersheet.engine.scenarios.output import OutputError, check_writable, write_csv, write_parquet   # deferred: polars
    from supersheet.engine.scenarios.sweep import iterate_chunks, plans_for, units_metadata   # deferred: numpy
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"{path.name}: the table is written as .csv or .parquet")
    if not workbook.ok:
        raise ExportError("the sheet has problems; fix them first (see the diagnostics)")
    try:
        spec = sweep_spec(workbook, name, axis)
        check_writable(path)
        plans = plans_for(workbook, spec.grid, spec.show, spec.where, spec.where_origin)
        chunks = iterate_chunks(plans, spec.grid)
        if fmt == "parquet":
            return write_parquet(chunks, None, path, units_metadata(plans))
        return write_csv(chunks, path)
    except AxisError as e:
        raise ExportError(e.line()) from None
    except (OutputError, OSError) as e:
        raise ExportError(str(e)) from None


CHART_FORMATS = ("svg", "png", "html")


def export_chart(workbook: Workbook, path: Path, name: str | None, axis: str | None, x: str, y: str) -> int:
    """Write the chart the sweep view shows — cell `y` against axis `x` (headers as the view
    names them), a line per value of the next axis, a panel per value of the one after —
    through `supersheet plot`'s code (supersheet/plots.py: units on the axes, gaps and marks),
    on the open sheet's current values, to `path` (.svg, .png or .html). Returns the rows charted."""
    from supersheet.plots import PlotError, PlotRequest, chart, save   # deferred: plots (slow to import)
    run = run_sweep(workbook, name, axis)
    if run.frame is None:
        raise ExportError(run.error)
    others = [column_name(c) for c in run.axes if c != x]
    xs = run.frame[x].drop_nulls()
    log_x = xs.len() > 1 and xs.min() > 0 and xs.max() / xs.min() >= 64     # as the view draws it
    root = workbook.model.root
    request = PlotRequest(column_name(x), (column_name(y),), others[0] if others else None,
                          others[1] if len(others) > 1 else None, log_x=log_x, title=f"{run.title}: {workbook.model.title}",
                          checks=tuple(root.checks) if root is not None else ())
    try:
        save(chart(run.frame, request), path)
    except (PlotError, RequestError) as e:     # a name the chart cannot draw; a path it cannot write
        raise ExportError(str(e)) from None
    return run.frame.height


def check_export(path: Path) -> None:
    """ExportError at once, before a row is computed and before the editor asks whether to
    replace what is there: a name that is neither a table's (.csv, .parquet) nor a chart's
    (.svg, .png, .html), or a target that is not a regular file in a writable folder (a
    device, a FIFO, a folder: the writers would refuse it only after that question)."""
    if path.suffix.lstrip(".").lower() not in EXPORT_FORMATS + CHART_FORMATS:
        raise ExportError(f"{path.name}: the table is written as .csv or .parquet, its chart as .svg, .png or .html")
    try:
        check_target(path)
    except OutputError as e:
        raise ExportError(str(e)) from None


class ExportError(Exception):
    """A sweep table or chart that cannot be written, and why."""


def _downstream(workbook: Workbook, key: str) -> list[str] | None:
    """This sheet's own cells computed from `key`, in sheet order (None: none are)."""
    checked = workbook.checked
    below = set(dependents({key}, {k: c.deps for k, c in checked.cells.items()}, checked.order))
    keys = [k for k, c in workbook.model.cells.items() if k in below and not c.scope.prefix]
    return keys or None


def _plain_number(x: float) -> str:
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"
