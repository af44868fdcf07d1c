"""Run a checked sheet: one scenario (a one-row frame) or many (a sweep frame).

A `Program` is the compiled sheet for one set of overrides: the cells to
compute in dependency layers, each layer one `with_columns`. Overridden cells
(`--set`, sweep axes, goal-seek variables) become inputs: their column comes
from the frame and their own formula is skipped.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

import polars as pl

from units import parse_unit

from . import ast as A
from .check import Checked
from .compile import Compiler
from .values import CompiledCell, Source, element_column
from .graph import dependents


@dataclass(frozen=True, slots=True)
class ErrorValue:
    code: str

    def __str__(self) -> str:
        return self.code


Scalar = float | bool | ErrorValue
Value = Scalar | list[Scalar] | None   # None: the cell could not be evaluated (invalid sheet)


@dataclass
class Program:
    checked: Checked
    compiled: dict[str, CompiledCell]
    layers: list[list[str]]
    inputs: dict[str, Source]                      # cells read from the frame
    sources: dict[str, Source] = field(default_factory=dict)
    divisors: dict[str, float] = field(default_factory=dict)   # constant divisors, as columns (exact division)

    def compiler(self) -> Compiler:
        """A compiler for free formulas (where, require, goal) over this program's cells."""
        return Compiler(self.checked, self.sources, divisors=self.divisors)

    def frame(self, columns: dict[str, Any], rows: int) -> pl.LazyFrame:
        """The input frame: `columns` (axes, samples) plus the constant-divisor columns."""
        data: dict[str, Any] = dict(columns) if columns else {"__row": np.zeros(rows)}
        data.update({name: np.full(rows, value) for name, value in self.divisors.items()})
        return pl.LazyFrame(data)

    def apply(self, frame: pl.LazyFrame, keys: Iterable[str] | None = None, errors: bool = True) -> pl.LazyFrame:
        """Add the columns of `keys` (default: every cell) and what they need;
        with `errors`, also each nullable cell's error-code column."""
        needed = self.needed(keys) if keys is not None else None
        missing = [name for name in self.divisors if name not in frame.collect_schema().names()]
        if missing:   # a frame not built by frame(): materialise the divisors (a literal would stay a scalar)
            zero = pl.int_range(pl.len()).cast(pl.Float64) * 0.0
            frame = frame.with_columns((zero + self.divisors[name]).alias(name) for name in missing)
        for layer in self.layers:
            exprs: list[pl.Expr] = []
            for key in layer:
                if needed is not None and key not in needed:
                    continue
                compiled = self.compiled[key]
                exprs.extend(expr for _, expr in compiled.columns)
                if errors and compiled.error is not None:
                    exprs.append(compiled.error)
            if exprs:
                frame = frame.with_columns(exprs)
        return frame

    def needed(self, keys: Iterable[str]) -> set[str]:
        needed: set[str] = set()
        stack = [k for k in keys if k in self.compiled]
        while stack:
            key = stack.pop()
            if key in needed:
                continue
            needed.add(key)
            stack.extend(d for d in self.checked.cells[key].deps if d in self.compiled and d not in needed)
        return needed


def compile_program(checked: Checked, inputs: dict[str, Source] | None = None,
                    fixed: dict[str, A.Node] | None = None, baseline: "Scenario | None" = None,
                    samples: dict[int, str | list[str]] | None = None) -> Program:
    """Compile every evaluable cell. `inputs` are cells read from frame columns
    (sweep axes); `fixed` replaces a cell's formula by a literal (--set).

    With a `baseline` scenario (evaluated with the same `fixed`), every cell
    that does not depend on an input column is a constant: it is inlined as a
    literal, never materialised as a column, and divisions by it need no guard."""
    inputs = inputs or {}
    fixed = fixed or {}
    sources: dict[str, Source] = dict(inputs)
    compiled: dict[str, CompiledCell] = {}
    level: dict[str, int] = {}
    divisors: dict[str, float] = {}
    compiler = Compiler(checked, sources, samples, divisors)
    varying = set(inputs) | (checked.uncertain if samples else set())
    for key in checked.order:
        if key in inputs:
            level[key] = -1
            continue
        if checked.cells[key].type is None:
            continue
        if baseline is not None and key not in fixed and key not in varying \
                and not any(d in varying for d in checked.cells[key].deps):
            value = baseline.values.get(key)
            if value is not None and not _is_error(value):
                sources[key] = Source(key if not isinstance(value, list) else
                                      [element_column(key, i) for i in range(len(value))], False, constant=value)
                continue
        varying.add(key)
        if key in fixed:
            cell = compiler.compile_cell(key, fixed[key])
            level[key] = 0
        else:
            deps = checked.cells[key].deps
            if any(d not in sources for d in deps):
                continue
            cell = compiler.compile_cell(key)
            level[key] = 1 + max((level.get(d, -1) for d in deps), default=-1)
        compiled[key] = cell
        sources[key] = cell.source
    layers: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for key in compiled:
        layers[level[key]].append(key)
    return Program(checked, compiled, [layer for layer in layers if layer], inputs, sources, divisors)


@dataclass
class Scenario:
    """The values of every cell in one scenario, in base-unit magnitudes."""

    checked: Checked
    values: dict[str, Value]
    program: Program

    def has_errors(self) -> bool:
        return any(_is_error(v) for v in self.values.values())


def error_code(value: Value) -> str | None:
    """The error code a value holds (the first, for an array), or None."""
    if isinstance(value, ErrorValue):
        return value.code
    if isinstance(value, list):
        return next((v.code for v in value if isinstance(v, ErrorValue)), None)
    return None


def _is_error(value: Value) -> bool:
    return error_code(value) is not None


def evaluate(checked: Checked, fixed: dict[str, A.Node] | None = None) -> Scenario:
    """Evaluate one scenario of a checked sheet."""
    program = compile_program(checked, fixed=fixed)
    frame = program.apply(program.frame({}, 1)).collect()
    row = frame.row(0, named=True)
    values = {key: read_value(program, key, row) for key in checked.model.cells}
    return Scenario(checked, values, program)


def read_value(program: Program, key: str, row: dict[str, Any]) -> Value:
    source = program.sources.get(key)
    if source is None:
        return None
    error = row.get(source.error_column) if source.error_column else None
    if isinstance(source.columns, list):
        out: list[Scalar] = []
        for column in source.columns:
            value = row[column]
            out.append(ErrorValue(error or "#ERROR") if value is None else value)
        return out
    value = row[source.columns]
    if value is None:
        return ErrorValue(error or "#ERROR")
    return value


def reevaluate(scenario: Scenario, changed: dict[str, A.Node]) -> tuple[Scenario, list[str]]:
    """Recompute only the dependents of `changed` cells (new literal values).

    The unchanged cells enter as one-row literal columns, so the cost is that of
    the dependents alone; returns the new scenario and the keys recomputed."""
    checked = scenario.checked
    program = scenario.program
    affected = set(changed) | set(dependents(set(changed), {k: checked.cells[k].deps for k in checked.cells},
                                             checked.order))
    fixed_inputs: dict[str, pl.Series] = {}
    sources: dict[str, Source] = {}
    for key, source in program.sources.items():
        if key in affected:
            continue
        sources[key] = source
        value = scenario.values.get(key)
        for column, item in _columns_of(source, value):
            fixed_inputs[column] = item
    compiler = Compiler(checked, sources, divisors=program.divisors)
    exprs_by_layer: list[list[pl.Expr]] = []
    level: dict[str, int] = {}
    new_sources = dict(sources)
    compiled: dict[str, CompiledCell] = {}
    for key in checked.order:
        if key not in affected or checked.cells[key].type is None:
            continue
        compiler.sources = new_sources
        node = changed.get(key)
        if node is None and any(d not in new_sources for d in checked.cells[key].deps):
            continue
        cell = compiler.compile_cell(key, node)
        compiled[key] = cell
        new_sources[key] = cell.source
        deps = checked.cells[key].deps if node is None else ()
        level[key] = 1 + max((level.get(d, -1) for d in deps), default=-1)
        while len(exprs_by_layer) <= level[key]:
            exprs_by_layer.append([])
        exprs_by_layer[level[key]].extend(e for _, e in cell.columns)
        if cell.error is not None:
            exprs_by_layer[level[key]].append(cell.error)
    frame = program.frame(fixed_inputs, 1)
    for exprs in exprs_by_layer:
        if exprs:
            frame = frame.with_columns(exprs)
    row = frame.collect().row(0, named=True)
    values = dict(scenario.values)
    for key in compiled:
        values[key] = read_value(Program(checked, compiled, [], {}, new_sources), key, row)
    merged = dict(program.compiled)
    merged.update(compiled)
    new_program = Program(checked, merged, program.layers, program.inputs, {**program.sources, **new_sources},
                          program.divisors)
    return Scenario(checked, values, new_program), [k for k in checked.order if k in compiled]


def _columns_of(source: Source, value: Value) -> list[tuple[str, pl.Series]]:
    out: list[tuple[str, pl.Series]] = []
    columns = source.columns if isinstance(source.columns, list) else [source.columns]
    items = value if isinstance(value, list) else [value]
    error: str | None = None
    for column, item in zip(columns, items):
        if isinstance(item, ErrorValue):
            error = item.code
            item = None
        dtype = pl.Boolean if isinstance(item, bool) else pl.Float64
        out.append((column, pl.Series(column, [item], dtype=dtype)))
    if source.error_column:
        out.append((source.error_column, pl.Series(source.error_column, [error], dtype=pl.String)))
    return out


def literal_for(value: float, unit: str | None) -> A.Number:
    """A literal node holding a base-unit magnitude (for overrides built in code)."""
    factor = parse_unit(unit).factor if unit else 1.0
    return A.Number(value / factor, unit, (0, 0))
