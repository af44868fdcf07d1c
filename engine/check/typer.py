"""Unit and type checking of formula nodes (spec §3.5, §3.6): the Typer infers the
type of every node of a formula whose names are resolved, recording E-UNIT and E-TYPE."""
from __future__ import annotations

from typing import NoReturn

from supersheet.engine.base.diagnostics import Diagnostic, Label
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.span import Origin
from supersheet.engine.base.types import BOOL, Type, number_of
from supersheet.engine.check.check_calls import CallRules, fold_constant
from supersheet.engine.check.checked import CheckedCell, Draft, scratch_draft
from supersheet.engine.check.display_family import formula_family, share_unit
from supersheet.engine.check.names import resolve_name
from supersheet.engine.check.reductions import classify
from supersheet.engine.check.set_kind import literal_type, set_kind_problem
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import formula_body
from supersheet.engine.load.model import CONDITIONS, Cell, Scope
from supersheet.units import DIMENSIONLESS, UnitError, compact_unit, describe, divide, multiply, parse_unit, power


class CheckFailed(Exception):
    """Abandon typing this formula; the diagnostic is already recorded (the caller, a cell
    or a where/goal expression, stops there and reports what was recorded)."""


class Typer(CallRules):
    """Infers and checks the type of formula nodes."""

    def __init__(self, checked: Draft) -> None:
        self.checked = checked   # written as the formulas are typed; frozen when done
        self.origin = Origin("", 1, 1)
        self.scope: Scope | None = None
        self._text: str | None = ""
        self._written = ""   # the formula as written, whose body `text` is
        self.key: str | None = None   # the cell being typed (None for where/require/goal)
        self.draws = 0
        self.sampling_calls = 0   # draws and reductions typed in the current formula

    @property
    def text(self) -> str:
        """The formula's body as written (diagnostics quote it), found only when one needs it."""
        if self._text is None:
            self._text = formula_body(self._written)[0]
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value

    # -- cells ------------------------------------------------------------
    def check_cell(self, cell: Cell, deps: tuple[str, ...]) -> CheckedCell:
        if cell.formula is None:
            return CheckedCell(None, deps, ok=False)
        spec = cell.set_by or cell.spec
        self.origin, self.scope, self._text, self._written = spec.origin, cell.formula_scope, None, spec.text
        self.key, self.draws, self.sampling_calls = cell.key, 0, 0
        try:
            typ = self.formula_type(cell.formula)
            if cell.formula.display_unit is None and cell.spec.unit and typ is not None:
                self.check_display(cell.spec.unit, typ, None, cell.spec.unit_span)
        except CheckFailed:
            return CheckedCell(None, deps, ok=False)
        problem = (set_kind_problem(cell, typ, _written_type(self.checked, cell))
                   if cell.set_by is not None and typ is not None else None)
        if problem is not None:
            self.checked.diagnostics.append(problem)
            return CheckedCell(None, deps, ok=False)
        # varies over samples, or reduces them (9.6)
        classify(cell.key, cell.formula.expr, deps, self.checked, self.sampling_calls > 0)
        if cell.kind in CONDITIONS and typ is not None and not typ.is_bool:
            what = "check" if cell.kind == "check" else "assumption"
            self.error("E-TYPE", f"{what} {cell.name!r} must be a condition (a boolean), not {typ.describe()}",
                       (0, len(self.text)))
            return CheckedCell(None, deps, ok=False)
        display = cell.formula.display_unit or cell.spec.unit
        if display == "1":      # `-> 1`: a plain number, shown in no unit (format 10.4)
            display = None
        elif display is None and typ is not None and not typ.is_bool:
            display = _natural_unit(cell.formula.expr) or share_unit(cell.formula.expr, self.checked)
        elif display is not None:
            display = parse_unit(display).text   # one spelling everywhere: `-> us` shows as μs
        return CheckedCell(typ, deps, display, family=formula_family(cell.formula, cell.spec.unit, self.checked))

    def formula_type(self, formula: A.Formula) -> Type:
        typ = self.type_of(formula.expr)
        if formula.display_unit is not None:
            self.check_display(formula.display_unit, typ, formula.display_span, None)
        return typ

    def check_display(self, unit: str, typ: Type, span: tuple[int, int] | None, file_span) -> None:
        try:
            parsed = parse_unit(unit)
        except UnitError as e:
            self.unit_error(e, span, file_span)
        if typ.is_bool:
            self.fail_at("E-TYPE", f"a condition has no unit to convert to {unit!r}", span, file_span)
        if parsed.dimensions != typ.dims:
            self.fail_at("E-UNIT", f"cannot show {typ.describe()} in {unit} ({describe(parsed.dimensions)})",
                         span, file_span, hint=_unit_hint(typ))

    def fail_at(self, code: str, message: str, span, file_span, hint: str | None = None) -> NoReturn:
        where = self.origin.span(*span) if span is not None else (file_span or self.origin.span(0, len(self.text)))
        self.checked.diagnostics.append(Diagnostic(code, message, where, hint=hint))
        raise CheckFailed

    def unit_error(self, e: UnitError, span, file_span) -> NoReturn:
        if span is not None:
            start = span[0] + e.offset
            self.fail_at("E-UNIT", e.message, (start, start + max(e.length, 1)), None, e.hint)
        self.fail_at("E-UNIT", e.message, None, file_span, e.hint)

    # -- nodes ------------------------------------------------------------
    def error(self, code: str, message: str, span: tuple[int, int], hint: str | None = None,
              labels: tuple[Label, ...] = ()) -> None:
        self.checked.diagnostics.append(Diagnostic(code, message, self.origin.span(*span), labels, hint))

    def fail(self, code: str, message: str, span: tuple[int, int], hint: str | None = None,
             labels: tuple[Label, ...] = ()) -> NoReturn:
        self.error(code, message, span, hint, labels)
        raise CheckFailed

    def type_of(self, node: A.Node) -> Type:
        checked = self.checked
        if type(node) is A.Name:   # here, not in _type_of: a name is the most frequent node (~half of them)
            target = checked.cells.get(checked.bindings.get(node))   # type: ignore[arg-type]  # unbound: get(None) is None
            if target is None or target.type is None:
                raise CheckFailed  # unbound (its E-NAME is recorded), or the cell has its own diagnostic
            return target.type   # not recorded: a name's type is its cell's (checked.node_type)
        typ = checked.node_types[node] = self._type_of(node)
        return typ

    def _type_of(self, node: A.Node) -> Type:
        # the exact class, most frequent first (the node classes are final): this runs for every
        # node of every formula, and an isinstance chain was a tenth of checking a large sheet
        cls = type(node)   # (a Name is typed by type_of itself)
        # (`cls is` narrows nothing for mypy: each branch's call takes the class its test names)
        if cls is A.Binary:
            return self.binary_type(node)   # type: ignore[arg-type]  # dispatched on cls (above)
        if cls is A.Number:
            return self.number_type(node)   # type: ignore[arg-type]  # dispatched on cls (above)
        if cls is A.Bool:
            return BOOL
        if cls is A.Array:
            return self.array_type(node)   # type: ignore[arg-type]  # dispatched on cls (above)
        if cls is A.Unary:
            return self.unary_type(node)   # type: ignore[arg-type]  # dispatched on cls (above)
        if isinstance(node, A.Binary):
            return self.binary_type(node)
        return self.call_type(node)   # type: ignore[arg-type]  # the one class left: A.Call

    def unary_type(self, node: A.Unary) -> Type:
        operand = self.type_of(node.operand)
        if node.op == "not":
            self.need_bool(operand, node.operand, "not")
        else:
            self.need_number(operand, node.operand, "-")
        return operand

    def number_type(self, node: A.Number) -> Type:
        """A literal's type: one Type per unit spelling (a sheet writes the same few units thousands of times)."""
        typ = _LITERAL_TYPES.get(node.unit)
        if typ is None:
            typ = Type("number", self.unit_dims(node.unit, node.unit_span, node))
            if len(_LITERAL_TYPES) < 4096:   # bounded, as parse_unit's own cache
                _LITERAL_TYPES[node.unit] = typ
        return typ

    def unit_dims(self, unit: str | None, span: tuple[int, int] | None, number: A.Number | None = None):
        if unit is None:
            return DIMENSIONLESS
        try:
            return parse_unit(unit).dimensions
        except UnitError as e:
            hint = e.hint
            if hint is None and unit.isidentifier():   # perhaps a cell: `3 n` for 3 * n
                written = self.number_text(number) if number is not None else "2"
                hint = f"multiplication is written with '*': {written} * {unit}"
            assert span is not None
            start = span[0] + e.offset
            self.fail("E-UNIT", e.message, (start, start + max(e.length, 1)), hint)

    def array_type(self, node: A.Array) -> Type:
        limit = current_limits().max_array_length
        if len(node.items) > limit:      # refused before each element is typed and compiled
            self.fail("E-TYPE", f"an array of {len(node.items):,} elements is over the limit of {limit:,} elements",
                      node.span, "raise the limit with --max-array-length N")
        items = [self.type_of(i) for i in node.items]
        first = items[0]
        for item, child in zip(items, node.items):
            if item.is_array:
                self.fail("E-TYPE", "arrays cannot be nested", child.span)
            if item.kind != first.kind:
                self.fail("E-TYPE", "an array mixes booleans and numbers", child.span)
            if item.dims != first.dims:
                self.fail("E-UNIT", f"array elements of different dimensions: {first.describe()} and {item.describe()}",
                          child.span)
        dims = first.dims
        if node.unit is not None:
            if first.is_bool:
                self.fail("E-TYPE", "an array of booleans has no unit", node.unit_span or node.span)
            dims = multiply(dims, self.unit_dims(node.unit, node.unit_span))
        return Type(first.kind, dims, len(items))

    def need_number(self, typ: Type, node: A.Node, op: str) -> None:
        if typ.is_bool:
            self.fail("E-TYPE", f"a boolean cannot be used as a number (in {op!r})", node.span,
                      "count trues with sum(...) or choose a number with if(cond, a, b)")

    def need_bool(self, typ: Type, node: A.Node, op: str) -> None:
        if not typ.is_bool:
            self.fail("E-TYPE", f"{op!r} needs a condition (a boolean), not {typ.describe()}", node.span)

    def broadcast(self, types: list[Type], nodes: list[A.Node]) -> int | None:
        length: int | None = None
        for typ, node in zip(types, nodes):
            if typ.length is None:
                continue
            if length is not None and typ.length != length:
                self.fail("E-TYPE", f"arrays of different lengths: {length} and {typ.length}", node.span)
            length = typ.length
        return length

    def mismatch(self, verb: str, node: A.Node, left: A.Node, right: A.Node, lt: Type, rt: Type) -> NoReturn:
        lw, rw = self.unit_word(left, lt), self.unit_word(right, rt)
        labels = (Label(self.origin.span(*left.span), lw), Label(self.origin.span(*right.span), rw))
        message = f"cannot {verb} {lw} ({describe(lt.dims)}) and {rw} ({describe(rt.dims)})"
        self.checked.diagnostics.append(Diagnostic("E-UNIT", message, self.origin.span(*right.span), labels,
                                                   self.convert_hint(left, right, lt, rt, verb)))
        raise CheckFailed

    def unit_word(self, node: A.Node, typ: Type) -> str:
        unit = _natural_unit(node)
        if unit is None and isinstance(node, A.Name):
            key = self.checked.bindings.get(node)
            cell = self.checked.cells.get(key) if key else None
            unit = cell.display_unit if cell else None
        return unit or compact_unit(1.0, typ.dims) or "a number"

    def convert_hint(self, left: A.Node, right: A.Node, lt: Type, rt: Type, verb: str) -> str | None:
        """Suggest dividing one side by a cell whose dimensions bridge the two."""
        if self.scope is None or verb not in ("add", "subtract", "compare"):
            return None
        needed = divide(lt.dims, rt.dims)
        for key, cell in self.checked.cells.items():
            if cell.type is not None and not cell.type.is_array and cell.type.dims == needed and not cell.type.is_bool:
                name = self._visible_name(key)
                if name:
                    op = {"add": "+", "subtract": "-", "compare": "vs"}[verb]
                    return f"did you mean {self.snippet(left)} / {name} {op} {self.snippet(right)}?"
        return None

    def _visible_name(self, key: str) -> str | None:
        assert self.scope is not None
        for name, k in self.scope.names.items():
            if k == key:
                return name
        for alias, sub in self.scope.aliases.items():
            for name, k in sub.names.items():
                if k == key:
                    return f"{alias}.{name}"
        return None

    def number_text(self, node: A.Number) -> str:
        """A number literal as written, without its unit."""
        if self.origin.exact and self.text and node.unit_span is not None:
            return self.text[node.span[0]:node.unit_span[0]].strip()
        return A.to_text(A.Number(node.value, None, node.span))

    def snippet(self, node: A.Node) -> str:
        if self.origin.exact and self.text:
            return self.text[node.span[0]:node.span[1]]
        return A.to_text(node)

    def binary_type(self, node: A.Binary) -> Type:
        # a flat run (a + b + … + z) in a loop: only real nesting recurses (A.fold_run, inlined:
        # this is the checker's hottest loop)
        left = node.left
        if type(left) is not A.Binary or not A.same_chain(left, node.op):   # a run of one, the most common
            return self.combine(node, self.type_of(left), self.type_of(node.right))   # (type_of records it)
        first, links = A.unroll(node)
        type_of, node_types = self.type_of, self.checked.node_types
        typ = type_of(first)
        for link in links:
            right = type_of(link.right)
            typ = self.combine(link, typ, right)
            node_types[link] = typ   # every operator of the run, for the compiler
        return typ

    def combine(self, node: A.Binary, lt: Type, rt: Type) -> Type:
        op = node.op
        if lt.length is None and rt.length is None and lt.kind == "number" and rt.kind == "number":
            # two scalar numbers, the common case: the rules below without their general checks
            if op in ("+", "-"):
                if lt.dims == rt.dims:
                    return lt   # Type("number", lt.dims, None) is lt
            elif op == "*":
                return number_of(multiply(lt.dims, rt.dims))
            elif op == "/":
                return number_of(divide(lt.dims, rt.dims))
        if op in ("and", "or"):
            self.need_bool(lt, node.left, op)
            self.need_bool(rt, node.right, op)
            return BOOL.with_length(self.broadcast([lt, rt], [node.left, node.right]))
        if op in ("==", "!=") and lt.is_bool and rt.is_bool:
            return BOOL.with_length(self.broadcast([lt, rt], [node.left, node.right]))
        self.need_number(lt, node.left, op)
        self.need_number(rt, node.right, op)
        length = self.broadcast([lt, rt], [node.left, node.right])
        if op in ("+", "-"):
            if lt.dims != rt.dims:
                self.mismatch("add" if op == "+" else "subtract", node, node.left, node.right, lt, rt)
            return number_of(lt.dims, length)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            if lt.dims != rt.dims:
                self.mismatch("compare", node, node.left, node.right, lt, rt)
            return BOOL.with_length(length)
        if op == "*":
            return number_of(multiply(lt.dims, rt.dims), length)
        if op == "/":
            return number_of(divide(lt.dims, rt.dims), length)
        # power
        if rt.dims != DIMENSIONLESS:
            self.fail("E-UNIT", f"an exponent must be dimensionless, not {rt.describe()}", node.right.span)
        if lt.dims == DIMENSIONLESS:
            return Type("number", DIMENSIONLESS, length)
        exponent = self.constant(node.right)
        if exponent is None or rt.is_array:
            self.fail("E-UNIT", f"a quantity with a unit ({lt.describe()}) can only be raised to a fixed number",
                      node.right.span, "write the exponent as a literal, e.g. x ^ 2")
        return Type("number", power(lt.dims, exponent), length)

    def constant(self, node: A.Node, lookup_cells: bool = False) -> float | None:
        visited: set[str] = set()
        value = fold_constant(node, self.checked if lookup_cells else None, visited=visited)
        self.checked.structural_inputs |= visited
        if value is not None:
            self.checked.constants[node] = value
        return value


_LITERAL_TYPES: dict[str | None, Type] = {}   # a literal's unit as written -> its type (Typer.number_type)


def _written_type(checked: Draft, cell: Cell) -> Type | None:
    """The type the imported sheet gives a cell a `set:` replaces (None when unknown):
    an input's literal, or its formula typed in a scratch draft where it is written."""
    spec = cell.spec
    if spec.formula is None or spec.kind not in ("input", "formula"):
        return None
    if spec.kind == "input":
        return literal_type(spec.formula.expr)
    scratch = scratch_draft(checked)
    if any(resolve_name(scratch, node, cell.scope, spec.origin) is None for node in A.names(spec.formula.expr)):
        return None
    typer = Typer(scratch)
    typer.origin, typer.scope, typer.text, typer.key = spec.origin, cell.scope, formula_body(spec.text)[0], cell.key
    try:
        return typer.formula_type(spec.formula)
    except CheckFailed:
        return None


def _natural_unit(node: A.Node) -> str | None:
    """The unit a reader would expect for a formula: that of its leading literal
    (through calls that keep their first argument's unit: `uniform(70 %, 90 %)` is in %)."""
    if isinstance(node, (A.Number, A.Array)) and node.unit:
        return parse_unit(node.unit).text
    if isinstance(node, A.Call) and node.func == "prob":
        return "%"
    if isinstance(node, A.Call) and node.args and node.func in _UNIT_KEEPING:
        return _natural_unit(node.args[1] if node.func == "if" else node.args[0])
    return None


_UNIT_KEEPING = frozenset({"min", "max", "abs", "clamp", "if", "ceil", "floor", "round", "uniform", "normal", "lognormal",
                           "p5", "p50", "p95", "percentile", "expected",
                           "triangular"})


def _unit_hint(typ: Type) -> str | None:
    unit = compact_unit(1.0, typ.dims)
    return f"this is {typ.describe()}; convert to a unit like {unit}" if unit else "this is a plain number"

