"""What the checker produces: each cell's type, dependencies and display unit,
the order to evaluate in, and the bindings of every name — all later stages read it.

`Checked` is immutable. The checker fills a `Draft` and freezes it once; a
later stage that types a formula of its own (a sweep's `where`, a goal, a
requirement: scenarios/expression.py) fills a draft laid over the sheet's
result and keeps what it found in its own result, so the sheet's never grows.

The per-node tables are keyed by the nodes themselves: formula nodes compare
and hash by identity (formula/ast.py), so the same text written in two cells is
two keys, and a table holds the nodes it describes — nothing depends on a node
staying alive elsewhere (as an `id()` key would).
"""
from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TypeVar

from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.base.slots import install_init, slot_setters
from supersheet.engine.base.types import Type
from supersheet.engine.formula.ast import Name, Node
from supersheet.engine.formula.distributions import Draw
from supersheet.engine.load.model import Model

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True, slots=True)   # one a cell: slots, ~1/3 of the memory of a __dict__
class CheckedCell:
    """What the checker found of a cell: its type, precedents and display unit."""
    type: Type | None
    deps: tuple[str, ...] = ()
    display_unit: str | None = None
    ok: bool = True
    family: str | None = None   # prefix family of the operands: "binary", "decimal", "mixed" (display_family.py)


# One a cell: its __init__ sets the slots directly (engine/base/slots.py).
_cell_type, _cell_deps, _cell_display_unit, _cell_ok, _cell_family = slot_setters(
    CheckedCell, "type", "deps", "display_unit", "ok", "family")


def _checked_cell_init(self: CheckedCell, type: Type | None, deps: tuple[str, ...] = (),
                       display_unit: str | None = None, ok: bool = True, family: str | None = None) -> None:
    _cell_type(self, type)
    _cell_deps(self, deps)
    _cell_display_unit(self, display_unit)
    _cell_ok(self, ok)
    _cell_family(self, family)


install_init(CheckedCell, _checked_cell_init)


@dataclass(frozen=True, eq=False)
class Checked:
    """Everything later stages need: per-cell types and deps, per-node types and bindings."""

    model: Model
    cells: Mapping[str, CheckedCell]
    order: tuple[str, ...]                   # topological, cycle-free cells only
    bindings: Mapping[Node, str]             # Name node -> cell key
    node_types: Mapping[Node, Type]          # of every node but a cell name's (its cell's: `node_type`)
    constants: Mapping[Node, float]          # node -> folded value (range args, exponents)
    structural_inputs: frozenset[str]        # cells whose value shapes the compiled sheet (range bounds,
    #   parameters of discrete distributions): varying them needs a sheet compiled per value
    distributions: tuple[Draw, ...]          # (cell key, occurrence, Call node) of every random draw
    uncertain: frozenset[str]                # cells holding a draw or computed from one
    reduced: frozenset[str]                  # deterministic results of reductions over samples
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not sheet_problems(self.diagnostics)

    @cached_property
    def users(self) -> dict[str, list[str]]:
        """Who reads each cell (the reverse of `deps`): what an edit must recompute."""
        users: dict[str, list[str]] = {}
        for key in self.order:
            for dep in self.cells[key].deps:
                users.setdefault(dep, []).append(key)
        return users

    @cached_property
    def position(self) -> dict[str, int]:
        """Each evaluable cell's place in `order`."""
        return {key: i for i, key in enumerate(self.order)}


@dataclass
class Draft:
    """The checker's working state, with the fields of `Checked`; `freeze` makes the result."""

    model: Model
    cells: dict[str, CheckedCell] | Mapping[str, CheckedCell] = field(default_factory=dict)
    order: list[str] | tuple[str, ...] = field(default_factory=list)
    bindings: dict[Node, str] | ChainMap[Node, str] = field(default_factory=dict)
    node_types: dict[Node, Type] | ChainMap[Node, Type] = field(default_factory=dict)
    constants: dict[Node, float] | ChainMap[Node, float] = field(default_factory=dict)
    structural_inputs: set[str] = field(default_factory=set)
    distributions: list[Draw] = field(default_factory=list)
    uncertain: set[str] = field(default_factory=set)
    reduced: set[str] = field(default_factory=set)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @classmethod
    def over(cls, checked: Checked) -> Draft:
        """A draft for more formulas of a checked sheet: it reads the sheet's
        result and writes only its own tables (the sheet's stays as it was)."""
        return cls(checked.model, checked.cells, checked.order, layer_over({}, checked.bindings),
                   layer_over({}, checked.node_types), layer_over({}, checked.constants),
                   set(checked.structural_inputs), list(checked.distributions), set(checked.uncertain),
                   set(checked.reduced), [])

    def freeze(self, base: Checked | None = None) -> Checked:
        """The immutable result. Over `base` (a draft from `over`): the sheet's
        result seen together with the formula typed here."""
        result = Checked(self.model, MappingProxyType(self.cells), tuple(self.order),
                         MappingProxyType(self.bindings), MappingProxyType(self.node_types),
                         MappingProxyType(self.constants), frozenset(self.structural_inputs),
                         tuple(self.distributions), frozenset(self.uncertain), frozenset(self.reduced),
                         base.diagnostics if base is not None else tuple(self.diagnostics))
        tables = (self.bindings, self.node_types, self.constants)
        if all(type(table) is dict for table in tables):
            vars(result)[NODE_TABLES] = tables   # behind the read-only views, for an edit's `Layered` tables
        return result


NODE_TABLES = "_node_tables"   # a result's per-node tables themselves (dicts, or `Layered`), not their views


class Layered(Mapping):
    """A per-node table of a result an edit made (check.with_literal): the table `base`
    of the sheet as checked, with the entries `extra` typed since and the keys `hidden`
    (the literals the edits replaced) taken out. The next edit makes a new one over the
    same base, copying only `extra` and `hidden`, a few nodes per edit, instead of the
    hundreds of thousands of the base (~3 ms a table at 20,000 cells: bench/bench_edit.py).
    No result's table ever changes: each has its own `extra` and `hidden`."""

    __slots__ = ("base", "extra", "hidden")

    def __init__(self, base: Mapping, extra: dict, hidden: frozenset) -> None:
        self.base, self.extra, self.hidden = base, extra, hidden   # hidden: keys of base only, none in extra

    def __getitem__(self, key):
        if key in self.extra:
            return self.extra[key]
        if key in self.hidden:
            raise KeyError(key)
        return self.base[key]

    def get(self, key, default=None):
        if key in self.extra:
            return self.extra[key]
        return default if key in self.hidden else self.base.get(key, default)

    def __contains__(self, key) -> bool:
        return key in self.extra or (key not in self.hidden and key in self.base)

    def __iter__(self):
        yield from self.extra
        for key in self.base:
            if key not in self.hidden and key not in self.extra:
                yield key

    def __len__(self) -> int:
        return len(self.base) - len(self.hidden) + sum(1 for key in self.extra if key not in self.base)

    def copy(self) -> dict:
        table = dict(self.base)
        for key in self.hidden:
            del table[key]
        table.update(self.extra)
        return table


def scratch_draft(checked: Draft) -> Draft:
    """A draft over `checked` whose own tables are thrown away: for typing a formula that is never evaluated."""
    return Draft(checked.model, checked.cells, checked.order, layer_over({}, checked.bindings),
                 layer_over({}, checked.node_types), layer_over({}, checked.constants))


def layer_over(own: dict[K, V], base: Mapping[K, V]) -> ChainMap[K, V]:
    """`own` seen over `base`: what is written goes into `own`, `base` is only read."""
    # ChainMap writes only to its first map; typeshed asks every map to be mutable, and
    # `base` is a result's read-only view (MappingProxyType), which this never writes.
    return ChainMap(own, base)  # type: ignore[arg-type]  # `base` only read (above)


def node_type(checked: Checked | Draft, node: Node) -> Type | None:
    """The type the checker found for `node` (None: not typed). A cell name's is its cell's,
    not kept in `node_types`: names are ~45 % of a sheet's nodes, and an entry for each made
    the table ~80 % larger, a table every collection of the cycle collector walks (issue 30)."""
    typ = checked.node_types.get(node)
    if typ is None and type(node) is Name:
        cell = checked.cells.get(checked.bindings.get(node))  # type: ignore[arg-type]  # unbound: get(None) is None
        typ = cell.type if cell is not None else None
    return typ
