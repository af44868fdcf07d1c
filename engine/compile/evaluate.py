"""Run a checked sheet: one scenario (a one-row frame) or many (a sweep frame).

One scenario is evaluated cell by cell with Python floats (scalar.py): no
plan to build, and re-evaluating after an edit touches only the dependents.
Many rows (sweeps, samples, goal seeking) are a `Program`: the compiled sheet
for one set of overrides, the cells to compute in dependency layers, each
layer one `with_columns`. Overridden cells (`--set`, sweep axes, goal-seek
variables) become inputs: their column comes from the frame and their own
formula is skipped.

Polars is imported only where a plan is built, so `calc`, `check` and a
one-row `run` start without it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from supersheet.engine.base.gcpause import without_cycle_collection
from supersheet.engine.base.patched import Patched
from supersheet.engine.check.checked import Checked, layer_over
from supersheet.engine.compile.errorcodes import ERROR
from supersheet.engine.compile.scalar import ErrorValue, Scalar, Unsupported, Value, Walker, error_code, evaluate_cells
from supersheet.engine.formula import ast as A
from supersheet.units import convert
import functools
import os

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.compile.compile import Compiler
    from supersheet.engine.compile.values import CompiledCell, Source

__all__ = ["ErrorValue", "Scalar", "Value", "error_code", "Program", "Scenario", "compile_program", "evaluate",
           "reevaluate", "read_value", "literal_for"]


@dataclass
class Program:
    """A checked sheet compiled to Polars expressions, in dependency layers."""
    checked: Checked
    compiled: dict[str, CompiledCell]
    layers: list[list[str]]
    inputs: dict[str, Source]                      # cells read from the frame
    sources: dict[str, Source] = field(default_factory=dict)
    divisors: dict[str, float] = field(default_factory=dict)   # constant divisors, as columns (exact division)

    def compiler(self, checked: Checked | None = None) -> Compiler:
        """A compiler for free formulas (where, require, goal) over this program's cells;
        `checked` is the formula's own result (the sheet's seen with it: scenarios/expression.py)."""
        from supersheet.engine.compile.compile import Compiler   # deferred: polars
        return Compiler(checked or self.checked, self.sources, divisors=self.divisors)

    def divisor(self, value: float) -> str | None:
        """The frame column holding `value` for an exact division by it (a display unit's
        factor: sweep_columns.py), registered as the formulas' constant divisors are; None
        where the product with its reciprocal is exact (a power of two, 1 among them)."""
        from supersheet.engine.compile.compile import divisor_column, exact_reciprocal   # deferred: polars
        if exact_reciprocal(value):
            return None
        column = divisor_column(value)
        self.divisors[column] = value
        return column

    def frame(self, columns: dict[str, Any], rows: int, tiles: list[int] | None = None) -> pl.LazyFrame:
        """The input frame: `columns` (axes, samples) plus the constant-divisor columns,
        cut as `columns` are where they are tiles of these lengths (scenarios/tiling.py)."""
        import numpy as np   # deferred: numpy
        import polars as pl   # deferred: polars
        data: dict[str, Any] = dict(columns) if columns else {"__row": np.zeros(rows)}
        data.update({name: constant_column(value, rows, tiles) for name, value in self.divisors.items()})
        return pl.LazyFrame(data)

    def apply(self, frame: pl.LazyFrame, keys: Iterable[str] | None = None, errors: bool = True,
              masked: bool = True, given: frozenset[str] = frozenset()) -> pl.LazyFrame:
        """Add the columns of `keys` (default: every cell) and what they need;
        with `errors`, also each nullable cell's error-code column. The cells `given`
        are not computed: the frame holds their columns where they are read.

        With `masked` (what every reader wants) a number cell's column is null
        where the cell is #NUM; without, it holds the inf or NaN there (values.py):
        a reader that checks its own output for non-finite numbers saves the pass."""
        import polars as pl   # deferred: polars
        needed = self.needed(keys) if keys is not None else None
        missing = [name for name in self.divisors if name not in frame.collect_schema().names()]
        if missing:   # a frame not built by frame(): materialise the divisors (a literal would stay a scalar)
            zero = pl.int_range(pl.len()).cast(pl.Float64) * 0.0
            frame = frame.with_columns((zero + self.divisors[name]).alias(name) for name in missing)
        for layer in self.layers:
            exprs: list[pl.Expr] = []
            for key in layer:
                if (needed is not None and key not in needed) or key in given:
                    continue
                compiled = self.compiled[key]
                exprs.extend(expr for _, expr in compiled.columns)
                if errors and compiled.error is not None:
                    exprs.append(compiled.error)
                    exprs.extend(compiled.element_errors)
            if exprs:
                frame = frame.with_columns(exprs)
        if masked:
            masks = [e for key, cell in self.compiled.items() if cell.unmasked and (needed is None or key in needed)
                     and key not in given for e in cell.masked()]
            if masks:
                frame = frame.with_columns(masks)
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


def constant_column(value: float, rows: int, tiles: list[int] | None = None) -> pl.Series:
    """A column holding `value` in each of `rows` rows (a constant divisor: a literal would be a
    product with its reciprocal). One block of a streaming morsel's rows (or of each of `tiles`,
    the lengths the frame's other columns are cut in), repeated as chunks that share it, not
    copied: an exact division reads the same block again and again from the cache, where a
    full column cost a page fault per 4 KiB and a pass of memory per divisor (~13 % of a
    10^6-row sweep of 6.2.2's decode step, with two)."""

    import polars as pl   # deferred: polars
    key = float(value).hex()
    if tiles:
        blocks = [_constant_block(key, length) for length in tiles]
        return blocks[0] if len(blocks) == 1 else pl.concat(blocks, rechunk=False)
    tile = morsel_rows()
    block = _constant_block(key, min(rows, tile))
    if rows <= tile:
        return block
    whole, rest = divmod(rows, tile)
    return pl.concat([block] * whole + ([block.head(rest)] if rest else []), rechunk=False)


@functools.lru_cache(maxsize=32)
def _constant_block(value: str, rows: int) -> pl.Series:
    """One block of a constant (by its exact text: -0.0 is not 0.0), kept: the next sweep
    reads the same constants, and a block made anew cost a page fault per 4 KiB."""
    import numpy as np   # deferred: numpy
    import polars as pl   # deferred: polars
    return pl.Series(np.full(rows, float.fromhex(value)))


MORSEL_ROWS = 100_000   # the rows of a morsel in Polars' streaming engine, unless POLARS_IDEAL_MORSEL_SIZE says


def morsel_rows() -> int:
    return int(os.environ.get("POLARS_IDEAL_MORSEL_SIZE") or MORSEL_ROWS)


def compile_program(checked: Checked, inputs: dict[str, Source] | None = None,
                    fixed: dict[str, A.Node] | None = None, baseline: "Scenario | None" = None,
                    samples: dict[A.Node, str | list[str]] | None = None, sample_group: str | None = None) -> Program:
    """Compile every evaluable cell. `inputs` are cells read from frame columns
    (sweep axes); `fixed` replaces a cell's formula by a literal (--set).

    With a `baseline` scenario (evaluated with the same `fixed`), every cell
    that does not depend on an input column is a constant: it is inlined as a
    literal, never materialised as a column, and divisions by it need no guard."""
    from supersheet.engine.compile.compile import Compiler   # deferred: polars
    from supersheet.engine.compile.values import Source, element_column   # deferred: polars
    inputs = inputs or {}
    fixed = fixed or {}
    sources: dict[str, Source] = dict(inputs)
    compiled: dict[str, CompiledCell] = {}
    level: dict[str, int] = {}
    divisors: dict[str, float] = {}
    compiler = Compiler(checked, sources, samples, divisors)
    compiler.sample_group = sample_group
    varying = set(inputs) | (checked.uncertain | checked.reduced if samples else set())
    for key in checked.order:
        if key in inputs:
            level[key] = -1
            continue
        if checked.cells[key].type is None:
            continue
        if baseline is not None and key not in fixed and key not in varying \
                and not any(d in varying for d in checked.cells[key].deps):
            value = baseline.values.get(key)
            # (isinstance narrows a scalar error for mypy; _is_error finds an error among an array's elements)
            if value is not None and not isinstance(value, ErrorValue) and not _is_error(value):
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
    """The values of every cell in one scenario, in base-unit magnitudes, and
    the formula overrides (`--set`) it was evaluated with."""

    checked: Checked
    values: Mapping[str, Value]     # a dict; after `reevaluate` a read-only `Patched` view of the values before
    fixed: dict[str, A.Node] = field(default_factory=dict)

    def has_errors(self) -> bool:
        return any(_is_error(v) for v in self.values.values())


def _is_error(value: Value) -> bool:
    return error_code(value) is not None


@without_cycle_collection
def evaluate(checked: Checked, fixed: dict[str, A.Node] | None = None) -> Scenario:
    """Evaluate one scenario of a checked sheet."""
    fixed = dict(fixed or {})
    values: dict[str, Value] = {key: None for key in checked.model.cells}
    try:
        evaluate_cells(checked, checked.order, values, fixed)
    except Unsupported:
        values = evaluate_with_polars(checked, fixed)
    return Scenario(checked, values, fixed)


def evaluate_with_polars(checked: Checked, fixed: dict[str, A.Node] | None = None) -> dict[str, Value]:
    """The same scenario as a one-row Polars plan (formulas the scalar path does not know)."""
    program = compile_program(checked, fixed=fixed)
    row = program.apply(program.frame({}, 1)).collect().row(0, named=True)
    return {key: read_value(program, key, row) for key in checked.model.cells}


def evaluate_expression(scenario: Scenario, node: A.Node) -> Value:
    """A free formula of a checked sheet (names bound by the checker) over a scenario's values."""
    try:
        return Walker(scenario.checked, scenario.values).value(node)
    except Unsupported:
        program = compile_program(scenario.checked, fixed=scenario.fixed)
        value = program.compiler().compile_expression(node)[0].expr
        exprs = value if isinstance(value, list) else [value]
        row = program.apply(program.frame({}, 1)).select(e.alias(f"v{i}") for i, e in enumerate(exprs)).collect().row(0)
        items: list[Scalar] = [ErrorValue(ERROR) if v is None else v for v in row]
        return items if isinstance(value, list) else items[0]


def read_value(program: Program, key: str, row: dict[str, Any]) -> Value:
    source = program.sources.get(key)
    if source is None:
        return None
    error = row.get(source.error_column) if source.error_column else None
    if isinstance(source.columns, list):
        out: list[Scalar] = []
        codes = [row.get(c) for c in source.element_errors] if source.element_errors else [error] * len(source.columns)
        for column, code in zip(source.columns, codes):
            value = row[column]
            out.append(ErrorValue(code or ERROR) if value is None else value)
        return out
    value = row[source.columns]
    if value is None:
        return ErrorValue(error or ERROR)
    return value


def reevaluate(scenario: Scenario, changed: dict[str, A.Node | None]) -> tuple[Scenario, list[str]]:
    """Recompute only `changed` cells (a new formula, or None: the cell's own)
    and their dependents, reading every other cell's value from `scenario`.

    The cost is that of the cells recomputed (a reverse-dependency index finds
    them), not of the sheet; returns the new scenario and the keys recomputed."""
    checked = scenario.checked
    fixed = {**scenario.fixed, **{k: v for k, v in changed.items() if v is not None}}
    for key, node in changed.items():
        if node is None:
            fixed.pop(key, None)
    affected = affected_cells(checked, changed)
    new: dict[str, Value] = {}     # the values computed; the others are read from the scenario, not copied
    try:
        recomputed = evaluate_cells(checked, affected, layer_over(new, scenario.values), fixed)
    except Unsupported:
        values = evaluate_with_polars(checked, fixed)
        return Scenario(checked, values, fixed), [k for k in affected if k in values]
    return Scenario(checked, Patched.over(scenario.values, new), fixed), recomputed


def affected_cells(checked: Checked, changed: Iterable[str]) -> list[str]:
    """`changed` and every cell downstream of them, in evaluation order."""
    users, position = checked.users, checked.position
    seen = {key for key in changed if key in position}
    stack = list(seen)
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return sorted(seen, key=position.__getitem__)


def literal_for(value: float, unit: str | None) -> A.Number:
    """A literal node holding a base-unit magnitude (for overrides built in code)."""
    return A.Number(convert(value, unit) if unit else value, unit, (0, 0))
