"""The editor's file actions: save (asking what to do when the file changed
on disk), reload, watch the file for changes, ask about unsaved edits before
quitting or opening another sheet. A mixin of the app (tui/app.py)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text

from supersheet.editor.document import Document, ExternalChange, FileDeleted, MergeConflict, SaveRefused, library_dir

from .screens import ChoiceScreen

UNSAVED = [("save", "Save"), ("discard", "Discard edits"), ("cancel", "Cancel")]


class FileActions:
    """Mixed into SupersheetApp."""

    def action_save(self) -> None:
        self.save()

    def save(self, force: bool = False, then=None, imported: str | None = None) -> None:
        """Write the sheet. An imported file edited through a shared instance's cell
        (editor/shared.py) is written only when the user says so (`imported`: "write" or
        "keep"; None asks first, naming each file and the sheets that import it)."""
        document = self.document
        if document is None:
            return
        if not self.commit_editor():   # the text in the editor is saved too, or nothing is
            self.set_status(Text("not saved: the edit in the editor does not check (fix it, or Esc)",
                                 style="bold red"))
            return
        if imported is None and document.shared.pending():
            self.ask_about_imported(force, then)
            return
        written_too = [p.name for p in document.shared.pending()] if imported == "write" else []
        if written_too and not self.save_imported():
            return
        try:
            wrote = document.save(force=force)
        except FileDeleted:
            def recreate(choice: str | None) -> None:
                if choice == "recreate":
                    self.save(force=True, then=then, imported="keep")
            self.push_screen(ChoiceScreen(
                "The file was deleted",
                f"{document.path} was deleted since it was opened.\n"
                "Recreate it with your version (and the mode it had), or cancel.",
                [("recreate", "Recreate"), ("cancel", "Cancel")]), recreate)
            return
        except SaveRefused as e:
            self.notify(str(e), severity="error")
            return
        except ExternalChange:
            self.ask_about_disk(then)
            return
        except OSError as e:
            self.notify(f"cannot save: {e}", severity="error")
            return
        self._warned_disk = False
        if document.dirty:        # "Save this sheet only": the imported files' edits are still unsaved
            self.write_recovery()
        else:
            self.drop_recovery()
        self.update_title()
        pending = document.shared.pending()
        kept = f"; not written (this session only): {', '.join(p.name for p in pending)}" if pending else ""
        also = f" (and wrote {', '.join(written_too)}, which every importer now reads)" if written_too else ""
        self.set_status((f"saved {document.path}" if wrote else f"{document.path} is unchanged") + also + kept)
        if wrote and wrote.kept:
            self.notify(f"another program wrote {document.path.name} while it was being saved: your version is "
                        f"saved, theirs is kept as {wrote.kept}", title="both versions kept", severity="warning",
                        timeout=30)
        if wrote and wrote.unkept:
            self.notify(f"saved, but could not keep the file's {', '.join(wrote.unkept)}", severity="warning")
        self.refresh_diff()
        if then is not None:
            then()

    def ask_about_imported(self, force: bool, then) -> None:
        """Edits of imported files are pending: write them too, save the sheet only, or cancel."""
        document = self.document
        assert document is not None
        names = ", ".join(p.name for p in document.shared.pending())

        def answer(choice: str | None) -> None:
            if choice in ("write", "keep"):
                self.save(force=force, then=then, imported=choice)
        self.push_screen(ChoiceScreen(
            f"Write {names} too?",
            "Cells of a shared import were edited; each importer of it follows:\n"
            f"{document.imported_edits()}\n"
            f"Writing {names} changes it for every sheet that imports it, in this project too. "
            "Saving this sheet only keeps those edits in this session (lost when you quit).",
            [("cancel", "Cancel"), ("write", f"Write {names} and this sheet"),
             ("keep", f"Save this sheet only; {names} stays as it is on disk")]), answer)

    def save_imported(self) -> bool:
        """Write the imported files edited here; False (nothing more saved) when one cannot be."""
        document = self.document
        assert document is not None
        try:
            written = document.save_imported()
        except (ExternalChange, FileDeleted, SaveRefused, OSError) as e:
            self.notify(f"not saved: {e}. Nothing else was written; your edits are still here.", severity="error",
                        timeout=15)
            return False
        for path, wrote in written:
            if wrote and wrote.kept:
                self.notify(f"another program wrote {path.name} while it was being saved: your version is "
                            f"saved, theirs is kept as {wrote.kept}", severity="warning", timeout=30)
        return True

    def ask_about_disk(self, then=None) -> None:
        """The file changed on disk since it was read: ask, Cancel first."""
        document = self.document
        assert document is not None

        def answer(choice: str | None) -> None:
            if choice == "merge":
                self.take_disk(keep_mine=True)
            elif choice == "reload":
                self.take_disk(keep_mine=False)
            elif choice == "overwrite":
                self.save(force=True, then=then, imported="keep")
        self.push_screen(ChoiceScreen(
            "The file changed on disk",
            f"{document.path} was changed by another program since it was opened. "
            "After Reload, Ctrl+Z puts your edits back on top of the file on disk (where they touch other lines).",
            [("cancel", "Cancel"), ("merge", "Keep my edits on top of the file on disk"),
             ("reload", "Reload"), ("overwrite", "Overwrite")]), answer)

    def take_disk(self, keep_mine: bool, quiet: bool = False) -> bool:
        """Reload from disk as an undoable step, with the unsaved edits on top when `keep_mine`.
        `quiet`: a file that cannot be read is said once, not at every check of the disk."""
        document = self.document
        if document is None:
            return
        try:
            result = document.take_disk(keep_mine)
        except MergeConflict as e:
            self.notify(f"{e}: nothing changed. Save under another name with the editor of your choice, "
                        "or reload (which drops them).", severity="error", timeout=12)
            return False
        except (OSError, UnicodeDecodeError) as e:
            if not (quiet and self._warned_disk):
                self.notify(f"cannot read {document.path}: {e}; your version stays open", severity="error")
            self._warned_disk = True
            return False
        self._warned_disk = False
        self.after_edit(result, "your edits kept on top of the file on disk" if keep_mine
                        else f"reloaded {document.path}" + (" (Ctrl+Z puts your edits back on top of it)"
                                                            if document.can_undo else ""))
        return True

    def reload(self) -> None:
        document = self.document
        if document is None:
            return
        self.drop_recovery()        # Reload drops the unsaved edits, by the user's choice
        try:
            document.reload()
        except (OSError, UnicodeDecodeError) as e:
            self.notify(f"cannot reload: {e}", severity="error")
            return
        self.load(document)
        self.set_status(f"reloaded {document.path} from disk")

    def action_reload(self) -> None:
        self.reload()

    def check_disk(self) -> None:
        """Reload a file changed on disk when there is nothing to lose; else warn once."""
        document = self.document
        if document is None:
            return
        if not document.path.exists():
            if not self._warned_disk:
                self._warned_disk = True
                self.notify(f"{document.path} was deleted; saving will ask to recreate it", severity="warning")
            return
        if not document.disk_changed():
            return
        if not document.dirty and not self.editor.editing:
            if self.take_disk(keep_mine=False, quiet=True):
                self.notify(f"{document.path} changed on disk and was reloaded")
        elif not self._warned_disk:
            self._warned_disk = True
            self.notify(f"{document.path} changed on disk; saving will ask what to do", severity="warning")

    def when_saved_or_discarded(self, then) -> None:
        """Run `then` now if there is nothing unsaved, else after asking."""
        document = self.document
        if document is None or not document.dirty:
            self.drop_recovery()
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)
            elif choice == "discard":
                self.drop_recovery()
                then()
        self.push_screen(ChoiceScreen("Unsaved edits",
                                      f"{document.path} has unsaved edits. Save them first?", UNSAVED), answer)

    async def action_quit(self) -> None:
        if not self.commit_editor():   # never drop what is in the editor
            self.set_status(Text("not quitting: the edit in the editor does not check (fix it, or Esc)",
                                 style="bold red"))
            return
        self.when_saved_or_discarded(lambda: self.exit(0))

    def open_sheet(self, path: str | Path, then=None) -> None:
        """Open another sheet (asking about unsaved edits first), then run `then`."""
        def go() -> None:
            try:
                document = Document(path)
            except (OSError, UnicodeDecodeError) as e:
                self.notify(f"cannot open {path}: {e}", severity="error")
                return
            self.load(document)
            if then is not None:
                then()
        self.when_saved_or_discarded(go)

    def sheet_paths(self) -> list[str]:
        """Sheets to open: beside the open sheet, under the working directory
        (hidden folders and virtualenvs skipped, at most MAX_LISTED), then the
        bundled library; shown relative to the working directory when under it."""
        cwd = Path.cwd()
        found: dict[Path, None] = {}
        if self.document is not None:
            for path in sorted(self.document.path.resolve().parent.glob("*.yaml")):
                found[path] = None
        for root in (cwd, library_dir()):
            if root.is_dir():
                for path in _yaml_under(root):
                    if len(found) >= MAX_LISTED:
                        break
                    found.setdefault(path.resolve(), None)
        return [_shown(path, cwd) for path in found]


MAX_LISTED = 2000
SKIPPED = {"node_modules", "__pycache__", "site-packages"}


def _yaml_under(root: Path):
    """*.yaml files under `root`, sorted, not inside hidden folders or virtualenvs."""
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in SKIPPED
                            and not (Path(directory) / f / "pyvenv.cfg").exists())
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")):
                yield Path(directory) / name


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd.resolve()))
    except ValueError:
        return str(path)
