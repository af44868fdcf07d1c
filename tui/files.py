"""The editor's file actions: save (asking what to do when the file changed
on disk), reload, watch the file for changes, ask about unsaved edits before
quitting or opening another sheet; Save As (Ctrl+W) and a new sheet
(`supersheet edit NEW.yaml`). A controller the app holds (tui/app.py: `app.files`)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator

from rich.text import Text

from supersheet.editor.cells import StructureError, new_sheet
from supersheet.editor.document import Document, ExternalChange, FileDeleted, MergeConflict, SaveRefused, library_dir

from .host import Editor
from .panels import PanelController
from .recover import RecoveryController
from .screens import ChoiceScreen, PromptScreen

Then = Callable[[], object] | None     # what to do once the sheet is saved (or its edits discarded)

UNSAVED = [("save", "Save"), ("discard", "Discard edits"), ("cancel", "Cancel")]


class FileController:
    def __init__(self, app: Editor, recovery: RecoveryController, panels: PanelController) -> None:
        self.app = app
        self.recovery = recovery
        self.panels = panels
        self.warned_disk = False     # that the file changed on disk, was deleted or cannot be read: said once

    def save(self, force: bool = False, then: Then = None, imported: str | None = None) -> None:
        """Write the sheet. An imported file edited through a shared instance's cell
        (editor/shared.py) is written only when the user says so (`imported`: "write" or
        "keep"; None asks first, naming each file and the sheets that import it)."""
        app = self.app
        document = app.document
        if document is None:
            return
        if not app.commit_editor():   # the text in the editor is saved too, or nothing is
            app.set_status(Text("not saved: the edit in the editor does not check (fix it, or Esc)",
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
            app.push_screen(ChoiceScreen(
                "The file was deleted",
                f"{document.path} was deleted since it was opened.\n"
                "Recreate it with your version (and the mode it had), or cancel.",
                [("recreate", "Recreate"), ("cancel", "Cancel")]), recreate)
            return
        except SaveRefused as e:
            app.notify(str(e), severity="error")
            return
        except ExternalChange:
            self.ask_about_disk(then)
            return
        except OSError as e:
            app.notify(f"cannot save: {e}", severity="error")
            return
        self.warned_disk = False
        if document.dirty:        # "Save this sheet only": the imported files' edits are still unsaved
            self.recovery.write()
        else:
            self.recovery.drop()
        app.update_title()
        pending = document.shared.pending()
        kept = f"; not written (this session only): {', '.join(p.name for p in pending)}" if pending else ""
        also = f" (and wrote {', '.join(written_too)}, which every importer now reads)" if written_too else ""
        app.set_status((f"saved {document.path}" if wrote else f"{document.path} is unchanged") + also + kept)
        if wrote and wrote.kept:
            app.notify(f"another program wrote {document.path.name} while it was being saved: your version is "
                       f"saved, theirs is kept as {wrote.kept}", title="both versions kept", severity="warning",
                       timeout=30)
        if wrote and wrote.unkept:
            app.notify(f"saved, but could not keep the file's {', '.join(wrote.unkept)}", severity="warning")
        self.panels.refresh_diff()
        if then is not None:
            then()

    def ask_about_imported(self, force: bool, then: Then) -> None:
        """Edits of imported files are pending: write them too, save the sheet only, or cancel."""
        app = self.app
        document = app.document
        assert document is not None
        names = ", ".join(p.name for p in document.shared.pending())

        def answer(choice: str | None) -> None:
            if choice in ("write", "keep"):
                self.save(force=force, then=then, imported=choice)
        app.push_screen(ChoiceScreen(
            f"Write {names} too?",
            "Cells of a shared import were edited; each importer of it follows:\n"
            f"{document.imported_edits()}\n"
            f"Writing {names} changes it for every sheet that imports it, in this project too. "
            "Saving this sheet only keeps those edits in this session (lost when you quit).",
            [("cancel", "Cancel"), ("write", f"Write {names} and this sheet"),
             ("keep", f"Save this sheet only; {names} stays as it is on disk")]), answer)

    def save_imported(self) -> bool:
        """Write the imported files edited here; False (nothing more saved) when one cannot be."""
        app = self.app
        document = app.document
        assert document is not None
        try:
            written = document.save_imported()
        except (ExternalChange, FileDeleted, SaveRefused, OSError) as e:
            app.notify(f"not saved: {e}. Nothing else was written; your edits are still here.", severity="error",
                       timeout=15)
            return False
        for path, wrote in written:
            if wrote and wrote.kept:
                app.notify(f"another program wrote {path.name} while it was being saved: your version is "
                           f"saved, theirs is kept as {wrote.kept}", severity="warning", timeout=30)
        return True

    def ask_about_disk(self, then: Then = None) -> None:
        """The file changed on disk since it was read: ask, Cancel first."""
        app = self.app
        document = app.document
        assert document is not None

        def answer(choice: str | None) -> None:
            if choice == "merge":
                self.take_disk(keep_mine=True)
            elif choice == "reload":
                self.take_disk(keep_mine=False)
            elif choice == "overwrite":
                self.save(force=True, then=then, imported="keep")
        app.push_screen(ChoiceScreen(
            "The file changed on disk",
            f"{document.path} was changed by another program since it was opened. "
            "After Reload, Ctrl+Z puts your edits back on top of the file on disk (where they touch other lines).",
            [("cancel", "Cancel"), ("merge", "Keep my edits on top of the file on disk"),
             ("reload", "Reload"), ("overwrite", "Overwrite")]), answer)

    def take_disk(self, keep_mine: bool, quiet: bool = False) -> bool:
        """Reload from disk as an undoable step, with the unsaved edits on top when `keep_mine`.
        `quiet`: a file that cannot be read is said once, not at every check of the disk."""
        app = self.app
        document = app.document
        if document is None:
            return False
        try:
            result = document.take_disk(keep_mine)
        except MergeConflict as e:
            app.notify(f"{e}: nothing changed. Save under another name with the editor of your choice, "
                       "or reload (which drops them).", severity="error", timeout=12)
            return False
        except (OSError, UnicodeDecodeError) as e:
            if not (quiet and self.warned_disk):
                app.notify(f"cannot read {document.path}: {e}; your version stays open", severity="error")
            self.warned_disk = True
            return False
        self.warned_disk = False
        app.after_edit(result, "your edits kept on top of the file on disk" if keep_mine
                       else f"reloaded {document.path}" + (" (Ctrl+Z puts your edits back on top of it)"
                                                            if document.can_undo else ""))
        return True

    def reload(self) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        self.recovery.drop()        # Reload drops the unsaved edits, by the user's choice
        try:
            document.reload()
        except (OSError, UnicodeDecodeError) as e:
            app.notify(f"cannot reload: {e}", severity="error")
            return
        app.load(document)
        app.set_status(f"reloaded {document.path} from disk")

    def check_disk(self) -> None:
        """Reload a file changed on disk when there is nothing to lose; else warn once."""
        app = self.app
        document = app.document
        if document is None:
            return
        if not document.path.exists():
            if not self.warned_disk:
                self.warned_disk = True
                app.notify(f"{document.path} was deleted; saving will ask to recreate it", severity="warning")
            return
        if not document.disk_changed():
            return
        if not document.dirty and not app.editor.editing:
            if self.take_disk(keep_mine=False, quiet=True):
                app.notify(f"{document.path} changed on disk and was reloaded")
        elif not self.warned_disk:
            self.warned_disk = True
            app.notify(f"{document.path} changed on disk; saving will ask what to do", severity="warning")

    def when_saved_or_discarded(self, then: Callable[[], object]) -> None:
        """Run `then` now if there is nothing unsaved, else after asking."""
        app = self.app
        document = app.document
        if document is None or not document.dirty:
            self.recovery.drop()
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)
            elif choice == "discard":
                self.recovery.drop()
                then()
        app.push_screen(ChoiceScreen("Unsaved edits",
                                     f"{document.path} has unsaved edits. Save them first?", UNSAVED), answer)

    def quit(self) -> None:
        app = self.app
        if not app.commit_editor():   # never drop what is in the editor
            app.set_status(Text("not quitting: the edit in the editor does not check (fix it, or Esc)",
                                style="bold red"))
            return
        self.when_saved_or_discarded(lambda: app.exit(0))

    def open_sheet(self, path: str | Path, then: Then = None) -> None:
        """Open another sheet (asking about unsaved edits first), then run `then`."""
        app = self.app

        def go() -> None:
            try:
                document = Document(path)
            except (OSError, UnicodeDecodeError) as e:
                app.notify(f"cannot open {path}: {e}", severity="error")
                return
            app.load(document)
            if then is not None:
                then()
        self.when_saved_or_discarded(go)

    def sheet_paths(self) -> list[str]:
        """Sheets to open: beside the open sheet, under the working directory
        (hidden folders and virtualenvs skipped, at most MAX_LISTED), then the
        bundled library; shown relative to the working directory when under it."""
        document = self.app.document
        cwd = Path.cwd()
        found: dict[Path, None] = {}
        if document is not None:
            for path in sorted(document.path.resolve().parent.glob("*.yaml")):
                found[path] = None
        for root in (cwd, library_dir()):
            if root.is_dir():
                for path in _yaml_under(root):
                    if len(found) >= MAX_LISTED:
                        break
                    found.setdefault(path.resolve(), None)
        return [_shown(path, cwd) for path in found]

    def create_sheet(self) -> None:
        """`supersheet edit NEW.yaml`: ask for the title, write the sheet (never over
        an existing file) with one starter cell, and open it."""
        app = self.app

        def answer(title: str | None) -> None:
            if title is None:
                app.exit(0)
                return
            try:
                with open(app.path, "x", encoding="utf-8") as handle:
                    handle.write(new_sheet(title))
            except OSError as e:
                app.notify(f"cannot create {app.path}: {e}", severity="error")
                app.exit(1)
                return
            app.load(Document(app.path))
            app.set_status(f"created {app.path} · edit x, Ctrl+N adds a cell after it")
        app.push_screen(PromptScreen("A new sheet", f"{app.path} does not exist yet. Its title:"), answer)

    def save_as(self) -> None:
        """Save As (Ctrl+W): the sheet with its unsaved edits written to a new file
        (editor/saveas.py: never over an existing one), which the editor then edits; the
        file it came from stays as it is on disk. A refusal stays in the status line
        until the next action, and is also a notice."""
        app = self.app
        document = app.document
        if document is None:
            return
        if not app.commit_editor():
            app.set_status(Text("not saved: the edit in the editor does not check (fix it, or Esc)",
                                style="bold red"))
            return
        old = document.path

        def answer(name: str | None) -> None:
            if not name or not name.strip():
                app.set_status("Save As cancelled")
                return
            target = Path(name.strip()).expanduser()
            try:
                written = document.save_as(target)
            except (StructureError, OSError) as e:
                app.set_status(Text(f"not saved: {e}", style="bold red"))
                app.notify(str(e), title="not saved", severity="error", timeout=15)
                return
            self.recovery.drop()     # the old file's unsaved edits are saved, in the new file
            app.load(Document(written))
            app.set_status(f"saved as {written.name} · now editing it; {old.name} is unchanged on disk "
                           f"(both in {written.parent})" if written.parent == old.parent else
                           f"saved as {written.name} · now editing it, in {written.parent}; {old} is unchanged")
        app.push_screen(PromptScreen(
            "Save As", f"A new file for this sheet, with its unsaved edits (relative to {old.parent}). "
            f"It is never written over an existing file; {old.name} stays as it is on disk, and the editor "
            "goes on with the new file. Typing replaces the name.", f"{old.stem}-2{old.suffix}", selected=True),
            answer)



MAX_LISTED = 2000
SKIPPED = {"node_modules", "__pycache__", "site-packages"}


def _yaml_under(root: Path) -> Iterator[Path]:
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
