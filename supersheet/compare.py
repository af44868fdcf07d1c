"""Comparing sheets: `supersheet.diff(old, new)` of two `Sheet`s, and the files, git
revisions and variants `supersheet diff` compares, and `textconv`, git's diff driver.

`diff_files`, `diff_revision` and `diff_variant` read the sheets from disk (or
from git) and return one `Diff` per sheet compared; `render_diffs` prints them
as the command does. Every problem of a request (a missing file, git failing,
a variant that extends nothing) raises `RequestError`. Loads no Polars.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from supersheet.engine.diff.diff import Change
from supersheet.engine.diff.diffview import SECTIONS, arrowed, percent_text

from .errors import RequestError, bounded
from .html import diff_html
from .loading import checked_workbook, shown_path
from supersheet.engine.diff.diff import diff_workbooks
from supersheet.engine.diff.diffview import render_json, render_markdown, render_text

if TYPE_CHECKING:
    from supersheet.engine.diff.diff import SheetDiff
    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle

# What a client shows of a change: SECTIONS (section key, title, in the order `supersheet diff`
# prints them); a `Change` (name, old, new, delta, relative, note); `arrowed(change)` its delta
# with the arrow of its direction; `percent_text(change)` its relative change (`+12.5%`).
__all__ = ["GIT_DIFFTOOL", "GIT_TEXTCONV", "SECTIONS", "Change", "Diff", "arrowed", "diff", "diff_files",
           "diff_revision", "diff_variant", "git_drivers", "percent_text", "render_diffs", "textconv"]


@dataclass(frozen=True)
class Diff:
    """What changed from `old` to `new`: `sections` maps a section (results, checks,
    inputs, formulas, ...) to its changes (`supersheet.engine.diff.diff.Change`: name, old, new,
    delta, relative), the largest first. `str()` is the CLI's text."""

    result: SheetDiff

    @property
    def differs(self) -> bool:
        return self.result.differs

    @property
    def invalid(self) -> bool:
        """The new version does not check (an error, whatever the old one was)."""
        return self.result.invalid

    @property
    def sections(self) -> dict[str, list[Change]]:
        return {key: list(getattr(self.result, key)) for key, _ in SECTIONS if getattr(self.result, key)}

    def __str__(self) -> str:
        return render_diffs([self])

    def __repr__(self) -> str:
        changes = sum(len(c) for c in self.sections.values())
        return f"<Diff {self.result.old_label} → {self.result.new_label}: {changes} change{'s' if changes != 1 else ''}>"

    def to_markdown(self) -> str:
        return render_diffs([self], "markdown")

    def _repr_html_(self) -> str:
        return diff_html(self.result)


def diff(old: SheetHandle | str | os.PathLike[str], new: SheetHandle | str | os.PathLike[str]) -> Diff:
    """Compare two sheets (each with the inputs set on it) as `supersheet diff` does. A side
    may also be a path or a library name (`supersheet:hardware/h200.yaml`): the file as it is
    on disk, loaded and checked as `ss.load` does (SheetError when it does not check)."""
    old_workbook, old_label = _side(old)
    new_workbook, new_label = _side(new)
    name = new_label.partition(" (")[0]
    return Diff(diff_workbooks(name, old_workbook, new_workbook, old_label, new_label))


def _side(sheet: SheetHandle | str | os.PathLike[str]) -> tuple[Workbook, str]:
    """A side's workbook and label: a sheet's with the inputs set on it, or a file's as written."""
    if isinstance(sheet, (str, os.PathLike)):
        return checked_workbook(os.fspath(sheet)), shown_path(os.fspath(sheet))
    inputs = ", ".join(f"{k}={v}" for k, v in sheet.inputs.items())
    return sheet.written_workbook, f"{sheet.path}" + (f" ({inputs})" if inputs else "")


def diff_files(old: str, new: str, cwd: Path | None = None) -> list[Diff]:
    """Two versions of a sheet: paths, or git specs `REV:path` (`HEAD~1:sheets/h100.yaml`)
    read at that revision with the imports of that revision."""
    from supersheet.engine.diff.compare import diff_pair   # deferred: engine.diff.compare (slow to import)
    return _requested(lambda: diff_pair(old, new, cwd or Path.cwd()))


def diff_revision(revision: str = "HEAD", paths: Sequence[str] = (), cwd: Path | None = None) -> list[Diff]:
    """The working tree against `revision`: every sheet that changed and every sheet that
    imports or extends one (under `paths`, default the whole repository), largest change first."""
    from supersheet.engine.diff.compare import diff_against_revision   # deferred: engine.diff.compare (slow to import)
    return _requested(lambda: diff_against_revision(revision, list(paths), cwd or Path.cwd()))


def diff_variant(variant: str) -> list[Diff]:
    """A variant against the base sheet it `extends`."""
    from supersheet.engine.diff.compare import diff_variant as against_base   # deferred: engine.diff.compare (slow to import)
    return _requested(lambda: against_base(variant))


def _requested(compare) -> list[Diff]:
    from supersheet.engine.diff.gitrev import GitError   # deferred: engine.diff.gitrev (slow to import)
    try:
        return [Diff(d) for d in compare()]
    except GitError as e:
        raise RequestError(f"git: {e}") from None
    except FileNotFoundError as e:
        raise RequestError(f"no such sheet: {e.args[0] if e.args else e}") from None
    except ValueError as e:
        raise RequestError(str(e)) from None


def render_diffs(diffs: Sequence[Diff], format: str = "text", color: bool = False) -> str:
    """The diffs as `supersheet diff --format text|markdown|json` prints them (`color`: ANSI
    colours in the text format)."""
    results = [d.result for d in diffs]
    if format == "json":
        return render_json(results)
    if format == "markdown":
        return render_markdown(results)
    return render_text(results, color)


def textconv(file: str | Path, cwd: Path | None = None) -> str:
    """A sheet's YAML followed by its evaluated cells as comments: what git's textconv
    (`supersheet textconv --`, GIT_TEXTCONV) shows `git diff`. A file that is not a sheet
    (git runs textconv on every file its attributes name) gives one line saying so, never
    its content. RequestError for a path that does not exist or is a directory."""
    from supersheet.engine.diff.compare import NotASheet, textconv as evaluated_text   # deferred: engine.diff.compare (slow to import)
    if not os.path.lexists(file):
        raise RequestError(f"no such file: {bounded(str(file))}")
    if Path(file).is_dir():
        raise RequestError(f"{bounded(str(file))} is a directory, not a sheet")
    try:
        return evaluated_text(str(file), cwd or Path.cwd())
    except NotASheet as e:
        return f"# supersheet: {bounded(str(e))} (textconv shows only sheets; its content is not shown)\n"
    except ValueError as e:        # not a regular file, too large, not text (sheetroot.UnreadableSheet)
        raise RequestError(str(e)) from None


def git_drivers(program: str = "supersheet") -> dict[str, str]:
    """The git configuration of supersheet's diff drivers (key -> command), for `program` (the
    command as shell words: `supersheet`, or an absolute path, quoted). The one source of the
    README's lines and of what `supersheet init` writes: options end with `--`, so a sheet
    named `--help.yaml` is a file to the command, not an option. A tool's command sees
    `$MERGED` (the work-tree path of the temporary copies) only as a shell variable of
    git's helper, never in its environment (as `-x` sees `$BASE`): it is passed on, so
    the old copy is evaluated with its revision's imports instead of not at all."""
    return {"diff.supersheet.textconv": f"{program} textconv --",
            "difftool.supersheet.cmd": f'MERGED="$MERGED" {program} diff -- "$LOCAL" "$REMOTE"'}


GIT_TEXTCONV = git_drivers()["diff.supersheet.textconv"]   # git config diff.supersheet.textconv '…'
GIT_DIFFTOOL = "supersheet diff --"                        # git difftool -x '…' (git appends the two files)
