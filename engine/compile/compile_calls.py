"""Compiling calls: the built-in functions of spec §3.6 and random draws, as
Polars expressions. A mixin of compile.Compiler (it uses its `divide`,
`as_column`, `sites`, `samples` and `checked`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import polars as pl

from supersheet.engine.compile import bounds as B
from supersheet.engine.compile.errorcodes import DIV0, NUM
from supersheet.engine.compile.interpolate import interpolate_column
from supersheet.engine.compile.values import (
    Val,
    bounds_of,
    elementwise,
    guarded,
    ieee_less,
    known_finite,
    null_if_any,
    poisoned,
)
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.distributions import DISCRETE, mean_of, transform
from supersheet.units import parse_unit

if TYPE_CHECKING:
    from polars.expr.whenthen import ChainedThen, Then

    from supersheet.engine.base.types import Type
    from supersheet.engine.check.checked import Checked
    from supersheet.engine.compile.values import Sites, Source


class CallCompiler:
    # the Compiler's state these use, declared for the type checker (Compiler.__init__ sets it)
    checked: Checked
    sources: dict[str, Source]
    sites: Sites
    samples: dict[A.Node, str | list[str]]

    if TYPE_CHECKING:
        def divide(self, left: Val, right: Val, safe: bool) -> Val: ...
        def as_column(self, val: Val) -> Val: ...

    def draw(self, node: A.Call, args: list[Val]) -> Val:
        """A sample column (transformed, for continuous draws), or the mean without samples."""
        name = node.func
        columns = self.samples.get(node)
        if name == "routing_loads":
            if columns is not None:
                return Val([pl.col(c) for c in columns])
            ranks = int(self.checked.node_types[node].length or 1)
            share = args[0].scalar_expr() * args[1].scalar_expr() / ranks   # routing_loads() takes scalars
            return Val([share] * ranks, args[0].nullable or args[1].nullable)
        if name in DISCRETE:
            if columns is not None:
                return Val(pl.col(columns))
            return elementwise(lambda *a: mean_of(name, list(a)), *args)
        if columns is None:
            result = elementwise(lambda *a: mean_of(name, list(a)), *args)
            return Val(result.expr, True) if name in ("lognormal",) else result
        variates = columns if isinstance(columns, list) else [columns]
        length = next((len(v.expr) for v in args if isinstance(v.expr, list)), None)
        out: list[pl.Expr] = []
        for i in range(length or 1):
            parts = [v.expr[i] if isinstance(v.expr, list) else v.expr for v in args]
            value, invalid = transform(name, parts, pl.col(variates[i]))
            if invalid is not None:
                self.sites.append(pl.when(invalid).then(pl.lit(NUM)))
                self.sites.mark(len(self.sites) - 1, i if length is not None else None)
                value = pl.when(invalid).then(None).otherwise(value)
            out.append(value)
        return Val(out if length is not None else out[0], True)

    # -- functions ----------------------------------------------------------
    def fn_min(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return _with_bounds(self._extreme(args, pl.min_horizontal), args, B.smallest)

    def fn_max(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return _with_bounds(self._extreme(args, pl.max_horizontal), args, B.largest)

    def _extreme(self, args: list[Val], horizontal: Callable[..., pl.Expr]) -> Val:
        """Python's min/max: keep the first unless a later one compares strictly
        better, so a NaN first stays and a NaN later is skipped — that is, the
        first if it is NaN, else the extreme of the numbers. Built from one
        horizontal reduction, so its size grows linearly with the arguments."""
        if len(args) == 1 and args[0].is_array:
            items = [Val(e, args[0].nullable, raw=args[0].raw_at(i)) for i, e in enumerate(args[0].element_exprs())]
        else:
            items = args
        if len(items) == 1:
            return items[0]

        def extreme(first: pl.Expr, *rest: pl.Expr) -> pl.Expr:
            numbers = horizontal([first.fill_nan(None), *(x.fill_nan(None) for x in rest)])
            return pl.when(first.is_nan()).then(first).otherwise(numbers)
        if all(known_finite(i) and not i.nullable for i in items):   # no NaN to keep or skip, no null to skip
            return elementwise(lambda *xs: horizontal(list(xs)), *items)
        # min(inf, 1) is 1: NaN where a #NUM cell is among them
        return poisoned(null_if_any(elementwise(extreme, *items), items), *items)

    def fn_sum(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        arg = args[0]
        exprs = arg.expr if isinstance(arg.expr, list) else [arg.expr]
        if types[0].is_bool:
            exprs = [e.cast(pl.Float64) for e in exprs]
        if len(exprs) == 1:
            return Val(exprs[0], arg.nullable, raw=arg.all_raw())
        return Val(pl.sum_horizontal(exprs, ignore_nulls=False), arg.nullable, raw=arg.all_raw())

    def fn_mean(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        total = self.fn_sum(args, types, node)
        n = types[0].length or 1
        return Val(total.scalar_expr() / n, total.nullable, raw=total.raw)

    def fn_count(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        if types[0].is_bool:
            return self.fn_sum(args, types, node)
        return Val(pl.lit(float(types[0].length or 1), dtype=pl.Float64))

    def fn_abs(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return _with_bounds(elementwise(lambda x: x.abs(), args[0]), args, lambda b: B.absolute(b[0]))

    def fn_sqrt(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        def guarded(x: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(x < 0).then(pl.lit(NUM)))
            return pl.when(x < 0).then(None).otherwise(x.sqrt())
        return elementwise(guarded, args[0], nullable=True, sites=self.sites)

    def _round_to(self, args: list[Val], rounder: Callable[[pl.Expr], pl.Expr]) -> Val:
        if len(args) == 1:
            return _with_bounds(elementwise(rounder, args[0]), args, lambda b: B.whole(b[0]))
        value, step = args
        if isinstance(step.constant, float) and step.constant != 0:
            ratio = self.divide(value, step, safe=True)   # exact division by a constant step
            return _with_bounds(elementwise(lambda r, s: rounder(r) * s, ratio, step), args, _stepped_bounds)

        def stepped(x: pl.Expr, step: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(step == 0).then(pl.lit(DIV0)))
            return pl.when(step == 0).then(None).otherwise(rounder(x / step) * step)
        return poisoned(elementwise(stepped, args[0], args[1], nullable=True, sites=self.sites), args[1])

    def fn_ceil(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self._round_to(args, lambda x: x.ceil())

    def fn_floor(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self._round_to(args, lambda x: x.floor())

    def fn_round(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        # Half away from zero, exactly: floor(|x| + 0.5) is wrong for 0.49999999999999994
        # (the sum rounds up to 1) and for odd integers above 2^52 (the sum rounds to even).
        def rounded(x: pl.Expr) -> pl.Expr:
            whole = x.abs().floor()
            return x.sign() * pl.when(x.abs() - whole >= 0.5).then(whole + 1).otherwise(whole)
        return self._round_to(args, rounded)

    def _log(self, args: list[Val], log: Callable[[pl.Expr], pl.Expr]) -> Val:
        def guarded(x: pl.Expr) -> pl.Expr:
            self.sites.append(pl.when(x <= 0).then(pl.lit(NUM)))
            return pl.when(x <= 0).then(None).otherwise(log(x))
        return elementwise(guarded, args[0], nullable=True, sites=self.sites)

    def fn_ln(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self._log(args, lambda x: x.log())

    def fn_log2(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self._log(args, lambda x: x.log(2))

    def fn_log10(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self._log(args, lambda x: x.log10())

    def fn_exp(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return poisoned(elementwise(lambda x: x.exp(), args[0]), args[0])   # exp(-inf) is 0

    def fn_clamp(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        x, lo, hi = args[0], self.as_column(args[1]), self.as_column(args[2])   # (a branch: a column)
        result = elementwise(lambda x, lo, hi: pl.when(ieee_less(x, lo)).then(lo).when(ieee_less(hi, x)).then(hi)
                             .otherwise(x), x, lo, hi)
        return poisoned(null_if_any(result, args), *args)   # clamp(inf, 0, 1) is 1

    def fn_if(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        # only the chosen branch's error counts: a #NUM cell in a branch is masked where it stands
        cond, a, b = (guarded(v) for v in args)
        a, b = self.as_column(a), self.as_column(b)   # never a literal: the result stays a column
        if cond.nullable:
            chosen = elementwise(lambda c, x, y: pl.when(c.is_null()).then(None).when(c).then(x).otherwise(y),
                                 cond, a, b, nullable=True)
        else:
            chosen = elementwise(lambda c, x, y: pl.when(c).then(x).otherwise(y), cond, a, b)
        return _with_bounds(chosen, [a, b], lambda branches: B.union(*branches))


    # -- a table of points (interpolate.py) ---------------------------------------
    def interpolation(self, args: list[Val], node: A.Call) -> Val:
        """interp(x, xs, ys) and its kin. Points known before evaluation (a table's columns, literals):
        numpy over the column in one call; points that vary by row: a chain over the segments."""
        kind = node.func
        xs, ys = self.known_points(node.args[1]), self.known_points(node.args[2])
        x = guarded(args[0])
        if xs is not None and ys is not None:
            def at(column: pl.Expr) -> pl.Expr:
                value = column.map_batches(lambda s: pl.Series(interpolate_column(kind, s.to_numpy(), xs, ys)),
                                           return_dtype=pl.Float64, is_elementwise=True)
                self.sites.append(pl.when(value.is_nan()).then(pl.lit(NUM)))
                return pl.when(value.is_nan()).then(None).otherwise(value)
            return elementwise(at, x, nullable=True, sites=self.sites)
        xs_at, ys_at = guarded(args[1]).element_exprs(), guarded(args[2]).element_exprs()
        return elementwise(lambda column: self.segments(kind, column, xs_at, ys_at), x, nullable=True, sites=self.sites)

    def segments(self, kind: str, x: pl.Expr, xs: list[pl.Expr], ys: list[pl.Expr]) -> pl.Expr:
        """interpolate.interpolate as one expression over points that are columns (rows may differ)."""
        n = len(xs)
        invalid = pl.any_horizontal([a >= b for a, b in zip(xs, xs[1:])]) if n > 1 else pl.lit(False)
        log = kind.startswith("log")
        if log:
            invalid = invalid | (x <= 0) | (xs[0] <= 0) | pl.any_horizontal([y <= 0 for y in ys])
        chain: Then | ChainedThen
        if kind == "lookup":
            chain = pl.when(x == xs[0]).then(ys[0])
            for a, b in zip(xs[1:], ys[1:]):
                chain = chain.when(x == a).then(b)
            value = chain.otherwise(None)
        elif n == 1:
            value = pl.when(x == xs[0]).then(ys[0]).otherwise(None)
        else:
            def segment(i: int) -> pl.Expr:
                if log:
                    t = (x.log() - xs[i].log()) / (xs[i + 1].log() - xs[i].log())
                    return (ys[i].log() + t * (ys[i + 1].log() - ys[i].log())).exp()
                return ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i])
            chain = pl.when(x < xs[1]).then(segment(0))
            for i in range(1, n - 2):
                chain = chain.when(x < xs[i + 1]).then(segment(i))
            value = chain.otherwise(segment(n - 2))
            if not kind.endswith("_extrapolate"):
                invalid = invalid | (x < xs[0]) | (x > xs[-1])
        # any point with no value (an error cell among them) is an error wherever x lies, as on the one-row path
        invalid = invalid | value.is_null() | x.is_nan() | pl.any_horizontal([v.is_null() for v in xs + ys])
        self.sites.append(pl.when(invalid).then(pl.lit(NUM)))
        return pl.when(invalid).then(None).otherwise(value)

    def known_points(self, node: A.Node) -> list[float] | None:
        """An array argument's values in base units when every row has the same (a constant cell, a literal)."""
        if isinstance(node, A.Name):
            source = self.sources.get(self.checked.bindings[node])
            constant = source.constant if source is not None else None
            if isinstance(constant, list) and all(isinstance(v, float) for v in constant):
                return constant
            return None
        if isinstance(node, A.Array):
            numbers = [i for i in node.items if isinstance(i, A.Number) and i.unit is None]
            if len(numbers) == len(node.items):
                factor = parse_unit(node.unit).factor if node.unit else 1.0
                return [i.value * factor for i in numbers]
        return None

    def fn_interp(self, args: list[Val], types: list[Type], node: A.Call) -> Val:
        return self.interpolation(args, node)

    fn_log_interp = fn_interp_extrapolate = fn_log_interp_extrapolate = fn_lookup = fn_interp


def _stepped_bounds(known: list[B.Bounds]) -> B.Bounds | None:
    """Of round(x, step), ceil or floor: a whole number of steps."""
    ratio = B.divide(*known)
    steps = B.whole(ratio) if ratio is not None else None
    return B.multiply(steps, known[1]) if steps is not None else None


def _with_bounds(result: Val, args: list[Val], combine: Callable[[list[B.Bounds]], B.Bounds | None]) -> Val:
    """`result` with the bounds `combine` makes of its scalar arguments' (bounds.py), where each has some."""
    known = [b for a in args if (b := bounds_of(a)) is not None]
    if not result.is_array and len(known) == len(args):
        result.bounds = combine(known)
    return result
