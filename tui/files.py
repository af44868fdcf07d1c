"""The editor's file actions: save (asking what to do when the file changed
on disk), reload, watch the file for changes, ask about unsaved edits before
quitting or opening another sheet. A mixin of the app (tui/app.py)."""
from __future__ import annotations

from pathlib import Path

from engine.edit import Document, ExternalChange, FileDeleted, SaveRefused, library_dir

from .screens import ChoiceScreen

UNSAVED = [("save", "Save"), ("discard", "Discard edits"), ("cancel", "Cancel")]


class FileActions:
    """Mixed into SupersheetApp."""

    def action_save(self) -> None:
        self.save()

    def save(self, force: bool = False, then=None) -> None:
        document = self.document
        if document is None:
            return
        try:
            wrote = document.save(force=force)
        except FileDeleted:
            def recreate(choice: str | None) -> None:
                if choice == "recreate":
                    self.save(force=True, then=then)
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
            def answer(choice: str | None) -> None:
                if choice == "reload":
                    self.reload()
                elif choice == "overwrite":
                    self.save(force=True, then=then)
            self.push_screen(ChoiceScreen(
                "The file changed on disk",
                f"{document.path} was changed by another program since it was opened.\n"
                "Reload it (your unsaved edits are lost), overwrite it with your version, or cancel.",
                [("reload", "Reload"), ("overwrite", "Overwrite"), ("cancel", "Cancel")]), answer)
            return
        except OSError as e:
            self.notify(f"cannot save: {e}", severity="error")
            return
        self._warned_disk = False
        self.update_title()
        self.set_status(f"saved {document.path}" if wrote else f"{document.path} is unchanged")
        self.refresh_diff()
        if then is not None:
            then()

    def reload(self) -> None:
        document = self.document
        if document is None:
            return
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
        if not document.dirty:
            self.reload()
            self.notify(f"{document.path} changed on disk and was reloaded")
        elif not self._warned_disk:
            self._warned_disk = True
            self.notify(f"{document.path} changed on disk; saving will ask what to do", severity="warning")

    def when_saved_or_discarded(self, then) -> None:
        """Run `then` now if there is nothing unsaved, else after asking."""
        document = self.document
        if document is None or not document.dirty:
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)
            elif choice == "discard":
                then()
        self.push_screen(ChoiceScreen("Unsaved edits",
                                      f"{document.path} has unsaved edits. Save them first?", UNSAVED), answer)

    async def action_quit(self) -> None:
        self.when_saved_or_discarded(lambda: self.exit(0))

    def open_sheet(self, path: str | Path) -> None:
        def go() -> None:
            try:
                document = Document(path)
            except (OSError, UnicodeDecodeError) as e:
                self.notify(f"cannot open {path}: {e}", severity="error")
                return
            self.load(document)
        self.when_saved_or_discarded(go)

    def library_sheets(self) -> list[str]:
        root = library_dir()
        if not root.is_dir():
            return []
        paths = sorted(root.rglob("*.yaml"))
        try:
            return [str(p.relative_to(Path.cwd())) for p in paths]
        except ValueError:
            return [str(p) for p in paths]
