"""The columns of a sweep's result: which cells a sweep shows (`show`, or every
cell of the sheet), each headed `name [unit]` in a display unit chosen once for
the whole sweep (`column_units`, checked without Polars), an error column beside
a cell that can hold errors, and for a cell that depends on random draws its
mean and percentiles over the samples.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from supersheet.engine.compile.evaluate import Program, Scenario
from supersheet.engine.present.headers import error_header, header, split_header
from supersheet.engine.present.present import display_unit, unit_factor
from supersheet.engine.present.report import formula_text
from supersheet.engine.scenarios.axes import AxisError
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.workbook import Workbook
from supersheet.units import DIMENSIONLESS, parse_unit

if TYPE_CHECKING:   # Polars is imported where a column is built, not with this module (sweep.py)
    import numpy as np
    import polars as pl


@dataclass
class Column:
    """One output column of a sweep: its header, source column and unit factor."""
    header: str          # "name [unit]"
    source: str          # frame column (base units)
    factor: float
    is_error: bool = False
    value: pl.Expr | None = None   # the value in base units: the column, or a literal for a constant cell
    statistic: str | None = None   # for a cell that depends on random draws: "mean", "p5", "p50" or "p95"
    typed: bool = False            # values the user wrote (axis values, inputs): written back exactly (9.4)
    is_outside: bool = False       # the violated assumptions of the row (format 9.2): null when none
    over_samples: pl.Expr | None = None   # its aggregation over a row's samples, for a sheet with draws
    replaces: str | None = None    # an axis over a formula cell: the formula its values override
    of: tuple[str, ...] = ()       # an error column's cell's value columns (a sampled sweep counts their nulls)
    shown: np.ndarray | None = None   # an axis's values in the display unit, one per value (`shown_axis`)
    divisor: str | None = None     # the frame column holding `factor` (Program.divisor): None where 1/factor is exact
    constant: float | None = None  # the value, where a cell's is the same in every row: converted once, in Python

    def display(self, convert: bool = True) -> pl.Expr:
        import polars as pl   # deferred: polars

        from supersheet.engine.compile.values import in_unit   # deferred: polars
        if convert and self.shown is not None:   # the frame holds them per row (`Grid.chunk`'s `also`)
            return pl.col(shown_column(self.source)).alias(self.header)
        expr = self.value if self.value is not None else pl.col(self.source)
        if convert and not self.is_error and self.factor != 1.0:
            if self.typed:   # in_unit costs ~20 ns a value (bench/bench_display_exact.py): only where the user typed it
                expr = in_unit(expr, self.factor)
            elif self.constant is not None:   # one value: divided in Python, not 10^6 times in the frame
                expr = pl.lit(self.constant / self.factor)
            else:   # by a column of the factor: Polars multiplies a column of more than a few rows by a literal
                # divisor's reciprocal (1 ulp off, and a row's value would depend on the sweep's length)
                expr = expr / (pl.col(self.divisor) if self.divisor is not None else self.factor)
        return expr.alias(self.header)


def shown_column(key: str) -> str:
    return f"#shown {key}"


def shown_axis(values: np.ndarray, factor: float) -> np.ndarray:
    """An axis's values in the display unit, without conversion noise, as `in_unit` gives
    them (the same Polars operations, so the same doubles), computed once per value instead
    of once per row: a value typed in a unit is on every row of its block."""
    import polars as pl   # deferred: polars

    from supersheet.engine.compile.values import in_unit   # deferred: polars
    return pl.select(in_unit(pl.lit(pl.Series("v", values, pl.Float64)), factor)).to_series().to_numpy()


def shown_axes(columns: list[Column]) -> dict[str, tuple[str, np.ndarray]]:
    """For `Grid.chunk`'s `also`: each axis column shown from its values per value."""
    return {c.source: (shown_column(c.source), c.shown) for c in columns if c.shown is not None}


STATISTICS = ("mean", "p5", "p50", "p95")


def with_statistics(workbook: Workbook, columns: list[Column]) -> list[Column]:
    """Each value column of a cell that depends on random draws becomes its mean and percentiles."""
    out: list[Column] = []
    for column in columns:
        key = column.source.split("[", 1)[0]
        if column.is_error or key not in workbook.checked.uncertain:
            out.append(column)
            continue
        name, unit = split_header(column.header)
        typ = workbook.checked.cells[key].type
        if typ is not None and typ.is_bool:   # a condition over draws: the share of samples where it holds (9.6)
            out.append(Column(header(f"{name} true", "%"), column.source, 1.0, value=column.value, statistic="share"))
            continue
        for statistic in STATISTICS:
            label = name if statistic == "mean" else f"{name} {statistic}"
            out.append(Column(header(label, unit), column.source, column.factor, value=column.value, statistic=statistic,
                              divisor=column.divisor))
    return out


def shown_keys(workbook: Workbook, grid: Grid, show: list[str] | None) -> list[str]:
    axis_keys = {a.key for a in grid.axes}
    if show is None:
        return [c.key for c in workbook.model.cells.values()   # assumptions show as the `outside` column
                if not c.scope.prefix and c.key not in axis_keys and c.kind != "assume"]
    keys = []
    for name in show:
        key = workbook.key_for(name)
        if key is None:
            raise AxisError.of(workbook.unknown_cell(name, by="'show'"))
        if key not in axis_keys and key not in keys:  # an axis is already a column; a cell is shown once
            keys.append(key)
    return keys


def column_units(workbook: Workbook, grid: Grid, show: list[str] | None, units: dict[str, str | None],
                 baseline: Scenario) -> None:
    """The display unit of each column (axes, then shown cells) into `units`: the first plan
    of a sweep chooses; a later one (an import axis) whose cell has another dimension is E-UNIT."""
    checked = workbook.checked
    keys = [axis.cell_key for axis in grid.axes if not axis.is_import]
    keys += [k for k in shown_keys(workbook, grid, show) if checked.cells[k].type is not None]
    for key in keys:
        if key not in units:
            units[key] = display_unit(checked, key, _representative(checked, baseline, key))
        elif not _unit_fits(checked, key, units[key]):   # an import axis changed the cell's dimension
            cell_type = checked.cells[key].type
            assert cell_type is not None, "_unit_fits holds for a cell without a type"
            kind = cell_type.describe()
            raise AxisError("E-UNIT", f"{key} is {kind} here but {units[key] or 'dimensionless'} in the rows "
                            "before: one column holds one unit", "sweep these imports separately")


def output_columns(workbook: Workbook, program: Program, grid: Grid, show: list[str] | None,
                   units: dict[str, str | None], baseline, picks: dict[str, int]) -> list[Column]:
    """The plan's columns, each in the unit `column_units` chose (into `units`)."""
    import polars as pl   # deferred: polars
    columns: list[Column] = []
    for axis in grid.axes:
        if axis.is_import:
            continue
        unit = units[axis.cell_key]
        value = None
        if axis.structural:  # fixed in this plan: a literal column
            magnitude = axis.values[picks[axis.name]]
            value = pl.lit(bool(magnitude) if axis.values.dtype == bool else float(magnitude))
        cell = workbook.model.cells[axis.cell_key]
        factor = unit_factor(unit)
        shown = shown_axis(axis.values, factor) if value is None and factor != 1.0 and \
            axis.values.dtype.kind == "f" else None
        columns.append(Column(header(axis.name, unit), axis.cell_key, factor, value=value,
                              typed=True, replaces=formula_text(cell) if cell.kind == "formula" else None,
                              shown=shown))
    for key in shown_keys(workbook, grid, show):
        source = program.sources.get(key)
        if source is None:
            continue
        unit = units[key]
        names = source.columns if isinstance(source.columns, list) else [source.columns]
        constants = source.constant if isinstance(source.constant, list) else [source.constant] * len(names)
        for i, (column, value, constant) in enumerate(zip(names, source.exprs(), constants)):
            label = key if not isinstance(source.columns, list) else f"{key}[{i}]"
            typed = workbook.model.cells[key].kind == "input"
            factor = unit_factor(unit)
            constant = constant if isinstance(constant, float) and not typed else None
            columns.append(Column(header(label, unit), column, factor, value=value, typed=typed, constant=constant,
                                  divisor=None if typed or constant is not None else program.divisor(factor)))
        if source.error_column:
            columns.append(Column(error_header(key), source.error_column, 1.0, is_error=True, of=tuple(names)))
    return columns


def _unit_fits(checked, key: str, unit: str | None) -> bool:
    cell_type = checked.cells[key].type if key in checked.cells else None
    if cell_type is None or cell_type.is_bool:
        return True
    return cell_type.dims == (parse_unit(unit).dimensions if unit else DIMENSIONLESS)


def _representative(checked, baseline, key: str, depth: int = 0) -> float | None:
    """The magnitude that picks a column's display unit: the cell's own value, or, where the
    sheet's own scenario holds an error there (#DIV/0 at n = 0), that of a precedent of the
    same dimension (`after = total / n` is shown in total's GB, as `run` shows it at other n)."""
    sample = _sample(baseline.values.get(key))
    cell = checked.cells.get(key)
    if sample is not None or cell is None or cell.type is None or depth > 20:
        return sample
    for dep in cell.deps:
        other = checked.cells.get(dep)
        if other is not None and other.type is not None and other.type.dims == cell.type.dims:
            found = _representative(checked, baseline, dep, depth + 1)
            if found is not None:
                return found
    return None


def _sample(value: Any) -> float | None:
    """A representative magnitude for choosing a compact display unit."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, float)), None)
    return abs(value) if isinstance(value, float) else None
