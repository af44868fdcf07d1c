"""Name resolution (spec §3.3): every name a formula reads bound to a cell key,
or E-NAME with a did-you-mean hint."""
from __future__ import annotations

from supersheet.engine.base.diagnostics import Diagnostic, did_you_mean, unknown_cell
from supersheet.engine.base.span import Origin
from supersheet.engine.check.checked import Draft
from supersheet.engine.formula import ast as A
from supersheet.engine.load.model import Cell, Scope


def origin_of(cell: Cell) -> Origin:
    spec = cell.set_by or cell.spec
    return spec.origin


def resolve_deps(checked: Draft, cell: Cell) -> tuple[str, ...]:
    assert cell.formula is not None
    found: dict[str, None] = {}   # insertion-ordered set: a formula may read thousands of cells
    # a `use: … set:` formula is read where it is written, in the importing
    # sheet (format 9.1); the imported sheet's cells are reached via the alias
    scope = cell.formula_scope
    imported = cell.scope if scope is not cell.scope else None
    local, bindings = scope.names, checked.bindings
    for node in A.names(cell.formula.expr):
        key = local.get(node.name) if node.alias is None else None   # a cell of the sheet itself: inline
        if key is None:
            key = resolve_name(checked, node, scope, origin_of(cell), imported)
            if key is None:
                continue
        else:
            bindings[node] = key
        found[key] = None
    return tuple(found)


def resolve_name(checked: Draft, node: A.Name, scope: Scope, origin: Origin,
                 imported: Scope | None = None) -> str | None:
    """Bind a Name node to a cell key, or record E-NAME with a hint.

    `imported` is the sheet a `use: … set:` formula sets a cell of: its cells
    are not in `scope` unqualified, and the hint spells them with the alias."""
    hint: str | None
    if node.alias is None:
        key = scope.names.get(node.name)
        if key is None:
            if imported is not None and node.name in imported.names:
                alias = imported.prefix[len(scope.prefix):-1]
                hint = (f"a set: formula is read in this sheet; the imported sheet's cell is "
                        f"{alias}.{node.name}")
            else:
                hint = did_you_mean(node.name, list(scope.names)
                                    + [f"{a}.{n}" for a, s in scope.aliases.items() for n in s.names])
            checked.diagnostics.append(unknown_cell(node.name, hint, origin.span(*node.span)))
            return None
    else:
        target = scope.aliases.get(node.alias)
        if target is None and node.alias in scope.broken:
            return None  # the failed import is reported where it is declared
        if target is None:
            start = node.span[0]
            hint = did_you_mean(node.alias, scope.aliases)
            if hint is None and node.alias in scope.names:
                hint = f"{node.alias} is a cell; imported sheets are declared under 'use:'"
            checked.diagnostics.append(Diagnostic(
                "E-NAME", f"unknown import {node.alias!r}", origin.span(start, start + len(node.alias)), hint=hint))
            return None
        key = target.names.get(node.name)
        if key is None:
            start = node.span[0] + len(node.alias) + 1
            checked.diagnostics.append(Diagnostic(
                "E-NAME", f"{node.alias!r} has no cell {node.name!r}", origin.span(start, node.span[1]),
                hint=target.missing_hint or did_you_mean(node.name, target.names)))
            return None
    checked.bindings[node] = key
    return key

