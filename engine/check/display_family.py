"""Display units follow the operands (format 9.4).

Without `->`, a result is shown in the unit family of what it was computed
from: a sum or difference of `%` values stays in `%` (`80 % + 5 %` shows
`85 %`, not `0.85`), and a quantity computed only from binary-prefixed
operands gets a binary prefix (`131072 token * 320 KiB/token` shows `40 GiB`,
not `42.95 GB`); operands of both families, or none, give decimal.

The family of a cell is that of the unit its sheet shows it in (`-> GiB`,
`unit:`), else that of every unit written in its formula and of every cell it
reads, so it carries through a chain of cells.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from supersheet.engine.formula import ast as A
from supersheet.units.parse import prefix_family

if TYPE_CHECKING:
    from supersheet.engine.check.checked import Checked, Draft

_SHARES = ("%", "‰")


def formula_family(formula: A.Formula, unit: str | None, checked: Checked | Draft) -> str | None:
    """"binary", "decimal", "mixed" or None: the unit a cell is shown in when its
    sheet names one (`-> GiB`, `unit:`), else the prefix families of its operands."""
    chosen = formula.display_unit or unit
    if chosen:
        return prefix_family(chosen)
    found: set[str] = set()
    stack = [formula.expr]
    cells, bindings = checked.cells, checked.bindings
    while stack:   # by exact class (the node classes are final): every formula of a sheet is walked so
        node = stack.pop()
        cls = type(node)
        if cls is A.Binary:
            stack.append(node.left)   # type: ignore[union-attr]  # cls is A.Binary: isinstance costs a call a node
            stack.append(node.right)   # type: ignore[union-attr]  # cls is A.Binary (as above)
            continue
        if cls is A.Name:
            cell = cells.get(bindings.get(node, ""))
            family = cell.family if cell is not None else None
        elif cls is A.Number or cls is A.Array:
            unit = node.unit   # type: ignore[union-attr]  # cls is A.Number or A.Array: both have .unit
            family = prefix_family(unit) if unit else None
        else:
            family = None
        if family is not None:
            found.update(("binary", "decimal") if family == "mixed" else (family,))
        stack.extend(A.children(node))
    if not found:
        return None
    return "mixed" if len(found) > 1 else next(iter(found))


def share_unit(expr: A.Node, checked: Checked | Draft) -> str | None:
    """`%` (or `‰`) when the formula is a sum or difference of values shown in it."""
    if not (isinstance(expr, A.Binary) and expr.op in ("+", "-")):
        return None
    units: set[str] = set()
    stack: list[A.Node] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Binary) and node.op in ("+", "-"):
            stack.extend((node.left, node.right))
        elif isinstance(node, A.Unary) and node.op == "-":
            stack.append(node.operand)
        else:
            unit = _shown_in(node, checked)
            if unit not in _SHARES:
                return None
            units.add(unit)
    return units.pop() if len(units) == 1 else "%"


def _shown_in(node: A.Node, checked: Checked | Draft) -> str | None:
    if isinstance(node, A.Number):
        return node.unit
    if isinstance(node, A.Name):
        cell = checked.cells.get(checked.bindings.get(node, ""))
        return cell.display_unit if cell is not None else None
    return None
