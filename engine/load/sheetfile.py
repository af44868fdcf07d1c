"""A sheet as written (`SheetFile`): its cells (`CellSpec`), imports and base
(`ImportSpec`), blocks and diagnostics, each with its position in the file."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.span import Origin, Span
from supersheet.engine.formula.ast import Formula

if TYPE_CHECKING:   # specs.py (16 dataclasses: ~5 ms) is imported by a sheet that has such blocks (sheet_reader.py)
    from supersheet.engine.load.specs import ChoiceBlock, Expected, FitBlock, SamplesSpec, SolveBlock, SweepBlock, TableSpec


@dataclass(slots=True)   # one a cell of a sheet: slots, a third of a __dict__'s memory
class CellSpec:
    """One cell as written: an input (a literal) or a formula, or a check."""

    name: str
    kind: str                      # "input" | "formula" | "check" | "assume"
    text: str                      # the raw text as written ("80 GB", "= a / b -> GB")
    formula: Formula | None        # None when it did not parse
    origin: Origin                 # where the formula / value text starts
    span: Span                     # the cell's name in the file
    unit: str | None = None        # display unit from `unit:` (or `-> unit`)
    unit_span: Span | None = None
    digits: int | None = None
    doc: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class ImportSpec:
    """An import (`use: alias`) or a base (`extends`), read once when its file loads.

    `target` is the sheet it names (`use: {a: x.yaml}`, `{sheet: x.yaml, set: …}`,
    `extends: x.yaml`), None when it is not written as a path; `sets` are its
    `set:` values read as cells are, and `written_sets` the same values as YAML
    typed them (the editor copies an inherited import with them). `problems`
    (its shape, its `set:` values) are reported where the import is resolved,
    each time it is, as before: no later stage reads its YAML."""

    name: str
    span: Span
    target: str | None
    sets: Mapping[str, CellSpec] = field(default_factory=lambda: MappingProxyType({}))
    written_sets: tuple[tuple[str, Any], ...] | None = None    # None: no `set:` mapping
    problems: tuple[Diagnostic, ...] = ()


@dataclass
class SheetFile:
    """One sheet file as written, with the diagnostics of reading it."""
    path: Path
    title: str = ""
    doc: str = ""
    extends: ImportSpec | None = None
    use: dict[str, ImportSpec] = field(default_factory=dict)
    cells: Mapping[str, CellSpec] = field(default_factory=dict)    # dicts as read; read-only views after an edit
    checks: Mapping[str, CellSpec] = field(default_factory=dict)
    assume: Mapping[str, CellSpec] = field(default_factory=dict)   # assumptions: the model's boundaries (format 9.2)
    sweeps: dict[str, SweepBlock] = field(default_factory=dict)   # these five as typed specs (specs.py)
    solve: dict[str, SolveBlock] = field(default_factory=dict)
    choose: dict[str, ChoiceBlock] = field(default_factory=dict)
    expect: dict[str, Expected] = field(default_factory=dict)
    samples: SamplesSpec | None = None
    tables: dict[str, TableSpec] = field(default_factory=dict)   # name -> CSV or Parquet file (columns: array cells)
    fit: dict[str, FitBlock] = field(default_factory=dict)        # fits of cells to a table's rows
    document: Any = None            # the YAML document, when load_sheet is asked to keep it
    text: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def file(self) -> str:
        return str(self.path)

