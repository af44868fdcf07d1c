"""What compiled formulas are made of: a value's expression(s) (`Val`), where a
cell's value comes from (`Source`), a compiled cell, and the elementwise
helpers that broadcast scalars over arrays."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union

import polars as pl

Exprs = Union[pl.Expr, list[pl.Expr]]


@dataclass
class Val:
    """A compiled (sub)expression: one expression, or one per array element."""

    expr: Exprs
    nullable: bool = False
    constant: float | bool | None = None   # known scalar value (a literal or a cell fixed for this program)

    @property
    def is_array(self) -> bool:
        return isinstance(self.expr, list)


@dataclass
class Source:
    """What a cell reads from: its column(s) and whether they may hold errors."""

    columns: str | list[str]
    nullable: bool
    error_column: str | None = None
    constant: float | bool | list | None = None   # the cell's value when it does not vary in this program

    def val(self) -> Val:
        if self.constant is not None:
            if isinstance(self.constant, list):
                return Val([_literal(v) for v in self.constant])
            return Val(_literal(self.constant), constant=self.constant)
        if isinstance(self.columns, list):
            return Val([pl.col(c) for c in self.columns], self.nullable)
        return Val(pl.col(self.columns), self.nullable)

    def exprs(self) -> list[pl.Expr]:
        """The cell's value column(s), by name: a column, or a literal for a constant."""
        names = self.columns if isinstance(self.columns, list) else [self.columns]
        if self.constant is None:
            return [pl.col(c) for c in names]
        values = self.constant if isinstance(self.constant, list) else [self.constant]
        return [_literal(v).alias(c) for v, c in zip(values, names)]


def _literal(value: float | bool) -> pl.Expr:
    return pl.lit(value, dtype=pl.Boolean if isinstance(value, bool) else pl.Float64)


@dataclass
class CompiledCell:
    key: str
    columns: list[tuple[str, pl.Expr]]     # output column name -> expression
    nullable: bool
    error: pl.Expr | None                  # Utf8 error code where the value is null
    source: Source = field(init=False)

    def __post_init__(self) -> None:
        names = [name for name, _ in self.columns]
        single = len(names) == 1 and names[0] == self.key
        self.source = Source(names[0] if single else names, self.nullable,
                             error_column(self.key) if self.nullable else None)


def error_column(key: str) -> str:
    return f"{key}#error"


def element_column(key: str, i: int) -> str:
    return f"{key}[{i}]"


def elementwise(fn: Callable[..., pl.Expr], *vals: Val, nullable: bool = False) -> Val:
    """Apply fn per element, broadcasting scalars over arrays (lengths were checked)."""
    length = next((len(v.expr) for v in vals if isinstance(v.expr, list)), None)
    any_null = nullable or any(v.nullable for v in vals)
    if length is None:
        return Val(fn(*(v.expr for v in vals)), any_null)
    out = []
    for i in range(length):
        out.append(fn(*(v.expr[i] if isinstance(v.expr, list) else v.expr for v in vals)))
    return Val(out, any_null)


def null_if_any(result: Val, inputs: list[Val]) -> Val:
    """Comparisons treat null as false; where an input is an error, so is the result."""
    if not any(v.nullable for v in inputs):
        return result
    exprs: list[pl.Expr] = []
    for v in inputs:
        exprs.extend(v.expr if isinstance(v.expr, list) else [v.expr])
    if len(inputs) == 1 or not result.is_array:
        missing = pl.any_horizontal([e.is_null() for e in exprs])
        return elementwise(lambda r: pl.when(missing).then(None).otherwise(r), result, nullable=True)
    return elementwise(lambda r, *xs: pl.when(pl.any_horizontal([x.is_null() for x in xs])).then(None).otherwise(r),
                       result, *inputs, nullable=True)


def ieee_less(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """a < b as IEEE 754 (and Python) define it: false when either is NaN."""
    return (a < b) & a.is_not_nan() & b.is_not_nan()


def in_unit(expr: pl.Expr, factor: float) -> pl.Expr:
    """units.in_unit on a column: base magnitudes -> the display unit, without
    conversion noise (a typed 0.1 us is written back as 0.1, not 0.09999999999999999).
    The 15-digit rounding is kept only where it converts back to the same double."""
    from supersheet.units.display import EXACT_DIGITS
    quotient = expr / factor
    short = quotient.round_sig_figs(EXACT_DIGITS)
    return pl.when(short * factor == expr).then(short).otherwise(quotient)
