"""One scenario (one row) evaluated with Python floats, cell by cell.

A sweep evaluates many rows at once as a Polars plan (compile.py); a single
scenario — `run`, `test`, the editor, a sweep's baseline — is one row, where a
plan per dependency layer costs more than the arithmetic (a 20,000-cell chain
is 20,000 layers). Here each formula tree is walked once with Python floats,
following the same rules as the compiler (spec §3.5/§3.6, IEEE 754 doubles):

* an operation without a value (x / 0, sqrt(-1), ln(0), 0 ^ -1) is an error
  value, and an error operand makes the result that error (the first, in
  reading order); `if` takes only the chosen branch;
* comparisons and min/max are Python's (IEEE: NaN compares false);
* inside a formula overflow is inf and inf - inf is NaN (IEEE), but a cell
  whose value is not a finite number holds #NUM, as in the Polars plan: a
  sheet never shows `inf` or `nan` as if it were a number.

tests/engine/test_differential.py checks this path and the Polars one against
the same plain reference. A formula using something this module does not know
raises `Unsupported`, and the caller evaluates the sheet with Polars instead.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from supersheet.engine.base.types import Type
from supersheet.engine.check.checked import node_type
from supersheet.engine.check.reductions import REDUCTIONS
from supersheet.engine.compile.errorcodes import DIV0, NUM
from supersheet.engine.compile.interpolate import INTERPOLATIONS, interpolate
from supersheet.engine.compile.reduce import scalar_reduction
from supersheet.engine.formula import ast as A
from supersheet.units import parse_unit

Z_95 = 1.6448536269514722   # as distributions.Z_95 (not imported: that module needs numpy and Polars)


@dataclass(frozen=True, slots=True)
class ErrorValue:
    """An error value a cell holds (`#DIV/0`, `#NUM`, `#ERROR`)."""
    code: str

    def __str__(self) -> str:
        return self.code


Scalar = float | bool | ErrorValue
Value = Scalar | list[Scalar] | None   # None: the cell could not be evaluated (invalid sheet)


class Unsupported(Exception):
    """A formula this evaluator does not implement: use the Polars path."""


def error_code(value: Value) -> str | None:
    """The error code a value holds (the first, for an array), or None."""
    if isinstance(value, ErrorValue):
        return value.code
    if isinstance(value, list):
        return next((v.code for v in value if isinstance(v, ErrorValue)), None)
    return None


def evaluate_cells(checked: Any, keys: Iterable[str], values: MutableMapping[str, Value],
                   fixed: Mapping[str, A.Node | None] | None = None) -> list[str]:
    """Compute `keys` (in dependency order) into `values`, reading the other
    cells from it. `fixed` replaces a cell's formula (None: its own formula);
    returns the keys computed. Cells that cannot be evaluated get None."""
    fixed = fixed or {}
    value_of = Walker(checked, values).value
    cells, written, isfinite = checked.cells, checked.model.cells, math.isfinite   # (looked up once: a cell each)
    done = []
    for key in keys:
        cell = cells.get(key)
        if cell is None or cell.type is None:
            values[key] = None
            continue
        node = fixed.get(key)
        if node is None:
            formula = written[key].formula
            if formula is None or None in map(values.get, cell.deps):   # (values are never == None)
                values[key] = None
                continue
            node = formula.expr
        value = value_of(node)
        # finite(value), a plain number's case inline
        values[key] = (value if isfinite(value) else ErrorValue(NUM)) if type(value) is float else finite(value)
        done.append(key)
    return done


def finite(value: Any) -> Any:
    """A cell's value: a number that is not finite (overflow, inf - inf) is #NUM."""
    if isinstance(value, float):
        return value if math.isfinite(value) else ErrorValue(NUM)
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


class Walker:
    """Evaluates formula trees over the values of other cells."""

    def __init__(self, checked: Any, values: Mapping[str, Value]) -> None:
        self.checked = checked
        self.values = values
        self.bindings = checked.bindings
        self.dispatch: dict[type, Callable[[Any], Any]] = {
            A.Number: self.number, A.Bool: lambda n: n.value, A.Array: self.array, A.Name: self.name,
            A.Unary: self.unary, A.Binary: self.binary, A.Call: self.call}

    def value(self, node: A.Node) -> Any:
        if type(node) is A.Name:   # `name` inlined: the most frequent node
            return self.values[self.bindings[node]]
        return self.dispatch[type(node)](node)

    def number(self, node: A.Number) -> float:
        return float(node.value) * (parse_unit(node.unit).factor if node.unit else 1.0)

    def array(self, node: A.Array) -> list:
        factor = parse_unit(node.unit).factor if node.unit else 1.0
        items = [self.value(i) for i in node.items]
        return items if factor == 1.0 else [x if isinstance(x, ErrorValue) else x * factor for x in items]

    def name(self, node: A.Name) -> Any:
        return self.values[self.bindings[node]]   # arrays are never modified in place

    def unary(self, node: A.Unary) -> Any:
        operand = self.value(node.operand)
        return broadcast((lambda x: not x) if node.op == "not" else (lambda x: -x), operand)

    def binary(self, node: A.Binary) -> Any:
        # a flat run in a loop: only real nesting recurses (A.fold_run, inlined: every operator of a sheet runs here)
        left = node.left
        if type(left) is not A.Binary or not A.same_chain(left, node.op):   # a run of one, the most common
            return self.combine(node, self.value(left), self.value(node.right))
        first, links = A.unroll(node)
        value, combine = self.value, self.combine
        result = value(first)
        for link in links:
            result = combine(link, result, value(link.right))
        return result

    def combine(self, node: A.Binary, left: Any, right: Any) -> Any:
        op = node.op
        if type(left) is float and type(right) is float and op in _ARITHMETIC:
            # two plain numbers, the common case: what broadcast(BINARY[op], …) gives them, without its checks
            if op == "+":
                return left + right
            if op == "-":
                return left - right
            if op == "*":
                return left * right
            return ErrorValue(DIV0) if right == 0 else left / right
        if op == "^":
            exponent = self.checked.constants.get(node.right)
            if exponent is None and isinstance(node.right, A.Number):
                exponent = node.right.value
            whole = exponent is not None and exponent >= 0 and float(exponent).is_integer()
            return broadcast(power if not whole else _pow, left, right)
        return broadcast(BINARY[op], left, right)

    def call(self, node: A.Call) -> Any:
        name = node.func
        if name == "range":
            start = self.checked.constants[node]
            return [float(start + i) for i in range(self.checked.node_types[node].length or 0)]
        function = FUNCTIONS.get(name)
        if function is None:
            raise Unsupported(name)
        return function(self, node, [self.value(a) for a in node.args])


# -- elementwise helpers ---------------------------------------------------------
def broadcast(fn: Callable[..., Any], *args: Any) -> Any:
    """fn per element (scalars broadcast over arrays); an error argument is the result."""
    length = next((len(a) for a in args if isinstance(a, list)), None)
    if length is None:
        return strict(fn, args)
    return [strict(fn, [a[i] if isinstance(a, list) else a for a in args]) for i in range(length)]


def strict(fn: Callable[..., Any], args: Any) -> Any:
    for a in args:
        if isinstance(a, ErrorValue):
            return a
    return fn(*args)


def _div(a: float, b: float) -> Any:
    return ErrorValue(DIV0) if b == 0 else a / b


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except OverflowError:
        odd = math.isfinite(b) and float(b).is_integer() and b % 2 == 1
        return -math.inf if a < 0 and odd else math.inf


def power(a: float, b: float) -> Any:
    if a == 0 and b < 0:
        return ErrorValue(DIV0)
    if a < 0 and math.isfinite(b) and not float(b).is_integer():
        return ErrorValue(NUM)
    return _pow(a, b)


BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _div,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "and": lambda a, b: a and b, "or": lambda a, b: a or b,
}


_ARITHMETIC = frozenset("+-*/")


def _whole(rounder: Callable[[float], int]) -> Callable[[float], float]:
    return lambda x: float(rounder(x)) if math.isfinite(x) else x


_ceil, _floor = _whole(math.ceil), _whole(math.floor)


def _round(x: float) -> float:
    """Half away from zero, exactly (not floor(|x| + 0.5), wrong for 0.49999999999999994)."""
    if not math.isfinite(x):
        return x
    whole = math.floor(abs(x))
    return math.copysign(float(whole + 1 if abs(x) - whole >= 0.5 else whole), x)


def _stepped(rounder: Callable[[float], float]) -> Callable[..., Any]:
    def stepped(x: float, step: float) -> Any:
        return ErrorValue(DIV0) if step == 0 else rounder(x / step) * step
    return stepped


def _log(log: Callable[[float], float]) -> Callable[[float], Any]:
    def guarded(x: float) -> Any:
        if x <= 0:
            return ErrorValue(NUM)
        return x if math.isnan(x) or x == math.inf else log(x)
    return guarded


def _ln_any(x: float) -> float:
    """Polars' log: NaN below zero, -inf at zero (lognormal's mean has no guard)."""
    if x > 0 or math.isnan(x):
        return math.log(x) if x != math.inf else x
    return -math.inf if x == 0 else math.nan


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if hi < x else x


def _if(cond: Any, a: Any, b: Any) -> Any:
    return cond if isinstance(cond, ErrorValue) else a if cond else b


def _choose(cond: Any, a: Any, b: Any) -> Any:
    """if(): per element, only the chosen branch's error matters."""
    length = next((len(x) for x in (cond, a, b) if isinstance(x, list)), None)
    if length is None:
        return _if(cond, a, b)
    return [_if(*(x[i] if isinstance(x, list) else x for x in (cond, a, b))) for i in range(length)]


def _extreme(pick: Callable[[Any], Any]) -> Callable[[Walker, A.Call, list[Any]], Any]:
    """min or max: of plain numbers at once (the common case), else per element, an error first."""
    def call(w: Walker, n: A.Call, args: list[Any]) -> Any:
        for a in args:
            if type(a) is not float:
                return broadcast(lambda *xs: pick(xs), *_items(args))
        return pick(args)
    return call


def _items(args: list[Any]) -> list[Any]:
    """min/max arguments: the elements of a single array, else the arguments."""
    return list(args[0]) if len(args) == 1 and isinstance(args[0], list) else args


def _sum(args: list[Any], bools: bool) -> Any:
    items = args[0] if isinstance(args[0], list) else [args[0]]
    for x in items:
        if isinstance(x, ErrorValue):
            return x
    if bools:
        items = [float(x) for x in items]
    if len(items) == 1:
        return items[0]
    total = items[0]
    for x in items[1:]:
        total += x
    return total


def _is_bool_arg(walker: Walker, node: A.Call) -> bool:
    return _arg_type(walker, node).is_bool


def _length(walker: Walker, node: A.Call) -> int:
    return _arg_type(walker, node).length or 1


def _arg_type(walker: Walker, node: A.Call) -> Type:
    typ = node_type(walker.checked, node.args[0])
    assert typ is not None   # a checked formula's: typed
    return typ


def _mean(name: str) -> Callable[..., float]:
    """The deterministic view of a random draw: its mean."""
    def lognormal(lo: float, hi: float) -> float:
        mu = (_ln_any(lo) + _ln_any(hi)) / 2
        sigma = (_ln_any(hi) - _ln_any(lo)) / (2 * Z_95)
        return _exp(mu + sigma * sigma / 2)
    means: dict[str, Callable[..., float]] = {"uniform": lambda a, b: (a + b) / 2, "normal": lambda m, sd: m, "poisson": lambda m: m,
            "lognormal": lognormal, "triangular": lambda a, m, b: (a + m + b) / 3,
            "binomial": lambda n, p: n * p}
    return means[name]


def _routing_loads(walker: Walker, node: A.Call, args: list[Any]) -> Any:
    ranks = int(walker.checked.node_types[node].length or 1)
    share = strict(lambda tokens, top_k: tokens * top_k / ranks, args[:2])
    return [share] * ranks


def _stepped_call(rounder: Callable[[float], float]) -> Callable[..., Any]:
    def call(walker: Walker, node: A.Call, args: list[Any]) -> Any:
        return broadcast(rounder, args[0]) if len(args) == 1 else broadcast(_stepped(rounder), *args)
    return call


def _unary(fn: Callable[[float], Any]) -> Callable[..., Any]:
    return lambda walker, node, args: broadcast(fn, args[0])


def _interpolation(kind: str) -> Callable[..., Any]:
    """interp(x, xs, ys) and its kin (interpolate.py): per element of x; an error among the points is the result."""
    def call(walker: Walker, node: A.Call, args: list[Any]) -> Any:
        x, xs, ys = args
        bad = next((v for v in xs + ys if isinstance(v, ErrorValue)), None)
        if bad is not None:
            return [bad] * len(x) if isinstance(x, list) else bad

        def at(value: float) -> Any:
            result = interpolate(kind, value, xs, ys)
            return ErrorValue(NUM) if result is None else result
        return broadcast(at, x)
    return call


FUNCTIONS: dict[str, Callable[[Walker, A.Call, list[Any]], Any]] = {
    "min": _extreme(min),
    "max": _extreme(max),
    "sum": lambda w, n, args: _sum(args, _is_bool_arg(w, n)),
    "mean": lambda w, n, args: strict(lambda s: s / _length(w, n), [_sum(args, _is_bool_arg(w, n))]),
    "count": lambda w, n, args: _sum(args, True) if _is_bool_arg(w, n) else float(_length(w, n)),
    "abs": _unary(abs),
    "sqrt": _unary(lambda x: ErrorValue(NUM) if x < 0 else math.sqrt(x)),
    "ceil": _stepped_call(_ceil),
    "floor": _stepped_call(_floor),
    "round": _stepped_call(_round),
    "ln": _unary(_log(math.log)),
    "log2": _unary(_log(math.log2)),
    "log10": _unary(_log(math.log10)),
    "exp": _unary(_exp),
    "clamp": lambda w, n, args: broadcast(_clamp, *args),
    "if": lambda w, n, args: _choose(*args),
    "routing_loads": _routing_loads,
    **{name: _interpolation(name) for name in INTERPOLATIONS},
    **{name: (lambda name: lambda w, n, args: scalar_reduction(name, args[0]))(name) for name in REDUCTIONS},
    **{name: (lambda name: lambda w, n, args: broadcast(_mean(name), *args))(name)
       for name in ("uniform", "normal", "poisson", "lognormal", "triangular", "binomial")},
}
