"""What `supersheet diff` compares: two files or `REV:path` specs, the working
tree against a revision (every changed sheet and every sheet that imports or
extends one), or a variant against its base. Also the git textconv view."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from supersheet.engine.base.project import UnknownLibrary, library_name, project_for, shown_path
from supersheet.engine.base.sheetroot import SheetRoot, read_sheet_text, root_for
from supersheet.engine.diff.copyrev import find_revision
from supersheet.engine.diff.diff import SheetDiff, diff_workbooks
from supersheet.engine.diff.gitrev import (
    GitError,
    Snapshot,
    changed_files,
    is_revision_spec,
    repo_path,
    repo_root,
    snapshot,
)
from supersheet.engine.load.sheet import load_sheet, not_a_sheet
from supersheet.engine.workbook import Workbook, open_workbook
from supersheet.engine.check.check import check_model
from supersheet.engine.load.resolve import build_model
from supersheet.engine.present.report import render_run


@dataclass
class Revisions:
    """Snapshots of revisions, made once each and removed at the end."""

    cwd: Path
    snapshots: dict[str, Snapshot] = field(default_factory=dict)

    def get(self, revision: str) -> Snapshot:
        if revision not in self.snapshots:
            self.snapshots[revision] = snapshot(revision, self.cwd)
        return self.snapshots[revision]

    def close(self) -> None:
        for snap in self.snapshots.values():
            snap.close()


def open_side(spec: str, revisions: Revisions, as_path: str | None = None) -> tuple[Workbook | None, str]:
    """A workbook for a path or a `REV:path` spec (None when the file is absent)."""
    if is_revision_spec(spec):
        revision, _, written = spec.partition(":")
        snap = revisions.get(revision)
        relative = repo_path(revisions.cwd / written, snap.root) if written.startswith(("./", "../")) else written
        target = snap.path_of(relative)
        return (open_workbook(target) if target.exists() else None), spec
    path = Path(spec)
    if not path.exists():
        raise FileNotFoundError(spec)
    if as_path is not None:
        return _open_as(path, Path(as_path)), spec
    return open_workbook(path), shown_path(spec)


def _open_as(text_file: Path, path: Path) -> Workbook:
    """Evaluate the text of `text_file` as if it were `path` (so relative imports resolve)."""
    model = build_model(path, texts={path: read_sheet_text(text_file)})
    return Workbook(model, check_model(model))


def diff_pair(old: str, new: str, cwd: Path) -> list[SheetDiff]:
    old, new = _library_file(old, cwd), _library_file(new, cwd)
    revisions = Revisions(cwd)
    try:
        merged = _difftool_path(old, new)
        sides = [_difftool_side(spec, merged, revisions) if merged else (spec, None) for spec in (old, new)]
        (old_spec, old_as), (new_spec, new_as) = sides
        old_wb, old_label = open_side(old_spec, revisions, old_as)
        new_wb, new_label = open_side(new_spec, revisions, new_as)
        name = merged or (new.partition(":")[2] if is_revision_spec(new) else shown_path(new))
        diff = diff_workbooks(name, old_wb, new_wb, _label(old, old_spec, old_label), _label(new, new_spec, new_label))
        if old_as is not None and old_wb is not None and _imports(old_wb):
            diff.note = working_tree_imports(Path(old_as))
        return [diff]
    finally:
        revisions.close()


def working_tree_imports(path: Path, copy: str = "the old copy") -> str:
    """What is said of a copy evaluated over the working tree at `path`: its imports are today's,
    and, when its project has a supersheet.toml, so are its library names and settings (that
    file as it is today, not at the copy's revision: format 10.2)."""
    config = project_for(path).config_file
    toml = f", its library names by today's {_relative(config)}" if config is not None else ""
    return (f"{copy}'s imports were resolved from the working tree{toml} (git passes no revision, and "
            "none holding this copy could be told apart), so its values show the old sheet with today's "
            "imports; `supersheet diff --rev REV` resolves them at REV")


def _relative(path: Path) -> str:
    """`path` from the current folder (git runs its drivers at the top of the work tree)."""
    try:
        return os.path.relpath(path)
    except ValueError:      # on another drive (Windows)
        return str(path)


def _difftool_side(spec: str, merged: str, revisions: Revisions) -> tuple[str, str | None]:
    """How to open one side `git difftool` passes: the work-tree file as it is; a
    temporary copy as `COMMIT:path` when the revision it comes from is known
    (its imports then resolve at that revision, copyrev.py); otherwise as the
    work-tree path (imports from the working tree, which the caller notes)."""
    if is_revision_spec(spec):
        return spec, None
    try:
        root = repo_root(revisions.cwd)
    except GitError:
        return spec, merged
    if _inside(Path(spec).resolve(), root.resolve()):
        return spec, None
    relative = repo_path(Path(merged), root)
    commit = find_revision(Path(spec), relative, root)
    return (f"{commit}:{relative}", None) if commit else (spec, merged)


def _label(given: str, opened: str, label: str) -> str:
    """A side's label; a copy resolved at a revision says which (`old (at 1a2b3c4)`)."""
    if opened == given or not is_revision_spec(opened):
        return label
    commit, _, path = opened.partition(":")
    return f"{path} at {commit[:12]}, with its imports"


def _imports(workbook: Workbook) -> bool:
    return bool(workbook.model.scope.aliases) or bool(workbook.model.root and workbook.model.root.file.extends)


def _difftool_path(old: str, new: str) -> str | None:
    """The work-tree path `git difftool` exports (BASE with -x, MERGED for a tool),
    used to resolve the imports of the temporary copies it passes."""
    names = {Path(old).name, Path(new).name}
    for variable in ("MERGED", "BASE"):
        value = os.environ.get(variable)
        if value and Path(value).is_file() and Path(value).name in names:
            return value
    return None


def diff_against_revision(revision: str, paths: list[str], cwd: Path) -> list[SheetDiff]:
    root = repo_root(cwd)
    changed = {(root / p).resolve() for p in changed_files(revision, root)}
    scope = [Path(p) for p in paths] if paths else [root]
    sheets: list[Path] = []
    for base in scope:
        if base.is_dir():
            inside = root_for(base / "_")      # not links that lead out of the repository
            sheets.extend(p for p in sorted(base.rglob("*.yaml")) if not _hidden(p, base) and inside.allows(p))
        elif base.exists():
            sheets.append(base)
    affected = _affected(sheets, changed)
    revisions = Revisions(cwd)
    diffs: list[SheetDiff] = []
    try:
        snap = revisions.get(revision)
        deleted = [c for c in changed if not c.exists() and c.suffix in (".yaml", ".yml")   # a sheet, not a table
                   and (not paths or any(_inside(c, Path(p)) for p in paths))]
        for path in affected + deleted:
            relative = repo_path(path, root)
            old_file = snap.path_of(relative)
            old_wb = open_workbook(old_file) if old_file.exists() else None
            new_wb = open_workbook(path) if path.exists() else None
            label = os.path.relpath(path, cwd)
            diff = diff_workbooks(label, old_wb, new_wb, f"{revision}", "working tree")
            if old_wb is None:
                diff.new_label = "working tree (new sheet)"
            if new_wb is None:
                diff.new_label = "working tree (deleted)"
            diffs.append(diff)
    finally:
        revisions.close()
    diffs.sort(key=lambda d: -max([c.size() for c in d.results + d.inputs] + [0.0]))
    return diffs


def diff_variant(variant: str) -> list[SheetDiff]:
    path = _library_file(variant, Path.cwd())   # a library name (`supersheet:supernodes/…-32k.yaml`) as its file
    sheet = load_sheet(path)
    if sheet.extends is None or sheet.extends.target is None:
        raise ValueError(f"{variant} does not extend a base sheet")
    base = _located(root_for(Path(path)), sheet.extends.target, Path(path).parent)
    if base is None:
        raise ValueError(f"{variant} extends {sheet.extends.target}, which names no library")
    base_wb, variant_wb = open_workbook(base), open_workbook(path)
    return [diff_workbooks(variant, base_wb, variant_wb, f"base {shown_path(os.path.normpath(base))}", "variant")]


def _library_file(spec: str, cwd: Path) -> str:
    """A side named by a library of the current folder's project (`supersheet:hardware/h100-sxm.yaml`)
    as that file; anything else (a path, `REV:path`) as given."""
    named = library_name(spec)
    if named is None or Path(spec).exists():
        return spec
    project = project_for(cwd / "_", cwd)
    return str(project.locate(spec, cwd)) if named[0] in project.libraries else spec


def _located(root: SheetRoot, written: str | None, base_dir: Path) -> Path | None:
    """The file an import path names (a library file for `name:PATH`), None for none."""
    try:
        return root.project.locate(written, base_dir) if written is not None else None
    except UnknownLibrary:
        return None


def _hidden(path: Path, base: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(base).parts)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def _affected(sheets: list[Path], changed: set[Path]) -> list[Path]:
    """Sheets that changed, or import or extend (transitively) a sheet that changed, or read a
    table (`tables:`) that changed."""
    imports: dict[Path, set[Path]] = {}
    pending = [p.resolve() for p in sheets]
    while pending:
        path = pending.pop()
        if path in imports:
            continue
        targets = set()
        if path.exists():
            root = root_for(path)
            sheet = load_sheet(path)
            entries = list(sheet.use.values()) + ([sheet.extends] if sheet.extends else [])
            for entry in entries:
                target = _located(root, entry.target, path.parent)
                if target is not None and root.allows(target):
                    targets.add(target.resolve())
            for table in sheet.tables.values():   # a table is a file the sheet reads, with nothing below it
                target = _located(root, table.path, path.parent)
                if target is not None and root.allows(target):
                    targets.add(target.resolve())
                    imports.setdefault(target.resolve(), set())
        imports[path] = targets
        pending.extend(t for t in targets if t not in imports)
    memo: dict[Path, bool] = {}

    def touched(path: Path, seen: frozenset = frozenset()) -> bool:
        if path in memo:
            return memo[path]
        if path in seen:
            return False
        result = path in changed or any(touched(t, seen | {path}) for t in imports.get(path, ()))
        memo[path] = result
        return result

    return [p.resolve() for p in sheets if touched(p.resolve())]


class NotASheet(ValueError):
    """textconv of a file that is not a sheet: the one line that says so."""


def textconv(file: str, cwd: Path) -> str:
    """A sheet as evaluated text, for `git diff` (diff.supersheet.textconv).

    Git hands an old version over as a temporary file; its imports are
    resolved at the revision the copy comes from when it can be told
    (copyrev.py), else from the work-tree file of the same name, and the
    first line says which.

    Git runs it on every file its attributes name, secrets included: a file that is not a
    sheet gives one line saying so (NotASheet), never its content."""
    path = Path(file)
    problem = not_a_sheet(path)
    if problem is not None:
        raise NotASheet(problem)
    as_path = None
    try:
        root = repo_root(cwd)
        inside = _inside(path.resolve(), root)
    except GitError:
        root, inside = None, True
    if not inside and root is not None:
        candidates = [p for p in root.rglob("*.yaml") if path.name.endswith(p.name) and not _hidden(p, root)]
        best = max(candidates, key=lambda p: len(p.name), default=None)
        if best is not None:
            as_path = best
    commit = find_revision(path, repo_path(as_path, root), root) if as_path is not None and root is not None else None
    if commit is not None and root is not None and as_path is not None:
        snap = snapshot(commit, root)
        try:
            workbook = open_workbook(snap.path_of(repo_path(as_path, root)))
            return _textconv_text(path, workbook, OWN_REVISION_IMPORTS if _imports(workbook) else "")
        finally:
            snap.close()
    workbook = _open_as(path, as_path) if as_path else open_workbook(path)
    first = ""
    if _imports(workbook):
        first = (f"# supersheet: {working_tree_imports(as_path, 'this copy')}\n" if as_path is not None
                 else OWN_REVISION_IMPORTS)
    return _textconv_text(path, workbook, first)


# The first line of a sheet with imports whose imports are those of its own revision: the same
# text on both sides of a diff (no commit in it), so only a copy evaluated with today's imports
# shows a changed first line, which is the warning it is.
OWN_REVISION_IMPORTS = "# supersheet: evaluated with the imports of its own revision\n"


def _textconv_text(path: Path, workbook: Workbook, first: str) -> str:
    """The sheet's text (after a first line saying which imports evaluated it), then its values."""
    text = first + read_sheet_text(path)
    if not workbook.ok:
        return text + "\n# supersheet: this version does not check:\n" + "\n".join(
            "# " + d.headline() for d in workbook.diagnostics) + "\n"
    scenario = workbook.evaluate()
    values = render_run(workbook, scenario, "text", stable_columns=True)
    return text.rstrip("\n") + "\n\n# --- evaluated by supersheet ---\n" + "\n".join(
        "# " + line if line else "#" for line in values.splitlines()) + "\n"
