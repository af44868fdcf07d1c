"""What compiled formulas are made of: a value's expression(s) (`Val`), where a
cell's value comes from (`Source`), a formula's error sites (`Sites`), a compiled
cell, and the elementwise helpers that broadcast scalars over arrays.

A number cell's column is not masked where its value is not finite (that
would cost a pass over every cell's column): it holds the inf or NaN, and its
error column #NUM. So a value that read such a cell remembers which
(`Val.raw`): arithmetic carries a non-finite number on as one (inf + 1, inf * 0),
but an operation that could turn it into a finite value (1 / inf, exp(-inf),
x ^ 0, a comparison, min/max/clamp, the branch `if` picks, a reduction) first
masks its operand to null where a cell it read is not finite (`guarded`),
as if that cell had been null — or, cheaper where the result is a number,
makes its result NaN there (`poisoned`: a #NUM either way). Whoever reads a
cell's column masks it, or takes the columns of `Program.apply(...,
masked=True)`, which are null wherever the cell is an error."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Union

import polars as pl

from supersheet.engine.compile.bounds import Bounds, of_values

Exprs = Union[pl.Expr, list[pl.Expr]]
Raw = Union[frozenset, list]   # frozenset[str], or one per array element
NO_RAW: frozenset[str] = frozenset()


@dataclass
class Val:
    """A compiled (sub)expression: one expression, or one per array element."""

    expr: Exprs
    nullable: bool = False
    constant: float | bool | None = None   # known scalar value (a literal or a cell fixed for this program)
    raw: Raw = NO_RAW   # the unmasked cell columns it read (a non-finite number there is that cell's #NUM)
    finite: bool = False   # known to be no NaN or inf in any row (a literal, a sweep's axis, a masked read)
    nonzero: bool = False  # known not to be 0 in any row (a sweep's axis without 0)
    bounds: Bounds | None = None   # a scalar number: what every non-null row lies between (bounds.py)

    @property
    def is_array(self) -> bool:
        return isinstance(self.expr, list)

    def raw_at(self, i: int) -> frozenset[str]:
        """The unmasked columns element i read (a scalar's for every element)."""
        return self.raw[i] if isinstance(self.raw, list) else self.raw

    def all_raw(self) -> frozenset[str]:
        return frozenset().union(*self.raw) if isinstance(self.raw, list) else self.raw

    def scalar_expr(self) -> pl.Expr:
        """The one expression of a scalar (the checker's types say which values are arrays)."""
        assert not isinstance(self.expr, list)
        return self.expr

    def element_exprs(self) -> list[pl.Expr]:
        """The expressions of an array, one per element."""
        assert isinstance(self.expr, list)
        return self.expr


@dataclass
class Source:
    """What a cell reads from: its column(s) and whether they may hold errors."""

    columns: str | list[str]
    nullable: bool
    error_column: str | None = None
    constant: float | bool | list | None = None   # the cell's value when it does not vary in this program
    unmasked: bool = False   # a number cell's column, inf or NaN where the cell is #NUM
    finite: bool = False     # every value a finite number (a sweep's axis: no NaN checks needed)
    nonzero: bool = False    # and none 0 (no division guard needed)
    element_errors: list[str] | None = None   # an array cell's error column per element
    bounds: Bounds | None = None   # a scalar number column: what its values lie between (bounds.py)

    def val(self) -> Val:
        if self.constant is not None:
            if isinstance(self.constant, list):
                return Val([_literal(v) for v in self.constant])
            return Val(_literal(self.constant), constant=self.constant)
        if isinstance(self.columns, list):
            raw = [frozenset({c}) for c in self.columns] if self.unmasked else NO_RAW
            return Val([pl.col(c) for c in self.columns], self.nullable, raw=raw, finite=self.finite,
                       nonzero=self.nonzero)
        return Val(pl.col(self.columns), self.nullable, raw=frozenset({self.columns}) if self.unmasked else NO_RAW,
                   finite=self.finite, nonzero=self.nonzero, bounds=self.bounds)

    def exprs(self) -> list[pl.Expr]:
        """The cell's value column(s), by name: a column, or a literal for a constant."""
        names = self.columns if isinstance(self.columns, list) else [self.columns]
        if self.constant is None:
            return [pl.col(c) for c in names]
        values = self.constant if isinstance(self.constant, list) else [self.constant]
        return [_literal(v).alias(c) for v, c in zip(values, names)]


def _literal(value: float | bool) -> pl.Expr:
    # a Python float is a Float64 literal (a column of the sheet is never narrower); naming the
    # dtype builds a one-value Series, ~4x the time (~60 literals compiling a 30-cell sheet)
    return pl.lit(value) if isinstance(value, bool) else pl.lit(float(value))


class Sites(list):
    """A formula's error sites in evaluation order: each a Utf8 expression, the code
    where that operation has no value (null elsewhere); the first that fires says why.

    Compiling an array cell (`per_element`), a site also records the element it is
    about, so that each element reads its own code ([2.5 / 0, c / 0] is #DIV/0 and
    c's error, as on the scalar path); a site without an element (a scalar operand,
    or anything inside a sum or another call that makes a scalar) is every element's."""

    per_element = False
    elements: dict[int, int]   # a site's index -> its element (only per element)

    @classmethod
    def of_cell(cls, per_element: bool) -> Sites:
        """Empty sites, with elements when `per_element` (a scalar cell's are made by
        `Sites()`, at C speed: a chain of 20,000 cells makes 40,000)."""
        sites = cls()
        if per_element:
            sites.per_element, sites.elements = True, {}
        return sites

    def mark(self, start: int, element: int | None) -> None:
        """The sites from index `start` on are about `element` (None: every element).
        Called once per level, inner first, so the outermost element wins."""
        if not self.per_element:
            return
        for index in range(start, len(self)):
            if element is None:
                self.elements.pop(index, None)
            else:
                self.elements[index] = element

    def read(self, source: Source) -> None:
        """A precedent's error columns as sites: an array cell's per element, if it has them."""
        if not self.per_element or not source.error_column:
            return
        if source.element_errors:
            for i, column in enumerate(source.element_errors):
                self.append(pl.col(column))
                self.elements[len(self) - 1] = i
        else:
            self.append(pl.col(source.error_column))

    def of_element(self, element: int) -> list[pl.Expr]:
        return [site for index, site in enumerate(self) if self.elements.get(index, element) == element]


@dataclass
class CompiledCell:
    """A cell compiled: its value columns, its error-code column, whether it can be null."""
    key: str
    columns: list[tuple[str, pl.Expr]]     # output column name -> expression
    nullable: bool
    error: pl.Expr | None                  # Utf8 error code where the value is null or not finite (an array's first)
    unmasked: bool = False                 # a number: inf or NaN where the cell is #NUM (see the module doc)
    element_errors: list[pl.Expr] = field(default_factory=list)   # an array's code per element
    bounds: Bounds | None = None           # a scalar number proven finite: what its values lie between
    source: Source = field(init=False)

    def __post_init__(self) -> None:
        names = [name for name, _ in self.columns]
        single = len(names) == 1 and names[0] == self.key
        elements = [error_column(element_column(self.key, i)) for i in range(len(self.element_errors))]
        self.source = Source(names[0] if single else names, self.nullable,
                             error_column(self.key) if self.nullable else None, unmasked=self.unmasked,
                             finite=self.bounds is not None, element_errors=elements or None, bounds=self.bounds)

    def masked(self) -> list[pl.Expr]:
        """Its columns as every reader outside the compiler takes them: null where not finite."""
        return [pl.when(pl.col(name).is_finite()).then(pl.col(name)).alias(name) for name, _ in self.columns]


def error_column(key: str) -> str:
    return f"{key}#error"


def element_column(key: str, i: int) -> str:
    return f"{key}[{i}]"


def elementwise(fn: Callable[..., pl.Expr], *vals: Val, nullable: bool = False, sites: Sites | None = None) -> Val:
    """Apply fn per element, broadcasting scalars over arrays (lengths were checked);
    the error sites `fn` adds to `sites` for an element are marked as that element's."""
    length = next((len(v.expr) for v in vals if isinstance(v.expr, list)), None)
    any_null = nullable or any(v.nullable for v in vals)
    if length is None:
        return Val(fn(*(v.expr for v in vals)), any_null, raw=frozenset().union(*(v.raw for v in vals)))
    out = []
    for i in range(length):
        start = len(sites) if sites is not None else 0
        out.append(fn(*(v.expr[i] if isinstance(v.expr, list) else v.expr for v in vals)))
        if sites is not None:
            sites.mark(start, i)
    raw = [frozenset().union(*(v.raw_at(i) for v in vals)) for i in range(length)]
    return Val(out, any_null, raw=raw if any(raw) else NO_RAW)


def guarded(val: Val) -> Val:
    """`val`, null where a cell it read unmasked is not finite: for an operation that
    could make a finite value of that cell's inf or NaN (see the module doc)."""
    if not val.all_raw():
        return val

    def mask(expr: pl.Expr, raw: frozenset[str]) -> pl.Expr:
        if not raw:
            return expr
        finite = [pl.col(c).is_finite() for c in sorted(raw)]
        return pl.when(finite[0] if len(finite) == 1 else pl.all_horizontal(finite)).then(expr)
    # a cell's own column masked is a finite number or null: no NaN left to handle
    exprs = val.expr if isinstance(val.expr, list) else [val.expr]
    read = all(e.meta.is_column() and e.meta.output_name() in val.raw_at(i) for i, e in enumerate(exprs))
    if isinstance(val.expr, list):
        return Val([mask(e, val.raw_at(i)) for i, e in enumerate(val.expr)], True, finite=read)
    return Val(mask(val.expr, val.raw), True, finite=read)  # type: ignore[arg-type]  # a scalar Val: one set of raw


def poisoned(result: Val, *inputs: Val) -> Val:
    """A number `result`, NaN where a cell one of `inputs` read unmasked is not finite
    (x * (g - g + 1): exactly x where g is finite, NaN where not; no mask, no branch)."""
    def poison(expr: pl.Expr, raw: frozenset[str]) -> pl.Expr:
        if not raw:
            return expr
        zero = sum((pl.col(c) - pl.col(c) for c in sorted(raw)[1:]), pl.col(min(raw)) - pl.col(min(raw)))
        return expr * (zero + 1.0)
    if isinstance(result.expr, list):
        raws = [frozenset().union(*(v.raw_at(i) for v in inputs)) for i in range(len(result.expr))]
        if not any(raws):
            return result
        return Val([poison(e, raws[i]) for i, e in enumerate(result.expr)], result.nullable,
                   raw=[r | result.raw_at(i) for i, r in enumerate(raws)])
    raw = frozenset().union(*(v.all_raw() for v in inputs))
    if not raw:
        return result
    return Val(poison(result.expr, raw), result.nullable, raw=raw | result.all_raw())  # type: ignore[arg-type]  # a scalar: one Expr


def known_finite(val: Val) -> bool:
    """A finite number (or, if nullable, null) in every row: no NaN to handle."""
    return val.finite or val.bounds is not None or (isinstance(val.constant, float) and math.isfinite(val.constant))


def bounds_of(val: Val) -> Bounds | None:
    """What a scalar number's rows lie between, where known (a constant's own value)."""
    if val.bounds is not None or val.is_array:
        return val.bounds
    return of_values([val.constant]) if isinstance(val.constant, float) else None


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
    from supersheet.units.display import EXACT_DIGITS   # deferred: units.display (slow to import)
    quotient = expr / factor
    short = quotient.round_sig_figs(EXACT_DIGITS)
    return pl.when(short * factor == expr).then(short).otherwise(quotient)
