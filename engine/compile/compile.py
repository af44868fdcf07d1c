"""Formula trees -> Polars expressions over float64 magnitudes in base units.

Units were checked once (check.py); here every literal is converted to its base
magnitude and nothing touches Pint again. A scalar cell is one column named by
its key; an array cell of n elements is n columns `key[0]` … `key[n-1]`.

Error values: an operation that has no value (x / 0, sqrt(-1), ln(0)) yields
null, and nulls propagate through arithmetic. Next to the value, each such
operation contributes an "error site" expression giving its code ("#DIV/0",
"#NUM") where it fails; a cell's error column is the first non-null of its
precedents' errors and its own sites. An array cell also has one error column
per element, from the sites about that element (values.Sites), in evaluation
order, precedents included, as the scalar path finds them. Guards and null checks are only emitted
where a value can actually be null, so the common path stays plain arithmetic.
A number cell whose value is not finite (overflow, inf - inf) is #NUM, as on
the scalar path (scalar.py): inside a formula IEEE rules hold, but no cell's
value is ever inf or NaN. Its column is not masked for that, though (a pass
over every column): it keeps the inf, its error column says #NUM, and what
reads it guards where a non-finite number could turn finite (values.py).
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import singledispatchmethod
from typing import Callable

import polars as pl

from supersheet.engine.check.checked import Checked, node_type
from supersheet.engine.check.reductions import REDUCTIONS, varies_over_samples
from supersheet.engine.compile import bounds as B
from supersheet.engine.compile.compile_calls import CallCompiler
from supersheet.engine.compile.reduce import compile_reduction
from supersheet.engine.compile.errorcodes import DIV0, NUM
from supersheet.engine.compile.values import (
    NO_RAW,
    CompiledCell,
    Sites,
    Source,
    Val,
    bounds_of,
    element_column,
    elementwise,
    error_column,
    guarded,
    known_finite,
    poisoned,
)
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.distributions import DISTRIBUTIONS
from supersheet.units import parse_unit


class Compiler(CallCompiler):
    def __init__(self, checked: Checked, sources: dict[str, Source],
                 samples: dict[A.Node, str | list[str]] | None = None, divisors: dict[str, float] | None = None) -> None:
        self.checked = checked
        self.sources = sources
        self.sites = Sites()
        self.samples = samples or {}   # draw node -> its column(s) of variates or samples
        self.divisors = divisors if divisors is not None else {}   # column name -> constant divisor
        self.sample_group: str | None = None   # with samples of many sweep rows: the column naming the row

    # -- cells ------------------------------------------------------------
    def compile_cell(self, key: str, expr: A.Node | None = None) -> CompiledCell:
        cell = self.checked.model.cells[key]
        if expr is not None:
            node = expr
        else:
            assert cell.formula is not None   # the checker typed it: only a cell with a formula is compiled
            node = cell.formula.expr
        cell_type = self.checked.cells[key].type
        per_element = cell_type is not None and cell_type.is_array   # (a precedent's errors at its name)
        self.sites = Sites.of_cell(True) if per_element else Sites()
        val = self.compile(node)
        formula_sites = self.sites
        self.sites = Sites.of_cell(True) if per_element else Sites()
        # a number is #NUM where it is not finite, unless its bounds prove it always is (bounds.py)
        proven = bounds_of(val) if cell_type is not None and not cell_type.is_bool else None
        unmasked = cell_type is not None and not cell_type.is_bool and not _finite_constant(val) and proven is None
        if unmasked:
            val = self.finite(val)
        nullable = val.nullable
        if isinstance(val.expr, list):
            columns = [(element_column(key, i), e.alias(element_column(key, i))) for i, e in enumerate(val.expr)]
        else:
            columns = [(key, val.expr.alias(key))]
        if not nullable:
            return CompiledCell(key, columns, nullable, None, unmasked, bounds=proven)
        if per_element and isinstance(val.expr, list):
            # #NUM (the value is not finite) first, then the formula's sites in evaluation order
            codes = [_first(self.sites.of_element(i) + formula_sites.of_element(i)) for i in range(len(val.expr))]
            return CompiledCell(key, columns, nullable, _first(codes).alias(error_column(key)), unmasked,
                                [c.alias(error_column(element_column(key, i))) for i, c in enumerate(codes)])
        # #NUM is set only where the formula gave a value (not finite), so it comes first:
        # where the formula gave no value, a precedent's error or the formula's own says why
        deps = self.checked.cells[key].deps if expr is None else ()
        errors = self.sites + [pl.col(column) for d in deps
                               if d in self.sources and (column := self.sources[d].error_column)]
        errors += formula_sites
        return CompiledCell(key, columns, nullable, _first(errors).alias(error_column(key)), unmasked, bounds=proven)

    def finite(self, val: Val) -> Val:
        """A number cell's value: #NUM where it is not finite. The value itself is
        not masked (values.py): the column keeps the inf or NaN."""
        def site(x: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(~x.is_finite()).then(pl.lit(NUM)))
            return x
        return elementwise(site, val, nullable=True, sites=self.sites)

    def compile_expression(self, node: A.Node) -> tuple[Val, list[pl.Expr]]:
        """A free-standing formula (where, require, goal): value and error sites."""
        self.sites = Sites()
        val = self.compile(node)
        return val, list(self.sites)

    # -- nodes ------------------------------------------------------------
    @singledispatchmethod
    def compile(self, node: A.Node) -> Val:
        raise TypeError(type(node))

    @compile.register
    def _(self, node: A.Number) -> Val:
        factor = parse_unit(node.unit).factor if node.unit else 1.0
        value = node.value * factor
        return Val(pl.lit(float(value)), constant=value)

    @compile.register
    def _(self, node: A.Bool) -> Val:
        return Val(pl.lit(node.value, dtype=pl.Boolean), constant=node.value)

    @compile.register
    def _(self, node: A.Array) -> Val:
        items = []
        for i, item in enumerate(node.items):
            start = len(self.sites)
            items.append(self.compile(item))
            self.sites.mark(start, i)
        factor = parse_unit(node.unit).factor if node.unit else 1.0
        exprs = [i.scalar_expr() * factor if factor != 1.0 else i.scalar_expr() for i in items]   # (never nested)
        raw = [i.all_raw() for i in items]
        return Val(exprs, any(i.nullable for i in items), raw=raw if any(raw) else NO_RAW)

    @compile.register
    def _(self, node: A.Name) -> Val:
        source = self.sources[self.checked.bindings[node]]
        if self.sites.per_element:   # in an array cell: where, in evaluation order, its errors come in
            self.sites.read(source)
        return source.val()

    @compile.register
    def _(self, node: A.Unary) -> Val:
        operand = self.compile(node.operand)
        if node.op == "not":
            return elementwise(lambda x: ~x, operand)
        negated = elementwise(lambda x: -x, operand)
        known = bounds_of(operand)
        negated.bounds = B.negate(known) if known is not None else None
        return negated

    @compile.register
    def _(self, node: A.Binary) -> Val:
        return A.fold_run(node, self.compile, self.binary)   # a flat run in a loop: only real nesting recurses

    def binary(self, node: A.Binary, left: Val, right: Val) -> Val:
        result = self._binary(node, left, right)
        if result.is_array:
            return result
        a, b = bounds_of(left), bounds_of(right)
        if a is None or b is None:
            return result
        combine = B.BINARY.get(node.op)
        if combine is not None:
            result.bounds = combine(a, b)
        elif node.op in ("^", "**") and (exponent := _whole_exponent(right)) is not None:
            result.bounds = B.power(a, exponent)
        return result

    def _binary(self, node: A.Binary, left: Val, right: Val) -> Val:
        op = node.op
        if op == "/":   # x / inf is 0: NaN where the divisor read a #NUM cell
            return poisoned(self.divide(left, right, _nonzero(right)), right)
        if op == "^":   # inf ^ 0 and 1 ^ NaN are 1
            return poisoned(self.power(left, right, node.right), left, right)
        if op in ("and", "or"):
            combine = (lambda a, b: a & b) if op == "and" else (lambda a, b: a | b)
            if left.nullable or right.nullable:
                return elementwise(lambda a, b: pl.when(a.is_null() | b.is_null()).then(None).otherwise(combine(a, b)),
                                   left, right)
            return elementwise(combine, left, right)
        if op in _COMPARISONS:   # inf > 1 is true, but a #NUM cell compared is an error
            left, right = guarded(left), guarded(right)
            left_type = node_type(self.checked, node.left)
            if left_type is not None and not left_type.is_bool:
                return elementwise(_ieee_comparison(op, left, right), left, right)
        return elementwise(_BINARY[op], left, right)

    def divide(self, left: Val, right: Val, safe: bool) -> Val:
        if safe and left.constant is None and isinstance(right.constant, float) and \
                not exact_reciprocal(right.constant):
            # Polars divides a column by a scalar as a product with its reciprocal,
            # up to 1 ulp off: 49 / 49 may be 0.9999999999999999, and floor() then
            # gives 0. Dividing by a column of the constant is exact IEEE division.
            column = self.constant_column(right.constant)
            return elementwise(lambda a, b: a / column, left, right)
        if safe:
            return elementwise(lambda a, b: a / b, left, right)

        def guarded(a: pl.Expr, b: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(b == 0).then(pl.lit(DIV0)))
            return pl.when(b == 0).then(None).otherwise(a / b)
        return elementwise(guarded, left, right, nullable=True, sites=self.sites)

    def constant_column(self, value: float) -> pl.Expr:
        """A constant read from a column of the frame (Program.frame builds it), not a literal."""
        column = divisor_column(value)
        self.divisors[column] = value
        return pl.col(column)

    def as_column(self, val: Val) -> Val:
        """A constant number as a column. A `when` whose rows all take a literal branch gives
        Polars one value, not a column, and whatever divides by it then multiplies by the
        reciprocal, up to 1 ulp off (x / if(fast, 450 GB/s, 64 GB/s) where every row is fast)."""
        if not isinstance(val.constant, float) or val.is_array:
            return val
        return replace(val, expr=self.constant_column(val.constant))

    def power(self, left: Val, right: Val, exponent_node: A.Node) -> Val:
        exponent = self.checked.constants.get(exponent_node)
        if exponent is None and isinstance(exponent_node, A.Number):
            exponent = exponent_node.value
        if exponent is not None and exponent >= 0 and float(exponent).is_integer():
            return elementwise(lambda a, b: a.pow(b), left, right)

        def guarded(a: pl.Expr, b: pl.Expr) -> pl.Expr:
            negative_base = (a < 0) & (b.round(0) != b)
            zero_base = (a == 0) & (b < 0)
            self.sites.append(pl.when(zero_base).then(pl.lit(DIV0)).when(negative_base).then(pl.lit(NUM)))
            return pl.when(zero_base | negative_base).then(None).otherwise(a.pow(b))
        return elementwise(guarded, left, right, nullable=True, sites=self.sites)

    @compile.register
    def _(self, node: A.Call) -> Val:
        start = len(self.sites)
        result = self.call(node)
        if self.sites.per_element and not result.is_array:   # sum([a, b / c]): every site inside is the value's
            self.sites.mark(start, None)
        return result

    def call(self, node: A.Call) -> Val:
        name = node.func
        if name == "range":
            start = self.checked.constants[node]
            length = self.checked.node_types[node].length or 0
            return Val([pl.lit(start + i, dtype=pl.Float64) for i in range(length)])
        args = [self.compile(a) for a in node.args]
        types = [node_type(self.checked, a) for a in node.args]
        if name in DISTRIBUTIONS:
            return self.draw(node, [guarded(a) for a in args])
        if name in REDUCTIONS:   # an aggregate over samples skips an error sample (null), not an inf
            over = bool(self.samples) and varies_over_samples(node.args[0], self.checked)
            return compile_reduction(node, guarded(args[0]), self.checked, over, self.sample_group)
        return getattr(self, "fn_" + name)(args, types, node)

_BINARY: dict[str, Callable[[pl.Expr, pl.Expr], pl.Expr]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


def _not_nan(val: Val) -> bool:
    return known_finite(val) or (isinstance(val.constant, float) and val.constant == val.constant)


def _ieee_comparison(op: str, left: Val, right: Val) -> Callable[[pl.Expr, pl.Expr], pl.Expr]:
    """Polars orders NaN above every number and equal to itself; a sheet's numbers
    compare as IEEE 754 floats (as in Python): with a NaN, every comparison is
    false except `!=`. An error value (null) on either side stays an error."""
    raw = _BINARY[op]
    check_left, check_right = not _not_nan(left), not _not_nan(right)
    nullable = left.nullable or right.nullable

    def compare(a: pl.Expr, b: pl.Expr) -> pl.Expr:
        nans = [x.is_nan() for x, check in ((a, check_left), (b, check_right)) if check]
        if not nans:
            return raw(a, b)
        unordered = nans[0] | nans[1] if len(nans) == 2 else nans[0]
        result = pl.when(unordered).then(pl.lit(op == "!=")).otherwise(raw(a, b))
        if nullable:
            result = pl.when(a.is_null() | b.is_null()).then(None).otherwise(result)
        return result
    return compare


def _first(codes: list[pl.Expr]) -> pl.Expr:
    """The first error code that is set, as Utf8 (null where none is)."""
    return (pl.coalesce(codes) if codes else pl.lit(None, pl.String)).cast(pl.String)


def divisor_column(value: float) -> str:
    return f"#divisor {value!r}"


def exact_reciprocal(value: float) -> bool:
    """1/value is exact for powers of two: multiplying by it is exact division."""
    return math.frexp(value)[0] == 0.5


def _whole_exponent(val: Val) -> int | None:
    """A constant exponent 0, 1, 2 … 64 (a ^ n then needs no guard: compile.power)."""
    c = val.constant
    if isinstance(c, float) and c.is_integer() and 0 <= c <= 64:
        return int(c)
    return None


def _finite_constant(val: Val) -> bool:
    return isinstance(val.constant, float) and math.isfinite(val.constant)


def _nonzero(val: Val) -> bool:
    """A divisor known not to be zero (a constant, a sweep's axis without 0, bounds that exclude it)
    needs no guard (and adds no null)."""
    return val.nonzero or (isinstance(val.constant, float) and val.constant != 0) or B.excludes_zero(val.bounds)
