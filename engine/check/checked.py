"""What the checker produces: each cell's type, dependencies and display unit,
the order to evaluate in, and the bindings of every name — all later stages read it."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.types import Type
from supersheet.engine.load.model import Model


@dataclass
class CheckedCell:
    type: Type | None
    deps: tuple[str, ...] = ()
    display_unit: str | None = None
    ok: bool = True
    family: str | None = None   # prefix family of the operands: "binary", "decimal", "mixed" (display_family.py)


@dataclass
class Checked:
    """Everything later stages need: per-cell types and deps, per-node types and bindings."""

    model: Model
    cells: dict[str, CheckedCell] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)           # topological, cycle-free cells only
    bindings: dict[int, str] = field(default_factory=dict)   # id(Name node) -> cell key
    node_types: dict[int, Type] = field(default_factory=dict)
    constants: dict[int, float] = field(default_factory=dict)  # id(node) -> folded value (range args, exponents)
    structural_inputs: set[str] = field(default_factory=set)  # cells whose value shapes the compiled sheet (range
    #   bounds, parameters of discrete distributions): varying them needs a sheet compiled per value
    distributions: list = field(default_factory=list)        # (cell key, occurrence, Call node) of every random draw
    uncertain: set[str] = field(default_factory=set)         # cells holding a draw or computed from one
    reduced: set[str] = field(default_factory=set)           # deterministic results of reductions over samples
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.code != "E-EXPECT" for d in self.diagnostics)

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
