"""A sheet and everything it imports as one namespace of cells keyed by
qualified name (`gpu.hbm_bandwidth`): the `Model`, its `Cell`s and their
`Scope`s, and `Merged`, a sheet after `extends`. resolve.py builds it
(`build_model`).

An imported sheet's cells get the alias as a prefix, recursively. Every import
of the same file without `set:`, anywhere in the graph, is one instance
(format 10.3, as a module is imported once): its cells are keyed under the
first alias that reaches it, and every other alias is another name for that
scope (`shared`), so an override of one of its cells reaches every importer.
An import with `set:` is an instance of its own (its own imports without
`set:` are still the shared ones); the same file imported twice by one sheet
with the same `set:` (twins) is one copy under two aliases: each twin would
compute the same values, and copying them doubles per level of a fan-out.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.patched import Patched
from supersheet.engine.formula.ast import Formula
from supersheet.engine.load.sheetfile import CellSpec, ImportSpec, SheetFile

if TYPE_CHECKING:   # specs.py (16 dataclasses: ~5 ms) and tables.py are imported by a sheet that has such blocks
    from supersheet.engine.load.tables import Table
    from supersheet.engine.load.specs import ChoiceBlock, Expected, FitBlock, SamplesSpec, SolveBlock, SweepBlock, TableSpec

CONDITIONS = ("check", "assume")   # cell kinds that are conditions: checks (findings) and assumptions (9.2)


@dataclass
class Scope:
    """What names mean inside one (imported) sheet."""

    prefix: str
    names: dict[str, str] = field(default_factory=dict)       # local name -> key
    aliases: dict[str, "Scope"] = field(default_factory=dict)
    path: Path | None = None
    broken: set[str] = field(default_factory=set)   # aliases whose import failed (already reported)
    missing_hint: str | None = None   # why a name is not found here (a table too long for array cells)

    def key(self, name: str) -> str:
        return self.prefix + name


@dataclass(slots=True)   # one a cell of a sheet: slots, a third of a __dict__'s memory
class Cell:
    """A cell of the model: its spec, its effective formula and where its names are read."""
    key: str
    name: str
    spec: CellSpec                 # as written in its own file
    formula: Formula | None        # effective formula (a `set:` may replace it)
    scope: Scope
    kind: str                      # input | formula | check | assume
    set_by: CellSpec | None = None  # the importing `set:` entry, if any
    set_scope: Scope | None = None  # where a `set:` formula was written: its names are read there (format 9.1)

    @property
    def formula_scope(self) -> Scope:
        """The scope the effective formula's names resolve in."""
        return self.set_scope if self.set_by is not None and self.set_scope is not None else self.scope

    @property
    def alias(self) -> str:
        return self.scope.prefix[:-1] if self.scope.prefix else ""


@dataclass
class Merged:
    """A sheet after `extends`: its own entries over its base's."""

    file: SheetFile
    title: str
    doc: str
    use: dict[str, ImportSpec]
    cells: Mapping[str, CellSpec]    # these three: read-only `Patched` views after an edit (Model.with_text)
    checks: Mapping[str, CellSpec]
    assume: Mapping[str, CellSpec]
    sweeps: dict[str, SweepBlock]
    solve: dict[str, SolveBlock]
    choose: dict[str, ChoiceBlock]
    expect: dict[str, Expected]
    samples: SamplesSpec | None
    use_files: dict[str, SheetFile] = field(default_factory=dict)  # the file each `use` entry is written in
    tables: dict[str, TableSpec] = field(default_factory=dict)
    fit: dict[str, FitBlock] = field(default_factory=dict)
    table_files: dict[str, SheetFile] = field(default_factory=dict)  # the file each table is written in

    def use_file(self, alias: str) -> SheetFile:
        """Where `use: alias` is written: its path is relative to that file (a base's own imports to the base)."""
        return self.use_files.get(alias, self.file)


@dataclass
class Model:
    """A sheet with its imports resolved: one namespace of cells keyed `alias.name`."""
    path: Path
    root: Merged | None
    # a dict as built (build_model fills it); after an edit (with_text) a read-only `Patched` view
    cells: Mapping[str, Cell] = field(default_factory=dict)
    scope: Scope = field(default_factory=lambda: Scope(""))
    files: dict[Path, SheetFile] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    twins: dict[str, str] = field(default_factory=dict)   # `b` -> `a`: alias path -> the alias whose cells it shares
    limits: dict[str, int] = field(default_factory=dict)  # the load limits' defaults of its project's supersheet.toml
    shared: dict[str, str] = field(default_factory=dict)  # `mid.hw` -> `hw`: another alias of a shared instance (10.3)
    tables: dict[str, Table] = field(default_factory=dict)  # `nccl` (or `alias.nccl`) -> the table read

    @property
    def title(self) -> str:
        return self.root.title if self.root else ""

    def canonical(self, name: str) -> str:
        """The key of `name` when it reaches a shared instance through another alias
        (`mid.hw.bw` -> `hw.bw`, format 10.3); `name` itself otherwise."""
        while True:
            alias = next((a for a in _prefixes(name) if a in self.shared), None)
            if alias is None:
                return name
            name = self.shared[alias] + name[len(alias):]

    def sharers(self, alias: str) -> list[str]:
        """The other aliases that reach the instance keyed under `alias` (`hw` -> [`mid.hw`, `big.hw`])."""
        return [other for other, first in self.shared.items() if first == alias]

    def twin_hint(self, name: str) -> str | None:
        """Why `b.x` is not a cell when `b` shares the cells of its twin import `a`."""
        alias, _, rest = name.rpartition(".")
        for path, twin in self.twins.items():
            if alias == path or alias.startswith(path + "."):
                shared = twin + name[len(path):]
                return (f"{path} imports the same sheet as {twin}, with the same set:, so it shares "
                        f"{twin}'s cells: {shared}")
        return None

    def with_text(self, key: str, text: str, formula: Formula) -> Model:
        """A copy in which cell `key` is written `text` (parsed: `formula`); this
        model, and whatever was checked from it, stay as they were. Only what
        holds that cell is copied: its spec, the cell, the tables of the root
        sheet that list the spec, each as a `Patched` view of the table before
        (bench/bench_edit.py: the edit's cost does not grow with the sheet)."""
        cell = self.cells[key]
        old = cell.set_by or cell.spec
        spec = replace(old, text=text, formula=formula)
        edited = replace(cell, formula=formula, set_by=spec) if cell.set_by is not None \
            else replace(cell, formula=formula, spec=spec)
        root = self.root
        if root is not None and cell.set_by is None and not cell.scope.prefix:
            root = replace(root, cells=_relisted(root.cells, cell.name, old, spec),
                           checks=_relisted(root.checks, cell.name, old, spec),
                           assume=_relisted(root.assume, cell.name, old, spec))
            file = root.file
            root.file = replace(file, cells=_relisted(file.cells, cell.name, old, spec),
                                checks=_relisted(file.checks, cell.name, old, spec),
                                assume=_relisted(file.assume, cell.name, old, spec))
        return replace(self, root=root, cells=Patched.of(self.cells, key, edited))


def _prefixes(name: str) -> list[str]:
    """The alias paths a dotted name passes through, longest first: `a.b.c` -> [`a.b`, `a`]."""
    parts = name.split(".")[:-1]
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _relisted(specs: Mapping[str, CellSpec], name: str, old: CellSpec, new: CellSpec) -> Mapping[str, CellSpec]:
    """A spec table of a sheet (cells, checks, assume) with `new` in place of `old`, if it lists `old`."""
    return Patched.of(specs, name, new) if specs.get(name) is old else specs
