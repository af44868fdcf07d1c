"""Typing rules of function calls: the built-in functions of spec §3.6, `range`
(whose length must be known before evaluation) and random draws; and the
constant folding those need. A mixin of check.Typer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, ClassVar, NoReturn

from supersheet.engine.base.diagnostics import did_you_mean
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.types import NUMBER, Type, number_of
from supersheet.engine.check.checked import node_type
from supersheet.engine.check.reductions import REDUCTIONS
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.distributions import CONTINUOUS, DISTRIBUTIONS, Draw, parameter_problem
from supersheet.engine.formula.functions import FUNCTIONS
from supersheet.units import DIMENSIONLESS, describe, parse_unit, power

if TYPE_CHECKING:
    from supersheet.engine.base.diagnostics import Label
    from supersheet.engine.check.checked import Checked, Draft


class CallRules:
    """Typing of calls; relies on Typer's state and helpers (type_of, fail, need_number, …),
    declared here for the type checker."""

    checked: Draft
    key: str | None
    draws: int
    sampling_calls: int

    if TYPE_CHECKING:   # Typer's helpers the rules call (Typer defines them)
        def type_of(self, node: A.Node) -> Type: ...
        def fail(self, code: str, message: str, span: tuple[int, int], hint: str | None = None,
                 labels: tuple[Label, ...] = ()) -> NoReturn: ...
        def need_number(self, typ: Type, node: A.Node, op: str) -> None: ...
        def need_bool(self, typ: Type, node: A.Node, op: str) -> None: ...
        def broadcast(self, types: list[Type], nodes: list[A.Node]) -> int | None: ...
        def mismatch(self, verb: str, node: A.Node, left: A.Node, right: A.Node, lt: Type, rt: Type) -> NoReturn: ...
        def unit_word(self, node: A.Node, typ: Type) -> str: ...
        def constant(self, node: A.Node, lookup_cells: bool = False) -> float | None: ...

    def call_type(self, node: A.Call) -> Type:
        if node.func in REDUCTIONS or node.func in DISTRIBUTIONS:
            self.sampling_calls += 1   # (classify: a formula without any reads samples only through its cells)
        fn = FUNCTIONS.get(node.func) or DISTRIBUTIONS.get(node.func)
        if fn is None:
            self.fail("E-NAME", f"unknown function {node.func!r}", node.name_span,
                      did_you_mean(node.func, list(FUNCTIONS) + list(DISTRIBUTIONS)))
        assert fn is not None
        n = len(node.args)
        if n < fn.min_args or (fn.max_args is not None and n > fn.max_args):
            self.fail("E-TYPE", f"{fn.name}() takes {_arity(fn.min_args, fn.max_args)}, got {n}", node.span,
                      f"usage: {fn.signature}")
        return self.RULES[fn.rule](self, node)

    def arg_types(self, node: A.Call, numbers: bool = True) -> list[Type]:
        """The arguments' types; with `numbers`, each must be a number (not a condition)."""
        args = [self.type_of(a) for a in node.args]
        if numbers:
            for typ, arg in zip(args, node.args):
                self.need_number(typ, arg, node.func + "()")
        return args

    # -- the unit rules of functions.UNIT_RULES, one method each -------------
    def choice_type(self, node: A.Call) -> Type:
        cond, a, b = args = self.arg_types(node, numbers=False)
        self.need_bool(cond, node.args[0], "if")
        if a.kind != b.kind:
            self.fail("E-TYPE", "if() branches must both be numbers or both be booleans", node.span)
        if a.dims != b.dims:
            self.mismatch("choose between", node, node.args[1], node.args[2], a, b)
        return Type(a.kind, a.dims, self.broadcast(args, list(node.args)))

    def total_type(self, node: A.Call) -> Type:
        arg = self.arg_types(node, numbers=False)[0]
        return NUMBER if arg.is_bool else Type("number", arg.dims)

    def count_type(self, node: A.Call) -> Type:
        self.arg_types(node, numbers=False)
        return NUMBER

    def share_type(self, node: A.Call) -> Type:
        args = self.arg_types(node, numbers=False)
        self.need_bool(args[0], node.args[0], node.func)
        return Type("number", DIMENSIONLESS, args[0].length)

    def extreme_type(self, node: A.Call) -> Type:
        args = self.arg_types(node)
        if len(args) == 1:
            return args[0].scalar()
        return self.same_type(node, args)

    def same_type(self, node: A.Call, args: list[Type] | None = None) -> Type:
        args = self.arg_types(node) if args is None else args
        self.same_dims(node.func, args, node)
        return number_of(args[0].dims, self.broadcast(args, list(node.args)))

    def any_type(self, node: A.Call) -> Type:
        return self.arg_types(node)[0]

    def sqrt_type(self, node: A.Call) -> Type:
        arg = self.arg_types(node)[0]
        if any(exp % 2 for _, exp in arg.dims):
            self.fail("E-UNIT", f"sqrt of {describe(arg.dims)} has no unit (odd exponent)", node.args[0].span)
        return Type("number", power(arg.dims, 0.5), arg.length)

    def rounding_type(self, node: A.Call) -> Type:
        args = self.arg_types(node)
        if len(args) == 2:
            return self.same_type(node, args)
        unit = self.unit_word(node.args[0], args[0]) if args[0].dims != DIMENSIONLESS else ""
        return self.dimensionless_type(node, args, f"or round to a step of the same unit: {node.func}(x, 8 {unit})")

    def dimensionless_type(self, node: A.Call, args: list[Type] | None = None, hint: str | None = None) -> Type:
        args = self.arg_types(node) if args is None else args
        if args[0].dims != DIMENSIONLESS:
            hint = hint or f"divide by a unit first, e.g. {node.func}(x / 1 {self.unit_word(node.args[0], args[0])})"
            self.fail("E-UNIT", f"{node.func}() needs a dimensionless number, not {args[0].describe()}",
                      node.args[0].span, hint)
        return args[0]

    def reduction_type(self, node: A.Call) -> Type:
        """p5/p50/p95/expected(x) and percentile(x, q): the unit of x; q a fixed number from 0 to 100."""
        args = self.arg_types(node)
        if node.func == "percentile":
            q = self.constant(node.args[1], lookup_cells=True) if args[1].dims == DIMENSIONLESS else None
            if q is None or not 0 <= q <= 100 or args[1].is_array:
                self.fail("E-TYPE", "percentile() needs a fixed number from 0 to 100 as its second argument",
                          node.args[1].span, "e.g. percentile(step, 99)")
        return args[0]

    def same_dims(self, name: str, args: list[Type], node: A.Call) -> None:
        for typ, arg in zip(args[1:], node.args[1:]):
            if typ.dims != args[0].dims:
                self.mismatch(f"mix in {name}()", node, node.args[0], arg, args[0], typ)

    def draw_type(self, node: A.Call) -> Type:
        """Units as for any function; discrete draws need parameters fixed before evaluation."""
        name = node.func
        if self.key is None:
            self.fail("E-TYPE", f"{name}() draws random values: put it in a cell and use the cell here", node.span)
        args = self.arg_types(node)
        if name in CONTINUOUS:
            self.same_dims(name, args, node)
            typ = Type("number", args[0].dims, self.broadcast(args, list(node.args)))
        else:
            for typ, arg in zip(args, node.args):
                if typ.is_array:
                    self.fail("E-TYPE", f"{name}() takes scalars", arg.span)
            for i in DISTRIBUTIONS[name].dimensionless:
                if args[i].dims != DIMENSIONLESS:
                    self.fail("E-UNIT", f"{name}() needs a dimensionless number here, not {args[i].describe()}",
                              node.args[i].span)
            self.fix_parameters(node)
            self.check_parameters(node, args)
            typ = Type("number", args[0].dims)
            if name == "routing_loads":
                ranks = self.constant(node.args[3], lookup_cells=True)
                if ranks is None or ranks < 1 or ranks != int(ranks) or ranks > 4096:
                    self.fail("E-TYPE", "routing_loads() needs a whole number of ranks (1 to 4096) known before "
                                        "evaluation", node.args[3].span)
                typ = Type("number", args[0].dims, int(ranks))
        self.checked.distributions.append(Draw(self.key, self.draws, node))
        self.draws += 1
        return typ

    def check_parameters(self, node: A.Call, args: list[Type]) -> None:
        """Parameters known before evaluation are checked here, at their position, not when sampling."""
        values = [self.constant(a, lookup_cells=True) if t.dims == DIMENSIONLESS else None
                  for a, t in zip(node.args, args)]
        problem = parameter_problem(node.func, values)
        if problem is not None:
            self.fail("E-TYPE", problem[1], node.args[problem[0]].span)

    def fix_parameters(self, node: A.Call) -> None:
        """A discrete draw is sampled before evaluation: its parameters may not be random,
        and varying the cells they come from needs a sheet compiled per value."""
        stack = [self.checked.bindings[n] for a in node.args for n in A.names(a) if n in self.checked.bindings]
        while stack:
            key = stack.pop()
            if key in self.checked.uncertain:
                self.fail("E-TYPE", f"{node.func}() parameters must be fixed, but {key} is random", node.span,
                          "draw continuous values (uniform, normal …) where a parameter is uncertain")
            if key not in self.checked.structural_inputs:
                self.checked.structural_inputs.add(key)
                cell = self.checked.cells.get(key)
                stack.extend(cell.deps if cell is not None else ())

    def array_length(self, node: A.Node) -> float | None:
        """`count(x)` of a numeric array: its length, which the types fix before
        evaluation (`range(count(stages))` stays in step with `stages`). Not of
        booleans, whose count is the number of trues."""
        if not (isinstance(node, A.Call) and node.func == "count" and len(node.args) == 1):
            return None
        typ = node_type(self.checked, node.args[0])
        if typ is None or typ.length is None or typ.is_bool:   # not a (numeric) array
            return None
        return float(typ.length)

    def range_type(self, node: A.Call) -> Type:
        values = []
        for arg in node.args:
            typ = self.type_of(arg)
            if typ.is_bool or typ.is_array:
                self.fail("E-TYPE", "range() takes numbers", arg.span)
            if typ.dims != DIMENSIONLESS:
                self.fail("E-UNIT", f"range() needs dimensionless numbers, not {typ.describe()}", arg.span)
            value = self.constant(arg, lookup_cells=True)
            if value is None:
                value = self.array_length(arg)
            if value is None:
                self.fail("E-TYPE", "range() needs a length known before evaluation", arg.span,
                          "use literals, input cells or count(array) for its bounds")
            values.append(value)
        lo, hi = (0.0, values[0]) if len(values) == 1 else (values[0], values[1])
        count = int(max(0, -(-(hi - lo) // 1)))
        limit = current_limits().max_array_length
        if count > limit:
            self.fail("E-TYPE", f"range() of {count:,} elements is over the limit of {limit:,} elements per array",
                      node.span, "raise the limit with --max-array-length N")
        if count == 0:
            self.fail("E-TYPE", "range() is empty", node.span)
        self.checked.constants[node] = lo
        return Type("number", DIMENSIONLESS, count)

    def interpolation_type(self, node: A.Call) -> Type:
        """interp(x, xs, ys) and its kin: x of xs's dimension, xs and ys arrays of one length
        (xs strictly increasing when it is known before evaluation): ys's dimension, x's shape."""
        x, xs, ys = self.arg_types(node)
        usage = f"usage: {FUNCTIONS[node.func].signature}, xs and ys arrays (a table's columns: t.size, t.time)"
        for typ, arg, what in ((xs, node.args[1], "xs"), (ys, node.args[2], "ys")):
            if not typ.is_array:
                self.fail("E-TYPE", f"{node.func}() needs an array as {what}, not {typ.describe()}", arg.span, usage)
        if xs.length != ys.length:
            self.fail("E-TYPE", f"{node.func}() needs xs and ys of one length, not {xs.length} and {ys.length}",
                      node.args[2].span, usage)
        if x.dims != xs.dims:
            xw, sw = self.unit_word(node.args[0], x), self.unit_word(node.args[1], xs)
            self.fail("E-UNIT", f"{node.func}() looks up {xw} ({describe(x.dims)}) among xs of {sw} "
                                f"({describe(xs.dims)})", node.args[0].span,
                      f"x is looked up among xs, so both are {describe(xs.dims)} (x in {sw}), or xs is a column "
                      f"of {describe(x.dims)}")
        known = self.known_array(node.args[1])
        if known is not None and not all(a < b for a, b in zip(known, known[1:])):
            at = next(i for i, (a, b) in enumerate(zip(known, known[1:])) if not a < b)
            self.fail("E-TYPE", f"{node.func}() needs xs strictly increasing, but element {at + 2} is not above "
                                f"element {at + 1}", node.args[1].span, "sort the points by x; one y per x")
        return Type("number", ys.dims, x.length)

    def known_array(self, node: A.Node) -> list[float] | None:
        """An array written as a literal of numbers (or an input cell holding one: a table's column), in base
        units, or None."""
        if isinstance(node, A.Name):
            key = self.checked.bindings.get(node)
            cell = self.checked.model.cells.get(key) if key else None
            if cell is None or cell.kind != "input" or cell.formula is None:
                return None
            node = cell.formula.expr
        if not isinstance(node, A.Array):
            return None
        numbers = [i for i in node.items if isinstance(i, A.Number) and i.unit is None]
        if len(numbers) < len(node.items):
            return None
        factor = parse_unit(node.unit).factor if node.unit else 1.0
        return [i.value * factor for i in numbers]

    # functions.UNIT_RULES -> its method (tests/engine/test_function_table.py: one for each rule)
    RULES: ClassVar[dict[str, Callable[[CallRules, A.Call], Type]]] = {
        "extreme": extreme_type, "same": same_type, "any": any_type, "sqrt": sqrt_type, "rounding": rounding_type,
        "dimensionless": dimensionless_type, "total": total_type, "count": count_type, "choice": choice_type,
        "share": share_type, "reduction": reduction_type, "range": range_type, "draw": draw_type,
        "interpolation": interpolation_type,
    }



def fold_constant(node: A.Node, checked: Checked | Draft | None, overrides: dict[str, float] | None = None,
                  depth: int = 0, visited: set[str] | None = None) -> float | None:
    """The value of a dimensionless expression of literals (and, with `checked`,
    input cells), or None when it depends on anything else."""
    if depth > 50:
        return None
    if isinstance(node, A.Number):
        return node.value if node.unit is None else None
    if isinstance(node, A.Unary) and node.op == "-":
        inner = fold_constant(node.operand, checked, overrides, depth + 1, visited)
        return None if inner is None else -inner
    if isinstance(node, A.Binary) and node.op in "+-*/^":
        left = fold_constant(node.left, checked, overrides, depth + 1, visited)
        right = fold_constant(node.right, checked, overrides, depth + 1, visited)
        if left is None or right is None:
            return None
        try:
            return {"+": left + right, "-": left - right, "*": left * right,
                    "/": left / right if right else None, "^": float(left ** right) if not (left < 0 and right % 1) else None}[node.op]
        except (OverflowError, ZeroDivisionError):
            return None
    if isinstance(node, A.Name) and checked is not None:
        key = checked.bindings.get(node)
        if key is None:
            return None
        if visited is not None:
            visited.add(key)
        if overrides and key in overrides:
            return overrides[key]
        cell = checked.model.cells.get(key)
        if cell is None or cell.formula is None or cell.formula.display_unit:
            return None
        return fold_constant(cell.formula.expr, checked, overrides, depth + 1, visited)
    return None


def _arity(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"at least {lo} argument" + ("s" if lo != 1 else "")
    if lo == hi:
        return f"{lo} argument" + ("s" if lo != 1 else "")
    return f"{lo} to {hi} arguments"


