"""A `use: … set:` value must be the kind of quantity of the input it replaces.

`set: {x: 3 s}` on an imported input `x: 1 GB` would otherwise surface as unit
errors inside the imported sheet (`z: = x + 1 GB`), reported in a file the user
did not edit; here it is one E-UNIT at the `set:` value of the importing file.
Only inputs are compared (their type is their literal's, known without
resolving names); the length of an array may change (a set may reshape)."""
from __future__ import annotations

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.types import BOOL, Type
from supersheet.engine.formula import ast as A
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


def set_kind_problem(cell: Cell, typ: Type) -> Diagnostic | None:
    """E-UNIT/E-TYPE at the `set:` value when it is not the replaced input's kind of quantity."""
    spec, setter = cell.spec, cell.set_by
    if setter is None or spec.kind != "input" or spec.formula is None:
        return None
    original = literal_type(spec.formula.expr)
    if original is None or (original.kind, original.dims) == (typ.kind, typ.dims):
        return None
    code = "E-TYPE" if original.is_bool != typ.is_bool else "E-UNIT"
    where = setter.origin.span(0, len(setter.text.strip()))
    return Diagnostic(code, f"set: {cell.name} is {typ.describe()} ({setter.text.strip()}), but the input it replaces "
                      f"is {original.scalar().describe()} ({spec.text.strip()} in {spec.origin.file})", where,
                      hint=f"give {cell.name} a value in {original.scalar().describe()}, as the imported sheet does")
