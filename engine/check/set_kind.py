"""A `use: … set:` value must be the kind of quantity of the cell it replaces.

`set: {x: 3 s}` on an imported input `x: 1 GB` would otherwise surface as unit
errors inside the imported sheet (`z: = x + 1 GB`), reported in a file the user
did not edit; here it is one E-UNIT at the `set:` value of the importing file.
An input's type is its literal's, known without resolving names; a formula's is
its own formula's, typed by the checker beside the `set:` that replaces it
(check.py, `_written_type`). The length of an array may change (a set may reshape)."""
from __future__ import annotations

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.types import BOOL, Type
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import formula_body
from supersheet.engine.load.model import Cell
from supersheet.units import DIMENSIONLESS, UnitError, parse_unit


def literal_type(node: A.Node) -> Type | None:
    """The type of an input's literal (a number, a boolean, an array of them), or None."""
    if isinstance(node, A.Unary) and node.op == "-":
        return literal_type(node.operand)
    if isinstance(node, A.Bool):
        return BOOL
    if isinstance(node, (A.Number, A.Array)):
        try:
            dims = parse_unit(node.unit).dimensions if node.unit else DIMENSIONLESS
        except UnitError:
            return None
        if isinstance(node, A.Array):
            item = literal_type(node.items[0]) if node.items else None
            if item is None or (item.is_bool and node.unit):
                return None
            return Type(item.kind, dims if node.unit else item.dims, len(node.items))
        return Type("number", dims)
    return None


def set_kind_problem(cell: Cell, typ: Type, original: Type | None) -> Diagnostic | None:
    """E-UNIT/E-TYPE at the `set:` value when it is not the kind of quantity of the
    cell it replaces, whose own type is `original` (None: unknown, nothing to compare)."""
    spec, setter = cell.spec, cell.set_by
    if setter is None or original is None or (original.kind, original.dims) == (typ.kind, typ.dims):
        return None
    code = "E-TYPE" if original.is_bool != typ.is_bool else "E-UNIT"
    what = "input" if spec.kind == "input" else "formula"
    where = setter.origin.span(0, len(formula_body(setter.text)[0].strip()))   # the value, after any `= `
    return Diagnostic(code, f"set: {cell.name} is {typ.describe()} ({setter.text.strip()}), but the {what} it replaces "
                      f"is {original.scalar().describe()} ({spec.text.strip()} in {spec.origin.file})", where,
                      hint=f"give {cell.name} {_a_value_like(original)}, as the imported sheet does")


def _a_value_like(original: Type) -> str:
    return "a condition (true, false or a comparison)" if original.is_bool else \
        f"a value in {original.scalar().describe()}"
