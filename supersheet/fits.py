"""Fits on a `Sheet` (`fit:` blocks): what `Sheet.fit` and `supersheet fit` run.

`fit_named` runs a fit the sheet defines and gives a `Fitted`: each varied
cell's value and standard error in its display unit, the table's rows with the
model beside them and the error of each (relative, in %, or absolute, in the
column's unit), the RMS and worst error, and a warning for a value that sits
on its bound. It renders as the command prints it (text, JSON, CSV);
`residuals()` is the same rows as a Polars frame. A fit that cannot run raises
`SolveError` (E-SOLVE, at the fit's name), one that does not fit its sheet an
`AxisError`, both `supersheet.errors.Problem`s.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import AxisError, SolveError
from supersheet.engine.present.headers import header

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.scenarios.fit import FitResult
    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle

__all__ = ["AxisError", "Fitted", "FittedValue", "SolveError", "fit_named", "fit_names"]

TEXT_ROWS = 40      # rows `supersheet fit` prints as text; JSON and CSV have every row


@dataclass(frozen=True)
class FittedValue:
    """One varied cell's answer: `value` and `error` (one standard error) in `unit`; `on_bound`
    when it sits on a bound (the data would have it beyond: the model or the bounds are off)."""
    name: str
    value: float
    error: float
    unit: str | None
    on_bound: bool

    @property
    def display(self) -> str:
        from supersheet.units import format_number   # deferred: units (slow to import)
        unit = f" {self.unit}" if self.unit else ""
        error = "± ?" if self.error != self.error else f"± {format_number(self.error, 2)}"
        return f"{format_number(self.value, 6)}{unit} {error}{unit if self.error == self.error else ''}"


@dataclass(frozen=True)
class Fitted:
    """A fit's answer (see the module's doc); `result` is the engine's, in base units."""
    name: str
    workbook: Workbook
    result: FitResult

    @property
    def values(self) -> list[FittedValue]:
        from supersheet.engine.present.present import display_unit, unit_factor   # deferred: ruamel
        out = []
        for key, value in self.result.values.items():
            unit = display_unit(self.workbook.checked, key, abs(value) or None)
            factor = unit_factor(unit)
            out.append(FittedValue(key, value / factor, self.result.errors[key] / factor, unit,
                                   key in self.result.on_bound))
        return out

    @property
    def relative(self) -> bool:
        return self.result.spec.relative

    def quantities(self) -> dict[str, Any]:
        """name -> the fitted value as a Pint quantity (a plain float when dimensionless)."""
        return {v.name: _quantity(v.value, v.unit) for v in self.values}

    def errors(self) -> dict[str, Any]:
        """name -> its standard error as a Pint quantity (nan when the data cannot tell it)."""
        return {v.name: _quantity(v.error, v.unit) for v in self.values}

    def warnings(self) -> list[str]:
        out = []
        for v, key in zip(self.values, self.result.values):
            if v.on_bound:
                index = self.result.spec.vary.index(key)
                low, high = self.result.spec.block.vary[index].bounds or (None, None)
                end = low if abs(self.result.values[key] - self.result.spec.low[index]) <= \
                    abs(self.result.values[key] - self.result.spec.high[index]) else high
                out.append(f"{v.name} sits on its bound {end.text if end else ''}: the data would have it beyond; "
                           f"widen the bound or check the model")
            if v.error != v.error:
                out.append(f"{v.name} has no standard error: the rows cannot tell it apart from the other varied "
                           f"cells ({len(self.result.values)} varied, {self.result.rows} rows)")
        return out

    def columns(self) -> list[tuple[str, str | None, list[float]]]:
        """The rows as columns: each input column, then per target its measured value, the model
        and the error — `(header name, unit, values)` in the table's units."""
        spec, result = self.result.spec, self.result
        table = spec.table
        out: list[tuple[str, str | None, list[float]]] = []
        for column, _ in spec.inputs:
            data = table.columns[column]
            out.append((column, data.unit, [float(v) for v in spec.column(column)]))
        for column, key in spec.targets:
            data = table.columns[column]
            out.append((column, data.unit, [float(v) for v in spec.column(column)]))
            model = result.model[column] / data.factor
            out.append((key, data.unit, [float(v) for v in model]))
            errors = result.residuals[column] * (100.0 if self.relative else 1.0 / data.factor)
            out.append((f"{column} error", "%" if self.relative else data.unit, [float(v) for v in errors]))
        return out

    def residuals(self) -> pl.DataFrame:
        """The rows as a Polars frame, headed `name [unit]` as a sweep's columns are."""
        import polars as pl   # deferred: polars

        return pl.DataFrame({header(name, unit): values for name, unit, values in self.columns()})

    def summary(self) -> dict[str, Any]:
        result = self.result
        scale = 100.0 if self.relative else 1.0
        column, row, worst = result.worst
        unit = "%" if self.relative else self.result.spec.table.columns[column].unit
        factor = 1.0 if self.relative else self.result.spec.table.columns[column].factor
        return {"rms": result.rms * scale / factor, "worst": worst * scale / factor, "worst_row": row + 1,
                "worst_column": column, "unit": unit, "table_rows": result.rows, "evaluations": result.evaluations,
                "seconds": result.seconds}

    def render(self, format: str = "text") -> str:
        """As `supersheet fit` prints it: `text` (the values, then the rows: the first 40), `json`
        (everything) or `csv` (the rows, headed `name [unit]`)."""
        if format == "csv":
            return self.residuals().write_csv().rstrip("\n")
        if format == "json":
            return json.dumps({
                "schema": "supersheet-fit/1", "fit": self.name, "table": self.result.spec.table.name,
                "error": "relative" if self.relative else "absolute",
                "values": [{"name": v.name, "value": v.value, "error": v.error if v.error == v.error else None,
                            "unit": v.unit, "on_bound": v.on_bound} for v in self.values],
                **{k: v for k, v in self.summary().items() if k != "seconds"},
                "warnings": self.warnings(),
                "columns": [{"name": n, "unit": u} for n, u, _ in self.columns()],
                "rows": [list(r) for r in zip(*(values for _, _, values in self.columns()))],
            }, indent=2, ensure_ascii=False, allow_nan=False, default=_no_nan)
        return self.text()

    def text(self) -> str:
        from supersheet.units import format_number   # deferred: units (slow to import)
        spec, s = self.result.spec, self.summary()
        cells = f"{len(spec.vary)} cell{'s' if len(spec.vary) != 1 else ''}"
        lines = [f"fit {self.name}: {cells} to {spec.rows:,} rows of {spec.table.name} "
                 f"({spec.table.path.name}), {'relative' if self.relative else 'absolute'} error"]
        width = max(len(v.name) for v in self.values) + 2
        lines += [f"  {v.name:<{width}}{v.display}" for v in self.values]
        lines.append(f"rms error {format_number(s['rms'], 3)} {s['unit']}, worst {format_number(s['worst'], 3)} "
                     f"{s['unit']} (row {s['worst_row']}, {s['worst_column']})")
        lines += [f"warning: {w}" for w in self.warnings()]
        lines.append("")
        columns = self.columns()
        headers = [f"{n} [{u}]" if u else n for n, u, _ in columns]
        shown = min(TEXT_ROWS, spec.rows)
        rows = [[format_number(values[i]) for _, _, values in columns] for i in range(shown)]
        widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]
        lines.append("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
        lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
        if spec.rows > shown:
            lines.append(f"… {spec.rows - shown:,} more rows (--format csv or json for every row)")
        return "\n".join(lines)


def _quantity(value: float, unit: str | None) -> Any:
    from .quantities import pint_unit   # deferred: ruamel
    return value * pint_unit(unit) if unit else value


def _no_nan(value: Any) -> Any:
    return None


def fit_names(sheet: SheetHandle) -> list[str]:
    """The fits the sheet defines (for a message that lists them)."""
    from supersheet.engine.scenarios.fit import fit_names as names   # deferred: numpy, ruamel
    return names(_workbook(sheet))


def fit_named(sheet: SheetHandle, name: str) -> Fitted:
    """Run the sheet's fit `name`. SolveError (at the fit's name) when it cannot run or find an answer."""
    from supersheet.engine.scenarios.fit import run_fit   # deferred: numpy, ruamel
    workbook = _workbook(sheet)
    try:
        result = run_fit(workbook, name)
    except AxisError as e:   # as `supersheet check` reports it: at its place, naming the fit
        raise AxisError.of(e.at(None, f"fit {name!r}: ")) from None
    except SolveError as e:
        entry = workbook.model.root.fit.get(name) if workbook.model.root else None
        raise SolveError.of(e.at(entry.span if entry else None, f"fit {name!r}: ")) from None
    return Fitted(name, workbook, result)


def _workbook(sheet: SheetHandle) -> Workbook:
    """The sheet as written with its inputs: what a fit evaluates."""
    return sheet.written_workbook
