"""Checking a model (spec §3.3, §3.5, §3.6): the driver.

Three passes over the flattened model: resolve every name to a cell key
(names.py: E-NAME with did-you-mean), order the cells (graph.py reports cycles),
then infer the type of every formula node in dependency order (typer.py: E-UNIT,
E-TYPE). Results are kept per node so the compiler never has to look anything up again.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.gcpause import without_cycle_collection
from supersheet.engine.base.limits import current_limits
from supersheet.engine.check.checked import NODE_TABLES, Checked, CheckedCell, Draft, Layered, layer_over, scratch_draft
from supersheet.engine.check.graph import order_cells, topological
from supersheet.engine.check.names import resolve_deps, resolve_name
from supersheet.engine.check.typer import Typer
from supersheet.engine.formula import ast as A
from supersheet.engine.formula.parser import formula_body
from supersheet.engine.load.model import Cell, Model


@without_cycle_collection
def check_model(model: Model) -> Checked:
    cells: dict[str, CheckedCell] = {}
    checked = Draft(model, cells)
    deps: dict[str, tuple[str, ...]] = {}
    for key, cell in model.cells.items():
        deps[key] = resolve_deps(checked, cell) if cell.formula is not None else ()
    order, cycle_diags = order_cells(model, deps)
    checked.order = order
    checked.diagnostics.extend(cycle_diags)
    typer = Typer(checked)
    typing, written = _typing_order(checked, model, order, deps)
    # Cells without precedents first (still a topological order), so that a mismatch's
    # did-you-mean hint can name any input, not only those that precede the formula
    # (two passes in order: what a stable sort on that would give, without a call a cell).
    read = [key for key in typing if deps[key] or written.get(key)]
    for key in [key for key in typing if not (deps[key] or written.get(key))] + read:
        cells[key] = typer.check_cell(model.cells[key], deps[key])
    checked.cells = ordered = {key: cells[key] for key in order}
    for key in model.cells:
        if key not in ordered:
            ordered[key] = CheckedCell(None, deps[key], ok=False)
    _bound_array_elements(checked)
    return checked.freeze()


def with_literal(checked: Checked, model: Model, key: str) -> Checked:
    """The result for `model`, a copy of the checked one (`Model.with_text`) in
    which input `key` holds another literal of the same type: the editor's fast
    path. The new literal's nodes are typed in place of the old one's (which must
    not stay keys of the new result: it would hold them); every cell keeps what was
    checked, its display unit too, as a literal of the same type leaves it. The
    per-node tables are `Layered` over the sheet's as checked: an edit copies the
    nodes edits typed, not the tables (3 copies were ~10 ms of an edit at 20,000
    cells; bench/bench_edit.py); every 1/16 of a table's size they are merged.
    (`.copy()` of a read-only view copies the dict behind it at C speed; `dict(view)`
    goes key by key: ~70 ms instead of ~4 ms CPU on a 20,000-cell chain, bench/bench_checked.py.)"""
    old, new = checked.model.cells[key], model.cells[key]
    assert old.formula is not None and new.formula is not None
    replaced: list[A.Node] = []
    stack: list[A.Node] = [old.formula.expr]
    while stack:
        node = stack.pop()
        replaced.append(node)
        stack.extend(A.children(node))
    tables = vars(checked).get(NODE_TABLES)
    if tables is None:   # a result laid over another (Draft.over): its tables copied
        tables = (checked.bindings, checked.node_types, checked.constants)
    layers: list[tuple[Mapping[A.Node, Any], dict[A.Node, Any], set[A.Node]]] = []   # one a table, of its own values
    for table in tables:
        base, extra, hidden = (table.base, dict(table.extra), set(table.hidden)) if isinstance(table, Layered) \
            else (table, {}, set())
        for node in replaced:
            if node in extra:
                del extra[node]
            elif node in base:
                hidden.add(node)
        layers.append((base, extra, hidden))
    (bindings, own_bindings, _), (node_types, own_types, _), (constants, own_constants, _) = layers
    draft = Draft(model, checked.cells, checked.order, layer_over(own_bindings, bindings),
                  layer_over(own_types, node_types), layer_over(own_constants, constants),
                  set(checked.structural_inputs), list(checked.distributions),
                  set(checked.uncertain), set(checked.reduced), list(checked.diagnostics))
    typer = Typer(draft)
    spec = new.set_by or new.spec
    typer.origin, typer.scope, typer.text, typer.key = spec.origin, new.formula_scope, formula_body(spec.text)[0], key
    typer.formula_type(new.formula)   # a literal of the cell's type: it cannot fail
    own = []
    for base, extra, hidden in layers:
        layered = Layered(base, extra, frozenset(hidden))
        own.append(layered.copy() if len(extra) + len(hidden) > max(64, len(base) // 16) else layered)
    result = dataclasses.replace(draft.freeze(), bindings=MappingProxyType(own[0]), node_types=MappingProxyType(own[1]),
                                 constants=MappingProxyType(own[2]))
    vars(result)[NODE_TABLES] = tuple(own)
    for derived in ("users", "position"):   # from cells and order, which are shared
        if derived in vars(checked):
            vars(result)[derived] = vars(checked)[derived]
    return result


def _typing_order(checked: Draft, model: Model, order: list[str], deps: dict[str, tuple[str, ...]]
                  ) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """The evaluation order, except that a formula a `set:` replaces is typed after the
    cells its own formula reads (returned too), so that its type as written is known
    (`_written_type`). A cycle through those reads only leaves that type unknown."""
    written = {key: _written_deps(checked, cell) for key, cell in model.cells.items()
               if cell.set_by is not None and cell.spec.kind == "formula"}
    if not written:
        return order, written
    ordered = set(order)
    typing = topological(order, {k: deps[k] + written.get(k, ()) for k in deps})
    return [k for k in typing if k in ordered], written


def _written_deps(checked: Draft, cell: Cell) -> tuple[str, ...]:
    """The cells the replaced formula of `cell` reads in its own sheet."""
    spec, scratch = cell.spec, scratch_draft(checked)
    if spec.formula is None:
        return ()
    found = (resolve_name(scratch, node, cell.scope, spec.origin) for node in A.names(spec.formula.expr))
    return tuple(dict.fromkeys(key for key in found if key is not None))


def _bound_array_elements(checked: Draft) -> None:
    """All arrays together stay under the limit, known from the types before
    anything is evaluated (200 cells of range(10000) are 2,000,000 values)."""
    limit, total = current_limits().max_array_elements, 0
    for key, cell in checked.cells.items():
        if cell.type is not None and cell.type.is_array:
            total += cell.type.length or 0
            if total > limit:
                checked.diagnostics.append(Diagnostic(
                    "E-TYPE", f"the sheet's arrays hold more than {limit:,} elements in all (at {key})",
                    checked.model.cells[key].spec.span, hint="raise the limit with --max-array-elements N"))
                return

