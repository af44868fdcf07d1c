"""Formula trees -> Polars expressions over float64 magnitudes in base units.

Units were checked once (check.py); here every literal is converted to its base
magnitude and nothing touches Pint again. A scalar cell is one column named by
its key; an array cell of n elements is n columns `key[0]` … `key[n-1]`.

Error values: an operation that has no value (x / 0, sqrt(-1), ln(0)) yields
null, and nulls propagate through arithmetic. Next to the value, each such
operation contributes an "error site" expression giving its code ("#DIV/0",
"#NUM") where it fails; a cell's error column is the first non-null of its
precedents' errors and its own sites. Guards and null checks are only emitted
where a value can actually be null, so the common path stays plain arithmetic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import singledispatchmethod
from typing import Callable, Union

import polars as pl

from units import parse_unit

from . import ast as A
from .check import Checked
from .distributions import DISCRETE, DISTRIBUTIONS, mean_of, transform

Exprs = Union[pl.Expr, list[pl.Expr]]
DIV0 = "#DIV/0"
NUM = "#NUM"


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


class Compiler:
    def __init__(self, checked: Checked, sources: dict[str, Source],
                 samples: dict[int, str | list[str]] | None = None, divisors: dict[str, float] | None = None) -> None:
        self.checked = checked
        self.sources = sources
        self.sites: list[pl.Expr] = []
        self.samples = samples or {}   # id(draw node) -> its column(s) of variates or samples
        self.divisors = divisors if divisors is not None else {}   # column name -> constant divisor

    # -- cells ------------------------------------------------------------
    def compile_cell(self, key: str, expr: A.Node | None = None) -> CompiledCell:
        cell = self.checked.model.cells[key]
        node = expr if expr is not None else cell.formula.expr  # type: ignore[union-attr]
        self.sites = []
        val = self.compile(node)
        deps = self.checked.cells[key].deps if expr is None else ()
        errors = [pl.col(self.sources[d].error_column) for d in deps   # type: ignore[arg-type]
                  if d in self.sources and self.sources[d].error_column]
        errors += self.sites
        nullable = val.nullable
        if isinstance(val.expr, list):
            columns = [(element_column(key, i), e.alias(element_column(key, i))) for i, e in enumerate(val.expr)]
        else:
            columns = [(key, val.expr.alias(key))]
        error = None
        if nullable:
            error = (pl.coalesce(errors) if errors else pl.lit(None, pl.String)).cast(pl.String).alias(error_column(key))
        return CompiledCell(key, columns, nullable, error)

    def compile_expression(self, node: A.Node) -> tuple[Val, list[pl.Expr]]:
        """A free-standing formula (where, require, goal): value and error sites."""
        self.sites = []
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
        return Val(pl.lit(value, dtype=pl.Float64), constant=value)

    @compile.register
    def _(self, node: A.Bool) -> Val:
        return Val(pl.lit(node.value, dtype=pl.Boolean), constant=node.value)

    @compile.register
    def _(self, node: A.Array) -> Val:
        items = [self.compile(i) for i in node.items]
        factor = parse_unit(node.unit).factor if node.unit else 1.0
        exprs = [i.expr * factor if factor != 1.0 else i.expr for i in items]  # type: ignore[operator]
        return Val(exprs, any(i.nullable for i in items))

    @compile.register
    def _(self, node: A.Name) -> Val:
        return self.sources[self.checked.bindings[id(node)]].val()

    @compile.register
    def _(self, node: A.Unary) -> Val:
        operand = self.compile(node.operand)
        if node.op == "not":
            return elementwise(lambda x: ~x, operand)
        return elementwise(lambda x: -x, operand)

    @compile.register
    def _(self, node: A.Binary) -> Val:
        left, right = self.compile(node.left), self.compile(node.right)
        op = node.op
        if op == "/":
            return self.divide(left, right, _nonzero(right))
        if op == "^":
            return self.power(left, right, node.right)
        if op in ("and", "or"):
            combine = (lambda a, b: a & b) if op == "and" else (lambda a, b: a | b)
            if left.nullable or right.nullable:
                return elementwise(lambda a, b: pl.when(a.is_null() | b.is_null()).then(None).otherwise(combine(a, b)),
                                   left, right)
            return elementwise(combine, left, right)
        if op in _COMPARISONS:
            left_type = self.checked.node_types.get(id(node.left))
            if left_type is not None and not left_type.is_bool:
                return elementwise(_ieee_comparison(op, left, right), left, right)
        return elementwise(_BINARY[op], left, right)

    def divide(self, left: Val, right: Val, safe: bool) -> Val:
        if safe and left.constant is None and not _exact_reciprocal(right.constant):  # type: ignore[arg-type]
            # Polars divides a column by a scalar as a product with its reciprocal,
            # up to 1 ulp off: 49 / 49 may be 0.9999999999999999, and floor() then
            # gives 0. Dividing by a column of the constant is exact IEEE division.
            column = divisor_column(right.constant)  # type: ignore[arg-type]
            self.divisors[column] = right.constant  # type: ignore[assignment]
            return elementwise(lambda a, b: a / pl.col(column), left, right)
        if safe:
            return elementwise(lambda a, b: a / b, left, right)

        def guarded(a: pl.Expr, b: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(b == 0).then(pl.lit(DIV0)))
            return pl.when(b == 0).then(None).otherwise(a / b)
        return elementwise(guarded, left, right, nullable=True)

    def power(self, left: Val, right: Val, exponent_node: A.Node) -> Val:
        exponent = self.checked.constants.get(id(exponent_node))
        if exponent is None and isinstance(exponent_node, A.Number):
            exponent = exponent_node.value
        if exponent is not None and exponent >= 0 and float(exponent).is_integer():
            return elementwise(lambda a, b: a.pow(b), left, right)

        def guarded(a: pl.Expr, b: pl.Expr) -> pl.Expr:
            negative_base = (a < 0) & (b.round(0) != b)
            zero_base = (a == 0) & (b < 0)
            self.sites.append(pl.when(zero_base).then(pl.lit(DIV0)).when(negative_base).then(pl.lit(NUM)))
            return pl.when(zero_base | negative_base).then(None).otherwise(a.pow(b))
        return elementwise(guarded, left, right, nullable=True)

    @compile.register
    def _(self, node: A.Call) -> Val:
        name = node.func
        if name == "range":
            start = self.checked.constants[id(node)]
            length = self.checked.node_types[id(node)].length or 0
            return Val([pl.lit(start + i, dtype=pl.Float64) for i in range(length)])
        args = [self.compile(a) for a in node.args]
        types = [self.checked.node_types[id(a)] for a in node.args]
        if name in DISTRIBUTIONS:
            return self.draw(node, args)
        return getattr(self, "fn_" + name)(args, types, node)

    def draw(self, node: A.Call, args: list[Val]) -> Val:
        """A sample column (transformed, for continuous draws), or the mean without samples."""
        name = node.func
        columns = self.samples.get(id(node))
        if name == "routing_loads":
            if columns is not None:
                return Val([pl.col(c) for c in columns])
            ranks = int(self.checked.node_types[id(node)].length or 1)
            share = args[0].expr * args[1].expr / ranks  # type: ignore[operator]
            return Val([share] * ranks, args[0].nullable or args[1].nullable)
        if name in DISCRETE:
            if columns is not None:
                return Val(pl.col(columns))  # type: ignore[arg-type]
            return elementwise(lambda *a: mean_of(name, list(a)), *args)  # type: ignore[arg-type]
        if columns is None:
            result = elementwise(lambda *a: mean_of(name, list(a)), *args)  # type: ignore[arg-type]
            return Val(result.expr, True) if name in ("lognormal",) else result
        variates = columns if isinstance(columns, list) else [columns]
        length = next((len(v.expr) for v in args if isinstance(v.expr, list)), None)
        out: list[pl.Expr] = []
        for i in range(length or 1):
            parts = [v.expr[i] if isinstance(v.expr, list) else v.expr for v in args]
            value, invalid = transform(name, parts, pl.col(variates[i]))
            if invalid is not None:
                self.sites.append(pl.when(invalid).then(pl.lit(NUM)))
                value = pl.when(invalid).then(None).otherwise(value)
            out.append(value)
        return Val(out if length is not None else out[0], True)

    # -- functions ----------------------------------------------------------
    def fn_min(self, args: list[Val], types, node) -> Val:
        return self._extreme(args, pl.min_horizontal)

    def fn_max(self, args: list[Val], types, node) -> Val:
        return self._extreme(args, pl.max_horizontal)

    def _extreme(self, args: list[Val], horizontal: Callable[..., pl.Expr]) -> Val:
        """Python's min/max: keep the first unless a later one compares strictly
        better, so a NaN first stays and a NaN later is skipped — that is, the
        first if it is NaN, else the extreme of the numbers. Built from one
        horizontal reduction, so its size grows linearly with the arguments."""
        items = [Val(e, args[0].nullable) for e in args[0].expr] if len(args) == 1 and args[0].is_array else args
        if len(items) == 1:
            return items[0]

        def extreme(first: pl.Expr, *rest: pl.Expr) -> pl.Expr:
            numbers = horizontal([first.fill_nan(None), *(x.fill_nan(None) for x in rest)])
            return pl.when(first.is_nan()).then(first).otherwise(numbers)
        return null_if_any(elementwise(extreme, *items), items)

    def fn_sum(self, args, types, node) -> Val:
        arg = args[0]
        exprs = arg.expr if arg.is_array else [arg.expr]
        if types[0].is_bool:
            exprs = [e.cast(pl.Float64) for e in exprs]
        if len(exprs) == 1:
            return Val(exprs[0], arg.nullable)
        return Val(pl.sum_horizontal(exprs, ignore_nulls=False), arg.nullable)

    def fn_mean(self, args, types, node) -> Val:
        total = self.fn_sum(args, types, node)
        n = types[0].length or 1
        return Val(total.expr / n, total.nullable)  # type: ignore[operator]

    def fn_count(self, args, types, node) -> Val:
        if types[0].is_bool:
            return self.fn_sum(args, types, node)
        return Val(pl.lit(float(types[0].length or 1), dtype=pl.Float64))

    def fn_abs(self, args, types, node) -> Val:
        return elementwise(lambda x: x.abs(), args[0])

    def fn_sqrt(self, args, types, node) -> Val:
        def guarded(x: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(x < 0).then(pl.lit(NUM)))
            return pl.when(x < 0).then(None).otherwise(x.sqrt())
        return elementwise(guarded, args[0], nullable=True)

    def _round_to(self, args, rounder: Callable[[pl.Expr], pl.Expr]) -> Val:
        if len(args) == 1:
            return elementwise(rounder, args[0])
        value, step = args
        if isinstance(step.constant, float) and step.constant != 0:
            ratio = self.divide(value, step, safe=True)   # exact division by a constant step
            return elementwise(lambda r, s: rounder(r) * s, ratio, step)

        def stepped(x: pl.Expr, step: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(step == 0).then(pl.lit(DIV0)))
            return pl.when(step == 0).then(None).otherwise(rounder(x / step) * step)
        return elementwise(stepped, args[0], args[1], nullable=True)

    def fn_ceil(self, args, types, node) -> Val:
        return self._round_to(args, lambda x: x.ceil())

    def fn_floor(self, args, types, node) -> Val:
        return self._round_to(args, lambda x: x.floor())

    def fn_round(self, args, types, node) -> Val:
        # Half away from zero, exactly: floor(|x| + 0.5) is wrong for 0.49999999999999994
        # (the sum rounds up to 1) and for odd integers above 2^52 (the sum rounds to even).
        def rounded(x: pl.Expr) -> pl.Expr:
            whole = x.abs().floor()
            return x.sign() * pl.when(x.abs() - whole >= 0.5).then(whole + 1).otherwise(whole)
        return elementwise(rounded, args[0])

    def _log(self, args, log: Callable[[pl.Expr], pl.Expr]) -> Val:
        def guarded(x: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(x <= 0).then(pl.lit(NUM)))
            return pl.when(x <= 0).then(None).otherwise(log(x))
        return elementwise(guarded, args[0], nullable=True)

    def fn_ln(self, args, types, node) -> Val:
        return self._log(args, lambda x: x.log())

    def fn_log2(self, args, types, node) -> Val:
        return self._log(args, lambda x: x.log(2))

    def fn_log10(self, args, types, node) -> Val:
        return self._log(args, lambda x: x.log10())

    def fn_exp(self, args, types, node) -> Val:
        return elementwise(lambda x: x.exp(), args[0])

    def fn_clamp(self, args, types, node) -> Val:
        result = elementwise(lambda x, lo, hi: pl.when(ieee_less(x, lo)).then(lo).when(ieee_less(hi, x)).then(hi)
                             .otherwise(x), *args)
        return null_if_any(result, args)

    def fn_if(self, args, types, node) -> Val:
        cond, a, b = args
        if cond.nullable:
            return elementwise(lambda c, x, y: pl.when(c.is_null()).then(None).when(c).then(x).otherwise(y),
                               cond, a, b, nullable=True)
        return elementwise(lambda c, x, y: pl.when(c).then(x).otherwise(y), cond, a, b)


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
    return isinstance(val.constant, float) and val.constant == val.constant


def ieee_less(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """a < b as IEEE 754 (and Python) define it: false when either is NaN."""
    return (a < b) & a.is_not_nan() & b.is_not_nan()


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


def divisor_column(value: float) -> str:
    return f"#divisor {value!r}"


def _exact_reciprocal(value: float) -> bool:
    """1/value is exact for powers of two: multiplying by it is exact division."""
    return math.frexp(value)[0] == 0.5


def _nonzero(val: Val) -> bool:
    """A divisor known not to be zero needs no guard (and adds no null)."""
    return isinstance(val.constant, float) and val.constant != 0
