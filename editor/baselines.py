"""The editor's diff: the unsaved state of a sheet against the file as saved
on disk, or as committed at a git revision (HEAD).

The current state is built from the editor's unsaved text; the baselines are
built once per version (the saved file by its size and modification time, a
revision by its commit), so the view can follow every edit. A sheet outside a
git work tree, a repository without commits, a sheet the revision does not
have: each comes back as a message instead of a diff. At a revision, imports
resolve to the same revision (`gitrev.snapshot`). Pure engine: no UI imports;
safe to call from a worker thread.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.base.diagnostics import SourceCache
from supersheet.engine.check.check import check_model
from supersheet.engine.diff.diff import SheetDiff, diff_workbooks
from supersheet.engine.diff.gitrev import GitError, commit_of, repo_path, repo_root, run_git, snapshot
from supersheet.engine.load.resolve import build_model
from supersheet.engine.workbook import Workbook, open_workbook

SAVED = "saved"
HEAD = "HEAD"
CURRENT = "unsaved"


def workbook_from_text(path: Path, text: str, imported: Mapping[str, str] | Mapping[Path, str] | None = None
                       ) -> Workbook:
    """The sheet `text` as if it were the file at `path` (its imports resolve from
    there; `imported` maps any of them to the text to read instead of its file)."""
    texts = {Path(p): t for p, t in (imported or {}).items()}    # the loader resolves each path
    texts[path] = text
    model = build_model(path, texts=texts)
    return Workbook(model, check_model(model))


@dataclass
class Comparison:
    against: str                  # SAVED or a revision ("HEAD")
    label: str                    # "saved file", "HEAD (1a2b3c4)"
    diff: SheetDiff | None        # None: nothing to compare with (see message)
    message: str = ""
    sources: SourceCache | None = None   # the lines diagnostics of either side point into


@dataclass
class _Baseline:
    workbook: Workbook | None
    label: str
    message: str = ""


class Baselines:
    """What an open sheet is compared with, built once per version of it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[tuple, tuple[tuple, _Baseline]] = {}   # (side, sheet) -> (version, baseline)

    def compare(self, path: Path, text: str, against: str = SAVED,
                imported: Mapping[Path, str] | None = None) -> Comparison:
        """The sheet `text` (unsaved, at `path`, with the unsaved texts of the imported files
        edited with it, `imported`) against the saved file or a revision."""
        path = Path(path)
        baseline = self.saved(path) if against == SAVED else self.revision(path, against)
        if baseline.workbook is None:
            return Comparison(against, baseline.label, None, baseline.message)
        current = workbook_from_text(path, text, imported)
        diff = diff_workbooks(_shown_path(path), baseline.workbook, current, baseline.label, CURRENT)
        sources = SourceCache({sheet.file: sheet.text.splitlines()
                               for wb in (baseline.workbook, current) for sheet in wb.model.files.values()})
        return Comparison(against, baseline.label, diff, baseline.message, sources)

    def saved(self, path: Path) -> _Baseline:
        try:
            st = path.stat()
        except OSError:
            return _Baseline(None, "saved file", f"{path} is not on disk: there is no saved version to compare with")
        return self._cached(("saved", path.resolve()), (st.st_mtime_ns, st.st_size),
                            lambda: _Baseline(open_workbook(path), "saved file"))

    def revision(self, path: Path, revision: str = HEAD) -> _Baseline:
        try:
            root = repo_root(path.parent)
        except GitError:
            return _Baseline(None, revision, f"{path.name} is not inside a git work tree: "
                                             f"there is no {revision} to compare with")
        try:
            commit = commit_of(revision, root)
        except GitError:
            return _Baseline(None, revision, f"the repository at {root} has no {revision} yet (nothing committed)")
        relative = Path(repo_path(path, root)).as_posix()
        label = f"{revision} ({commit[:7]})"

        def build() -> _Baseline:
            if not run_git(["ls-tree", "--name-only", commit, "--", relative], root).strip():
                staged = run_git(["ls-files", "--", relative], root).strip()
                state = "is added but not committed yet" if staged else "is untracked"
                return _Baseline(None, label, f"{relative} {state}: {revision} has no version of it")
            snap = snapshot(commit, root)
            try:
                return _Baseline(open_workbook(snap.path_of(relative)), label)
            finally:
                snap.close()
        return self._cached((revision, root, relative), (commit,), build)

    def _cached(self, side: tuple, version: tuple, build) -> _Baseline:
        """The baseline of this version, built when the version is new (a sheet
        with no version there is asked again: it may be committed meanwhile)."""
        with self._lock:
            known = self._cache.get(side)
        if known is not None and known[0] == version:
            return known[1]
        baseline = build()
        if baseline.workbook is not None:
            with self._lock:
                self._cache[side] = (version, baseline)
        return baseline


def _shown_path(path: Path) -> str:
    """Relative to the working directory when inside it."""
    try:
        return os.path.relpath(path.resolve(), Path.cwd()) if path.resolve().is_relative_to(Path.cwd()) else str(path)
    except (OSError, ValueError):
        return str(path)
