"""`use` and `extends` resolution: a sheet and everything it imports, resolved
inside the sheet root and flattened into one `Model` (model.py), the cells of
an import under its alias (`gpu.hbm_bandwidth`), a `set:` in place of what it
replaces.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.base.gcpause import without_cycle_collection
from supersheet.engine.base.limits import current_limits, project_limits
from supersheet.engine.base.project import BUNDLED, UnknownLibrary, bundled_library
from supersheet.engine.base.sheetroot import SheetRoot, import_problem, root_for
from supersheet.engine.base.span import Span
from supersheet.engine.formula.ast import Formula, copy_tree
from supersheet.engine.load.model import Cell, Merged, Model, Scope
from supersheet.engine.load.sheet import load_sheet
from supersheet.engine.load.sheet_reader import read_inline_values
from supersheet.engine.load.sheetfile import CellSpec, ImportSpec, SheetFile
from supersheet.engine.base.diagnostics import did_you_mean
from ruamel.yaml.comments import CommentedMap as _Map
from supersheet.engine.base.sheetroot import table_problem
from supersheet.engine.base.vocabulary import NAME_RE
from supersheet.engine.base.span import Origin
from supersheet.engine.formula.parser import ParseError, parse_formula

class _Loader:
    def __init__(self, import_overrides: dict[str, str] | None, root: SheetRoot) -> None:
        self.root = root
        self.limits = current_limits()
        self.cells_over_limit = False
        self.files: dict[Path, SheetFile] = {}
        self.diagnostics: list[Diagnostic] = []
        self.reported: set[Path] = set()
        self.import_overrides = import_overrides or {}
        self.in_loop: set[Path] = set()
        self.formulas_used: set[Formula] = set()   # by identity (formula/ast.py)
        self.imports: dict[tuple[str, str], tuple[str | None, Path | None]] = {}
        self.merged_imports: dict[Path, Merged | None] = {}
        self.texts: dict[Path, str] = {}   # resolved path -> text to use instead of the file's (unsaved edits)
        # format 10.3: resolved path -> the scope of its one instance (the imports of it without set:)
        self.shared: dict[Path, Scope] = {}
        # an import axis over a root import without set: swaps that file wherever it is imported without set:
        self.swapped: dict[Path, tuple[Path, str]] = {}   # the file -> the axis's file, as located and as written
        self.tables: dict[tuple[str, Path], tuple] = {}   # (name, resolved file) -> (Table or None, problems)

    def table(self, name: str, path: Path, entry: Span):
        """A table file read once per load, however many sheets name it."""
        key = (name, path.resolve())
        if key not in self.tables:
            from supersheet.engine.load.tables import read_table   # deferred: tables.py and csv, for a sheet with tables
            self.tables[key] = read_table(name, path, entry)
        return self.tables[key]

    def report_loop(self, sheet: SheetFile, chain: tuple[Path, ...]) -> None:
        assert sheet.extends is not None
        loop = " -> ".join(p.name for p in chain)
        self.diagnostics.append(Diagnostic("E-IMPORT", f"sheets extend each other: {loop}", sheet.extends.span,
                                           hint="a sheet cannot be its own base"))

    def file(self, path: Path) -> SheetFile:
        key = path.resolve()
        if key not in self.files:
            self.files[key] = load_sheet(Path(os.path.normpath(path)), self.texts.get(key))
        sheet = self.files[key]
        if key not in self.reported:
            self.reported.add(key)
            self.diagnostics.extend(d for d in sheet.diagnostics if d.code != "E-IMPORT" or d.span is not None)
        return sheet

    def locate(self, written: str, base_dir: Path, span) -> Path | None:
        """The file an import path names (relative to `base_dir`, or a library file for
        `name:PATH`); None after reporting a library name no library has."""
        try:
            return self.root.project.locate(written, base_dir)
        except UnknownLibrary as e:
            self.diagnostics.append(Diagnostic("E-IMPORT", f"{written}: {e}", span, hint=e.hint))
            return None

    def target(self, path: Path, shown: str) -> tuple[str | None, Path | None]:
        """Why an import may not be read (or None) and its resolved path (None
        when it does not exist), found once per path: a sheet imported by many
        is resolved once."""
        key = (str(path), shown)
        if key not in self.imports:
            problem = import_problem(path, self.root, shown)
            self.imports[key] = (problem, path.resolve() if problem is None and _exists(path) else None)
        return self.imports[key]

    def reachable(self, path: Path, shown: str, entry: ImportSpec, chain: tuple[Path, ...]) -> Path | None:
        """The resolved path of an import, or None after reporting (at `entry`) why it cannot be read."""
        if self.refused(path, shown, entry.span, chain):
            return None
        resolved = self.target(path, shown)[1]
        if resolved is None:
            self.diagnostics.append(Diagnostic("E-IMPORT", f"imported sheet not found: {shown}", entry.span,
                                               hint=_missing_hint(path)))
        return resolved

    def imported(self, path: Path, resolved: Path) -> Merged | None:
        if resolved not in self.merged_imports:
            self.merged_imports[resolved] = self.merged(path, ())
        return self.merged_imports[resolved]

    def refused(self, path: Path, shown: str, span, chain: tuple[Path, ...]) -> bool:
        """Report (at the importing entry) an import that may not be read:
        outside the sheet root, not a regular sheet file, or too deep."""
        problem = self.target(path, shown)[0]
        if problem is None and len(chain) >= self.limits.max_import_depth:
            problem = (f"imports nest deeper than the limit of {self.limits.max_import_depth} sheets; "
                       "raise it with --max-import-depth N")
        if problem is not None:
            hint = _missing_hint(path) if "outside the sheet root" in problem and not _exists(path) else None
            self.diagnostics.append(Diagnostic("E-IMPORT", problem, span, hint=hint))
        return problem is not None

    def room_for(self, model: "Model", child: Merged, entry: ImportSpec) -> bool:
        """Whether one more copy of `child` keeps the expanded sheet under the
        cell limit (checked before copying: a fan-out of imports doubles per level)."""
        if self.cells_over_limit:
            return False
        if len(model.cells) + len(child.cells) + len(child.checks) <= self.limits.max_cells:
            return True
        self.cells_over_limit = True
        self.diagnostics.append(Diagnostic(
            "E-IMPORT", f"the imports expand the sheet past the limit of {self.limits.max_cells:,} cells "
                        "(each import of a sheet is a copy of its cells)", entry.span,
            hint="import fewer copies, or raise the limit with --max-cells N"))
        return False

    def merged(self, path: Path, chain: tuple[Path, ...]) -> Merged | None:
        resolved = path.resolve()
        if not path.exists():
            return None
        if resolved in chain:
            return None
        sheet = self.file(path)
        # the file's own spec tables, not copies: no one writes into one (an edit makes a `Patched`
        # view of each, Model.with_text), and a copy of a large sheet's cells was one more table of
        # its size for every collection of the cycle collector to walk (issue 30)
        merged = Merged(sheet, sheet.title, sheet.doc, dict(sheet.use), sheet.cells, sheet.checks,
                        sheet.assume, dict(sheet.sweeps), dict(sheet.solve), dict(sheet.choose),
                        dict(sheet.expect), sheet.samples)
        merged.use_files = {alias: sheet for alias in sheet.use}
        merged.tables, merged.fit = dict(sheet.tables), dict(sheet.fit)
        merged.table_files = {name: sheet for name in sheet.tables}
        if sheet.extends is None:
            return merged
        target = sheet.extends.target
        if target is None:
            self.diagnostics.extend(sheet.extends.problems)
            return merged
        base_path = self.locate(target, path.parent, sheet.extends.span)
        if base_path is None or self.refused(base_path, target, sheet.extends.span, chain + (resolved,)):
            return merged
        if base_path.exists() and base_path.resolve() in chain + (resolved,):
            cycle = chain[chain.index(base_path.resolve()):] if base_path.resolve() in chain else ()
            self.in_loop.update(cycle + (resolved,))
            self.report_loop(sheet, chain + (resolved, base_path.resolve()))
            return merged
        if not base_path.exists():
            self.diagnostics.append(Diagnostic("E-IMPORT", f"base sheet not found: {target}", sheet.extends.span,
                                               hint=_missing_hint(base_path)))
            return merged
        base = self.merged(base_path, chain + (resolved,))
        if resolved in self.in_loop:
            self.report_loop(sheet, chain + (resolved, base_path.resolve()))
            return merged
        if base is None:
            return merged
        return Merged(sheet, sheet.title or base.title, sheet.doc or base.doc,
                      {**base.use, **sheet.use}, _overlay(base.cells, sheet.cells), _overlay(base.checks, sheet.checks),
                      _overlay(base.assume, sheet.assume),
                      {**base.sweeps, **sheet.sweeps}, {**base.solve, **sheet.solve},
                      {**base.choose, **sheet.choose}, dict(sheet.expect), sheet.samples or base.samples,
                      {**base.use_files, **merged.use_files}, {**base.tables, **merged.tables},
                      {**base.fit, **merged.fit}, {**base.table_files, **merged.table_files})


def _first_cell_span(merged: Merged):
    first = next(iter(merged.cells.values()), None) or next(iter(merged.checks.values()))
    return first.span


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:         # a name too long for the OS
        return False


def _overlay(base: Mapping[str, CellSpec], own: Mapping[str, CellSpec]) -> dict[str, CellSpec]:
    merged = dict(base)
    merged.update(own)
    return merged


def _missing_hint(path: Path) -> str | None:
    """A sheet of the same name beside it, else the bundled library's file of the same
    folder and name (a sheet copied out of the library imports `../hardware/x.yaml`)."""
    if path.parent.is_dir():
        near = did_you_mean(path.name, [p.name for p in path.parent.glob("*.yaml")])
        if near:
            return near
    tail = Path(os.path.normpath(path)).parts[-2:]
    if ".." not in tail and (bundled_library().joinpath(*tail)).is_file():
        return f"the bundled library has {'/'.join(tail)}: import it as {BUNDLED}:{'/'.join(tail)}"
    return None


@without_cycle_collection
def build_model(path: str | Path, import_overrides: dict[str, str] | None = None,
                texts: dict[Path, str] | None = None, cell_overrides: dict[str, str] | None = None) -> Model:
    """Load a sheet with its bases and imports. Never raises for bad input.

    `import_overrides` maps a root alias to another sheet path (an import axis);
    `texts` maps a file to the text to read instead of its contents (the editor's unsaved sheet);
    `cell_overrides` replaces root cells by input values before checking, like
    `use: set:` does for an import (for values that change the sheet's shape,
    such as the length of a `range`)."""
    path = Path(path)
    root_of_sheet = root_for(path)
    with project_limits(root_of_sheet.project.limits):
        return _build_model(path, root_of_sheet, import_overrides, texts, cell_overrides)


def _build_model(path: Path, root_of_sheet: SheetRoot, import_overrides: dict[str, str] | None,
                 texts: dict[Path, str] | None, cell_overrides: dict[str, str] | None) -> Model:
    loader = _Loader(import_overrides, root_of_sheet)
    loader.diagnostics.extend(Diagnostic("E-SHEET", p.message, Span(str(p.file), max(p.line, 1), 1, 2), hint=p.hint)
                              for p in root_of_sheet.project.problems)
    loader.texts = {Path(p).resolve(): t for p, t in (texts or {}).items()}
    model = Model(path=path, root=None, limits=dict(root_of_sheet.project.limits))
    if not _exists(path):
        model.diagnostics.append(Diagnostic("E-IMPORT", f"no such sheet: {path}", None))
        return model
    root = loader.merged(path, ())
    model.root = root
    own = len(root.cells) + len(root.checks) if root is not None else 0
    if root is not None and own > loader.limits.max_cells:      # refused before the cells are resolved and checked
        model.diagnostics.append(Diagnostic(
            "E-SHEET", f"the sheet has {own:,} cells, over the limit of {loader.limits.max_cells:,} cells",
            _first_cell_span(root), hint="raise the limit with --max-cells N"))
        root = None
    if root is not None:
        root_sets: dict[str, CellSpec] = {}
        for name, text in (cell_overrides or {}).items():
            spec, problems = parse_override_value(text, f"<{name}>")
            model.diagnostics.extend(problems)
            if spec is not None:
                root_sets[name] = spec
        axes = _swap_shared(loader, root)
        _flatten(loader, model, root, model.scope, {n: s for n, s in root_sets.items() if "." not in n},
                 model.scope, (path.resolve(),), overrides=axes)
        _set_imported(model, {n: s for n, s in root_sets.items() if "." in n})
    model.files = loader.files
    model.diagnostics = loader.diagnostics + model.diagnostics
    if root is not None and not model.cells and not model.diagnostics:
        model.diagnostics.append(Diagnostic("E-SHEET", "no cells", Span(str(root.file.path), 1, 1, 2),
                                            hint="a sheet defines at least one cell: cells: {name: value}"))
    return model


def _building(model: Model) -> dict[str, Cell]:
    """The cell table `build_model` fills: a dict (only an edit's copy holds a read-only view)."""
    assert isinstance(model.cells, dict)
    return model.cells


def _flatten(loader: _Loader, model: Model, merged: Merged, scope: Scope, sets: dict[str, CellSpec],
             set_scope: Scope, chain: tuple[Path, ...], overrides: dict[str, str] | None = None) -> None:
    """Add `merged`'s cells under `scope`; `sets` replace some of them and are read in `set_scope`
    (the importing sheet, format 9.1). An import without `set:` of a file already flattened is
    that file's one instance (format 10.3): its alias is another name for the same scope."""
    scope.path = merged.file.path
    cells = _building(model)
    for name, spec in list(merged.cells.items()) + list(merged.checks.items()) + list(merged.assume.items()):
        key = scope.key(name)
        scope.names[name] = key
        replaced = sets.get(name)
        formula = replaced.formula if replaced is not None else spec.formula
        if formula is not None:
            # Later stages key per-node facts by node identity: a file flattened
            # twice (two aliases, or `set:` variants) needs its own tree each time.
            if formula in loader.formulas_used:
                formula = copy_tree(formula)
            loader.formulas_used.add(formula)
        kind = ("input" if replaced.kind == "input" else "formula") if replaced is not None else spec.kind
        cells[key] = Cell(key, name, spec, formula, scope, kind, replaced, set_scope)
    for name, given in sets.items():
        if name not in merged.cells:
            model.diagnostics.append(Diagnostic("E-NAME", f"'set' names {name!r}, which is not a cell of the imported sheet",
                                                given.span, hint=did_you_mean(name, merged.cells)))
    _flatten_tables(loader, model, merged, scope)
    twins: dict[tuple, Scope] = {}    # (file, set:) -> the scope of its first import by this sheet
    for alias, entry in merged.use.items():
        scope.broken.add(alias)  # until it loads: uses of alias.NAME must not add E-NAME to the E-IMPORT
        base_dir = merged.use_file(alias).path.parent
        model.diagnostics.extend(entry.problems)
        target, set_specs = entry.target, dict(entry.sets)
        if overrides and alias in overrides:
            target = overrides[alias]
        if target is None:
            continue
        # an import axis's path is relative to the current folder (one from a sheet's vary: is joined already)
        target_path = loader.locate(target, Path() if overrides and alias in overrides else base_dir, entry.span)
        if target_path is None:
            continue
        resolved = loader.reachable(target_path, target, entry, chain)
        if resolved is None:
            continue
        if not set_specs and resolved in loader.swapped:     # an import axis swaps this file for every importer
            target_path, shown = loader.swapped[resolved]
            resolved = loader.reachable(target_path, shown, entry, chain)
            if resolved is None:
                continue
        if resolved in chain:
            loop = " -> ".join(p.name for p in chain + (resolved,))
            model.diagnostics.append(Diagnostic("E-IMPORT", f"imports form a loop: {loop}", entry.span))
            continue
        child = loader.imported(target_path, resolved)
        if child is None:
            continue
        own = bool(set_specs) or bool(overrides and alias in overrides)
        shared = None if own else loader.shared.get(resolved)
        twin = (resolved, _set_signature(set_specs)) if own and not (overrides and alias in overrides) else None
        found = shared or (twins.get(twin) if twin is not None else None)
        if found is not None:
            # format 10.3: every import of a file without set: is its one instance; the same
            # set: read in the same sheet (twins) computes the same values: one copy
            scope.aliases[alias] = found
            scope.broken.discard(alias)
            (model.shared if shared else model.twins)[scope.prefix + alias] = found.prefix[:-1]
            continue
        if not loader.room_for(model, child, entry):
            continue
        child_scope = Scope(scope.prefix + alias + ".")
        if own:
            if twin is not None:
                twins[twin] = child_scope
        else:
            loader.shared[resolved] = child_scope
        scope.aliases[alias] = child_scope
        scope.broken.discard(alias)
        _flatten(loader, model, child, child_scope, set_specs, scope, chain + (resolved,))


def _flatten_tables(loader: _Loader, model: Model, merged: Merged, scope: Scope) -> None:
    """Each table of `merged` as a scope of array cells, one per column (`nccl.size`, in its unit),
    read within the sheet root like an import; the table itself goes into `model.tables` for fits.
    A table longer than an array may be (--max-array-length) has no cells: a fit reads its rows."""
    for name, entry in merged.tables.items():
        if entry.problem is not None:
            model.diagnostics.append(entry.problem)
            continue
        if not NAME_RE.match(name) or name in merged.cells or name in merged.use:
            clash = "a cell" if name in merged.cells else "an import" if name in merged.use else None
            model.diagnostics.append(Diagnostic("E-SHEET", f"table {name!r} has the name of {clash}" if clash else
                                                f"{name!r} is not a valid table name", entry.span,
                                                hint="rename one of them" if clash else
                                                "names are letters, digits and _, not starting with a digit"))
            continue
        assert entry.path is not None
        scope.broken.add(name)      # until it loads: names through it add no E-NAME to its problem
        path = loader.locate(entry.path, merged.table_files.get(name, merged.file).path.parent, entry.span)
        if path is None:
            continue
        problem = table_problem(path, loader.root, entry.path)
        if problem is not None:
            model.diagnostics.append(Diagnostic("E-IMPORT", problem, entry.span))
            continue
        if not _exists(path):
            model.diagnostics.append(Diagnostic("E-IMPORT", f"table file not found: {entry.path}", entry.span,
                                                hint=did_you_mean(path.name, [p.name for p in path.parent.glob("*")])
                                                if path.parent.is_dir() else None))
            continue
        table, problems = loader.table(name, Path(os.path.normpath(path)), entry.span)
        model.diagnostics.extend(problems)
        if table is None:
            continue
        scope.broken.discard(name)
        child = Scope(scope.prefix + name + ".", path=table.path)
        scope.aliases[name] = child
        model.tables[scope.prefix + name] = table
        if table.rows > loader.limits.max_array_length:
            child.missing_hint = (f"table {name} has {table.rows:,} rows, more than an array holds "
                                  f"(--max-array-length {loader.limits.max_array_length:,}): a fit reads its rows "
                                  f"one by one; raise the limit to use its columns in formulas")
            continue
        for column in table.columns.values():
            spec = table_cell(table, column.name)
            if spec.formula is None:
                model.diagnostics.append(Diagnostic("E-UNIT", f"column {column.name!r}: a formula cannot write the "
                                                    f"unit {column.unit!r}", column.span,
                                                    hint="write the unit as a formula would: GB/s, us, 1"))
                continue
            key = child.key(column.name)
            child.names[column.name] = key
            _building(model)[key] = Cell(key, column.name, spec, spec.formula, child, "input")


def table_cell(table, column: str) -> CellSpec:
    """A column of a table as an array input cell: its values as an array literal in its unit."""
    data = table.columns[column]
    unit = "".join(data.unit.split())
    text = "[" + ", ".join(repr(float(v)) for v in data.values) + "]" + ("" if unit == "1" else " " + unit)
    origin = Origin(data.span.file, data.span.line, data.span.col, exact=False)
    try:
        formula = parse_formula(text)
    except ParseError:
        formula = None
    return CellSpec(column, "input", text, formula, origin, data.span,
                    doc=f"column {column} of table {table.name}", source=str(table.path))


def _swap_shared(loader: _Loader, root: Merged) -> dict[str, str]:
    """The import axes (root alias -> another sheet) that still replace one import: those with
    `set:`. An axis over an import without `set:` varies that file's one instance (format 10.3):
    every import of the file without `set:`, anywhere in the graph, reads the other sheet."""
    own: dict[str, str] = {}
    for alias, path in loader.import_overrides.items():
        entry = root.use.get(alias)
        target = entry.target if entry is not None else None
        if entry is None or entry.sets or target is None:
            own[alias] = path
            continue
        written = loader.locate(target, root.use_file(alias).path.parent, entry.span)
        resolved = written.resolve() if written is not None and import_problem(written, loader.root, target) is None \
            and _exists(written) else None
        try:
            swapped = loader.root.project.locate(path, Path()) if resolved is not None else None
        except UnknownLibrary:
            swapped = None          # reported where the import is resolved, as for any import axis
        if swapped is None or resolved is None:
            own[alias] = path
        else:
            loader.swapped[resolved] = (swapped, path)
    return own


def _set_imported(model: Model, sets: dict[str, CellSpec]) -> None:
    """`--set gpu.cards=4` passed at load (a cell that shapes the sheet, a sweep's partition, the
    API's inputs): the imported cell takes the value, in its one instance wherever it is
    imported without `set:` (format 10.3), like a `set:` written in the root sheet."""
    for name, spec in sets.items():
        key = model.canonical(name)
        cell = model.cells.get(key)
        if cell is None or cell.kind in ("check", "assume"):
            model.diagnostics.append(Diagnostic("E-NAME", f"--set names {name!r}, which is not a cell of an "
                                                f"imported sheet", spec.span,
                                                hint=model.twin_hint(name) or did_you_mean(key, model.cells)))
            continue
        kind = "input" if spec.kind == "input" else "formula"
        _building(model)[key] = Cell(key, cell.name, cell.spec, spec.formula, cell.scope, kind, spec, model.scope)


def _set_signature(sets: dict[str, CellSpec]) -> tuple:
    """What a `set:` says, as written: two imports whose set: read the same in one sheet get the same values."""
    return tuple(sorted((name, spec.kind, spec.text, spec.unit or "", spec.digits or 0) for name, spec in sets.items()))


def parse_override_value(text: str, origin_file: str = "<--set>") -> tuple[CellSpec | None, list[Diagnostic]]:
    """A `--set NAME=VALUE` value as a cell spec (an input literal or `= formula`)."""

    fake = SheetFile(path=Path(origin_file))
    fake.text = text
    holder = _Map()
    holder["v"] = text
    holder.lc.add_kv_line_col("v", [0, 0, 0, 0])
    specs, problems = read_inline_values(fake, holder, [text])
    return specs.get("v"), problems
