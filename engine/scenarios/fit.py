"""Fits (`fit:` blocks, issue 35): the values of some cells that make the sheet
match a table's rows, by least squares.

A fit names a table, which of its columns set which cells row by row
(`inputs`), which columns the sheet should reproduce and by which cells
(`targets`), and the cells to vary between bounds. Everything a fit reads is
checked first, without evaluating (`fit_spec`: what `supersheet check` runs):
the table and its columns, the cells, the units of every column against its
cell's, the bounds against the varied cells, and that every varied cell moves
some target (else `E-SOLVE`, as a goal that does not depend on its cell).

The sheet is compiled once, as for a sweep (evaluate.compile_program), with
the input and varied cells as input columns; one residual evaluation is one
frame of the table's n rows through that plan, so a 10^5-row table is a few
milliseconds per evaluation. scipy.optimize.least_squares (trust region
reflective, with the bounds) works on the varied values divided by a scale of
each (their starting value, else the larger bound), so that 4 us and 370 GB/s
are numbers of the same size; everything is in base (SI) units. The standard
errors are those of the linearised model at the answer: cov = s^2 (J^T J)^-1
with s^2 the residuals' sum of squares over n - k, from the Jacobian
least_squares ends with.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from supersheet.engine.base.diagnostics import did_you_mean
from supersheet.engine.base.problems import AxisError, Problem, SolveError
from supersheet.engine.base.span import Span
from supersheet.engine.compile.evaluate import Scenario, literal_for
from supersheet.engine.load.specs import FitBlock, Written
from supersheet.engine.load.tables import Table
from supersheet.engine.present.present import display_unit
from supersheet.engine.scenarios.solve import bound_end, depends_on, named_block
from supersheet.engine.workbook import Workbook
from supersheet.units import describe, parse_unit
from supersheet.engine.compile.evaluate import compile_program


@dataclass(frozen=True)
class FitSpec:
    """A fit checked against its sheet and table, before anything is evaluated."""
    name: str
    block: FitBlock
    table: Table
    inputs: tuple[tuple[str, str], ...]      # (column, cell key)
    targets: tuple[tuple[str, str], ...]     # (column, cell key)
    vary: tuple[str, ...]                    # cell keys
    low: tuple[float, ...]                   # bounds in base units
    high: tuple[float, ...]
    relative: bool
    selected: Any = None                     # the indices of the rows fitted (numpy), when `rows:` keeps some

    @property
    def rows(self) -> int:
        return self.table.rows if self.selected is None else len(self.selected)

    def column(self, name: str) -> np.ndarray:
        """A column's values in its unit, of the rows fitted."""
        values = self.table.columns[name].values
        return values if self.selected is None else values[self.selected]


@dataclass
class FitResult:
    """A fit's answer: the varied cells' values and standard errors in base units, the
    model beside the table per row, and how good the match is."""
    spec: FitSpec
    values: dict[str, float]
    errors: dict[str, float]                 # nan where the data cannot tell (a singular Jacobian)
    on_bound: list[str]                      # varied cells whose answer is at a bound
    measured: dict[str, np.ndarray]          # target column -> its values (base units)
    model: dict[str, np.ndarray]             # target column -> the sheet's values at the answer (base units)
    residuals: dict[str, np.ndarray]         # relative (model / measured - 1) or absolute (base units)
    rms: float
    worst: tuple[str, int, float]            # (target column, the table's row index, residual) of the largest |residual|
    evaluations: int
    seconds: float
    message: str
    scenario: Scenario | None = field(default=None, repr=False)

    @property
    def rows(self) -> int:
        return self.spec.rows


class FitError(SolveError):
    """A fit that cannot run or found no answer (E-SOLVE), at `span` when it is about one entry."""


def fit_block(workbook: Workbook, name: str) -> FitBlock:
    return named_block(workbook.model.root.fit if workbook.model.root else {}, "fit", name)


def fit_names(workbook: Workbook) -> list[str]:
    return list(workbook.model.root.fit) if workbook.model.root else []


def fit_spec(workbook: Workbook, name: str) -> FitSpec:
    """The fit `name` checked (its first problem raised, at its place): nothing is evaluated."""
    block = fit_block(workbook, name)
    assert block.table is not None
    table = workbook.model.tables.get(block.table.value)
    if table is None:
        raise AxisError("E-NAME", f"no table named {block.table.value!r}",
                        did_you_mean(block.table.value, list(workbook.model.tables)) or
                        "a fit's table is declared under tables: {name: path.csv}", span=block.table.span)
    inputs = tuple(_column_cell(workbook, table, column, cell, "inputs") for column, cell in block.inputs)
    targets = tuple(_column_cell(workbook, table, column, cell, "targets") for column, cell in block.targets)
    if not targets:
        raise AxisError("E-SHEET", "no targets: a fit compares columns with cells", "targets: {column: cell}",
                        span=block.span)
    keys, low, high = [], [], []
    for entry in block.vary:
        key = workbook.key_for(entry.name)
        if key is None:
            raise AxisError.of(workbook.unknown_cell(entry.name, entry.span, by="vary"))
        _scalar_number(workbook, key, entry.name, entry.span)
        if key in {k for _, k in inputs}:
            raise AxisError("E-SHEET", f"{entry.name} is set by a column of the table and cannot be varied too",
                            span=entry.span)
        assert entry.bounds is not None
        ends = [_end(workbook, key, end) for end in entry.bounds]
        if not ends[0] < ends[1]:
            raise AxisError("E-SHEET", f"the bounds of {entry.name} are [lo, hi] with lo below hi, not "
                                       f"[{entry.bounds[0].text}, {entry.bounds[1].text}]", span=entry.bounds[1].span)
        if not any(depends_on(workbook, (target,), key) for _, target in targets):
            shown = ", ".join(cell.value for _, cell in block.targets)
            raise FitError(f"no target depends on {entry.name}: no value of it changes {shown}",
                           f"vary a cell that {shown} is computed from, or remove {entry.name} from vary",
                           span=entry.span)
        keys.append(key)
        low.append(ends[0])
        high.append(ends[1])
    if not keys:
        raise AxisError("E-SHEET", "vary names no cell", "vary: {alpha: [0 us, 1 ms]}", span=block.span)
    return FitSpec(name, block, table, inputs, targets, tuple(keys), tuple(low), tuple(high),
                   block.error == "relative", _selected(table, block))


def _selected(table: Table, block: FitBlock) -> Any:
    """The rows `rows: {column: [lo, hi]}` keeps (every bound inclusive), or None for every row."""
    if not block.rows:
        return None
    keep = np.ones(table.rows, dtype=bool)
    for entry in block.rows:
        data = table.columns.get(entry.name)
        if data is None:
            raise AxisError("E-NAME", f"rows: table {table.name} has no column {entry.name!r}",
                            did_you_mean(entry.name, list(table.columns)), span=entry.span)
        assert entry.bounds is not None
        ends = []
        for end in entry.bounds:
            literal = end.literal
            assert literal is not None
            if literal.problem is not None:
                raise AxisError(literal.problem.code, f"rows: {literal.problem.message}", literal.problem.hint,
                                span=end.span)
            dims = parse_unit(literal.unit).dimensions if literal.unit else parse_unit("1").dimensions
            column_dims = parse_unit(data.unit).dimensions
            if dims != column_dims:
                raise AxisError("E-UNIT", f"rows: {end.text} ({describe(dims)}) bounds column {entry.name} "
                                          f"[{data.unit}] ({describe(column_dims)})",
                                f"write the bound in a unit of {describe(column_dims)}", span=end.span)
            assert literal.magnitude is not None, "a literal without a problem has a magnitude"
            ends.append(float(literal.magnitude))
        values = data.values * data.factor
        keep &= (values >= ends[0]) & (values <= ends[1])
    if not keep.any():
        raise AxisError("E-SHEET", "rows: no row of the table lies within these bounds", span=block.rows[0].span)
    return np.flatnonzero(keep)


def _column_cell(workbook: Workbook, table: Table, column: Written, cell: Written, role: str) -> tuple[str, str]:
    """A column of the table and the cell it sets or should equal: both exist, the cell is a
    scalar number of the column's dimension (E-UNIT at the column, naming both units)."""
    data = table.columns.get(column.value)
    if data is None:
        raise AxisError("E-NAME", f"table {table.name} has no column {column.value!r}",
                        did_you_mean(column.value, list(table.columns)) or
                        f"its columns are {', '.join(table.columns)}", span=column.span)
    key = workbook.key_for(cell.value)
    if key is None:
        raise AxisError.of(workbook.unknown_cell(cell.value, cell.span))
    typ = _scalar_number(workbook, key, cell.value, cell.span)
    dims = parse_unit(data.unit).dimensions
    if typ.dims != dims:
        verb = "sets" if role == "inputs" else "is compared with"
        raise AxisError("E-UNIT", f"column {column.value} [{data.unit}] ({describe(dims)}) {verb} {cell.value}, "
                                  f"which is {describe(typ.dims)}", 
                        f"a column {verb} a cell of its own dimension: name the column of {describe(typ.dims)}, "
                        f"or fix the unit in the table's header ({table.path.name})", span=column.span)
    return column.value, key


def _scalar_number(workbook: Workbook, key: str, name: str, span: Span):
    cell = workbook.checked.cells.get(key)
    typ = cell.type if cell is not None else None
    if typ is None or typ.is_bool or typ.is_array:
        what = "not checked" if typ is None else "a condition" if typ.is_bool else "an array"
        raise AxisError("E-TYPE", f"a fit reads and sets numbers, and {name} is {what}", span=span)
    if key in workbook.checked.structural_inputs:
        raise AxisError("E-TYPE", f"{name} sets the length of an array (range) and cannot be set row by row",
                        span=span)
    return typ


def _end(workbook: Workbook, key: str, end: Written) -> float:
    assert end.literal is not None
    try:
        return float(bound_end(workbook, key, end.literal, end.span)[1])
    except AxisError as e:
        unit = display_unit(workbook.checked, key)
        hint = e.hint or (f"a bound of {key} is a value of its kind, e.g. in {unit}" if unit else None)
        raise AxisError(e.code, e.message.replace("between: ", "bound: "), hint, span=e.span or end.span) from None


def run_fit(workbook: Workbook, name: str, fixed: dict[str, Any] | None = None) -> FitResult:
    """Fit `name`: least squares over the table's rows, each evaluation one frame through the compiled
    sheet; `fixed` are literal overrides (`--set`) that hold throughout."""
    from scipy.optimize import least_squares   # deferred: numpy, scipy
    spec = fit_spec(workbook, name)
    set_by_rows = set(spec.vary) | {key for _, key in spec.inputs}   # what the fit sets wins over a --set
    fixed = {k: v for k, v in (fixed or {}).items() if k not in set_by_rows}
    started = time.perf_counter()
    residuals, model_of, measured = _residual_function(workbook, spec, fixed)
    baseline = workbook.evaluate(fixed)
    low, high = np.array(spec.low), np.array(spec.high)
    start = np.array([_start(baseline.values.get(k), lo, hi) for k, lo, hi in zip(spec.vary, low, high)])
    scale = np.where(start != 0, np.abs(start), np.maximum(np.abs(low), np.abs(high)))
    calls = [0]

    def scaled(q: np.ndarray) -> np.ndarray:
        calls[0] += 1
        r = residuals(q * scale)
        return np.where(np.isfinite(r), r, 1e6)    # a row with no value pushes the search away from it

    first = residuals(start)
    if not np.isfinite(first).all():
        column, row = _first_bad(spec, model_of(start))
        raise FitError(f"the sheet has no value for row {row + 1} of {spec.table.name} "
                       f"({column}) at the starting values", "start the varied cells where the sheet computes "
                       "every row, or bound them away from where it has no value")
    result = least_squares(scaled, start / scale, bounds=(low / scale, high / scale), method="trf",
                           x_scale=1.0, ftol=1e-14, xtol=1e-14, gtol=1e-14, max_nfev=200 * (len(start) + 1))
    values = result.x * scale
    model = model_of(values)
    final = residuals(values)
    if not np.isfinite(final).all():
        column, row = _first_bad(spec, model)
        raise FitError(f"at the answer the sheet has no value for row {row + 1} ({column})",
                       "narrow the bounds of the varied cells")
    n, k = len(final), len(values)
    errors = _standard_errors(result.jac, final, n, k) * scale   # the Jacobian is of the scaled values

    indices = range(spec.rows) if spec.selected is None else [int(i) for i in spec.selected]
    pairs = [(column, i) for column, _ in spec.targets for i in indices]   # the table's own row numbers
    worst = int(np.argmax(np.abs(final)))
    split = {column: final[j * spec.rows:(j + 1) * spec.rows] for j, (column, _) in enumerate(spec.targets)}
    on_bound = [key for key, active, v, lo, hi in zip(spec.vary, result.active_mask, values, low, high)
                if active != 0 or _at(v, lo, hi)]
    fixed = {**fixed, **{key: literal_for(float(v), None) for key, v in zip(spec.vary, values)}}
    return FitResult(spec, dict(zip(spec.vary, map(float, values))), dict(zip(spec.vary, map(float, errors))),
                     on_bound, measured, model, split,
                     float(np.sqrt(np.mean(final ** 2))), (pairs[worst][0], pairs[worst][1], float(final[worst])),
                     calls[0] + 2, time.perf_counter() - started, str(result.message), workbook.evaluate(fixed))


def _at(value: float, low: float, high: float) -> bool:
    """On a bound, to the precision of the search."""
    span = high - low
    return abs(value - low) <= 1e-9 * span or abs(high - value) <= 1e-9 * span


def _start(value: Any, low: float, high: float) -> float:
    """Where the search starts: the cell's own value when it lies inside the bounds, else their middle
    (geometric when they span decades)."""
    if isinstance(value, float) and math.isfinite(value) and low < value < high:
        return value
    if low > 0 and high / low > 100:
        return math.sqrt(low * high)
    return (low + high) / 2


def _standard_errors(jacobian: np.ndarray, residuals: np.ndarray, n: int, k: int) -> np.ndarray:
    """sqrt(diag(s^2 (J^T J)^-1)), s^2 = sum r^2 / (n - k), of the scaled values (whose Jacobian is
    well conditioned when the data tell them apart); nan where J^T J is singular or n <= k."""
    if n <= k:
        return np.full(k, math.nan)
    s2 = float(residuals @ residuals) / (n - k)
    normal = jacobian.T @ jacobian
    try:
        if np.linalg.cond(normal) > 1e14:
            return np.full(k, math.nan)
        covariance = s2 * np.linalg.inv(normal)
    except np.linalg.LinAlgError:
        return np.full(k, math.nan)
    return np.sqrt(np.clip(np.diag(covariance), 0, None))


def _first_bad(spec: FitSpec, model: dict[str, np.ndarray]) -> tuple[str, int]:
    for column, values in model.items():
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            return column, int(bad[0])
    return spec.targets[0][0], 0


def _residual_function(workbook: Workbook, spec: FitSpec, fixed: dict[str, Any]):
    """The residuals (every target column's rows, in order) at values of the varied cells:
    one frame of the table's rows through the sheet compiled with the inputs and the varied
    cells as columns; also the model's values per target column, and the measured ones."""
    import polars as pl   # deferred: polars

    from supersheet.engine.compile.values import Source   # deferred: polars
    table = spec.table
    columns = {key: spec.column(column) * table.columns[column].factor for column, key in spec.inputs}
    inputs = {key: Source(key, False, finite=True) for key in [*columns, *spec.vary]}
    program = compile_program(workbook.checked, inputs=inputs, fixed=fixed, baseline=workbook.evaluate(fixed))
    targets = [key for _, key in spec.targets]
    measured = {column: spec.column(column) * table.columns[column].factor for column, _ in spec.targets}
    wanted = np.concatenate([measured[column] for column, _ in spec.targets])
    rows = spec.rows
    names = [f"__target{i}" for i in range(len(targets))]
    selection = [_column_of(program, key).alias(name) for key, name in zip(targets, names)]

    def model_of(values: np.ndarray) -> dict[str, np.ndarray]:
        data: dict[str, Any] = dict(columns)
        data.update({key: np.full(rows, float(v)) for key, v in zip(spec.vary, values)})
        frame = program.apply(program.frame(data, rows), targets, errors=False).select(selection).collect()
        out = {}
        for (column, _), name in zip(spec.targets, names):
            series = frame[name]
            values_ = series.cast(pl.Float64).to_numpy(allow_copy=True).astype(float)
            out[column] = np.full(rows, values_[0]) if len(values_) == 1 and rows > 1 else values_
        return out

    def residuals(values: np.ndarray) -> np.ndarray:
        model = np.concatenate([v for v in model_of(values).values()])
        if spec.relative:
            with np.errstate(divide="ignore", invalid="ignore"):
                return model / wanted - 1.0
        return model - wanted

    if spec.relative and not np.all(wanted != 0):
        column = next(c for c, v in measured.items() if not np.all(v != 0))
        raise FitError(f"column {column} has a 0, and a relative error divides by it",
                       "use error: absolute for this table")
    return residuals, model_of, measured


def _column_of(program, key: str):
    """A target cell's values as an expression: its column, or its value when it does not vary."""
    import polars as pl   # deferred: polars
    source = program.sources[key]
    if source.constant is not None:
        return pl.lit(float(source.constant))
    return pl.col(source.columns)


def block_problem(workbook: Workbook, name: str) -> Problem | None:
    """The first problem of fit `name` found without evaluating it (for `check`), or None."""
    try:
        fit_spec(workbook, name)
    except (AxisError, SolveError) as e:
        return e
    return None
