"""Save As (Ctrl+W): the sheet with its unsaved edits written to a new file
(editor/saveas.py: never over an existing one), which the editor then edits; the
file it came from stays as it is on disk. A refusal stays in the status line
until the next action, and is also a notice. A mixin of the app (tui/app.py)."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text

from supersheet.editor.cells import StructureError
from supersheet.editor.document import Document

from .screens import PromptScreen


class SaveAsActions:
    """Mixed into SupersheetApp."""

    def action_save_as(self) -> None:
        document = self.document
        if document is None:
            return
        if not self.commit_editor():
            self.set_status(Text("not saved: the edit in the editor does not check (fix it, or Esc)",
                                 style="bold red"))
            return
        old = document.path

        def answer(name: str | None) -> None:
            if not name or not name.strip():
                self.set_status("Save As cancelled")
                return
            target = Path(name.strip()).expanduser()
            try:
                written = document.save_as(target)
            except (StructureError, OSError) as e:
                self.set_status(Text(f"not saved: {e}", style="bold red"))
                self.notify(str(e), title="not saved", severity="error", timeout=15)
                return
            self.load(Document(written))
            self.set_status(f"saved as {written.name} · now editing it; {old.name} is unchanged on disk "
                            f"(both in {written.parent})" if written.parent == old.parent else
                            f"saved as {written.name} · now editing it, in {written.parent}; {old} is unchanged")
        self.push_screen(PromptScreen(
            "Save As", f"A new file for this sheet, with its unsaved edits (relative to {old.parent}). "
            f"It is never written over an existing file; {old.name} stays as it is on disk, and the editor "
            "goes on with the new file. Typing replaces the name.", f"{old.stem}-2{old.suffix}", selected=True),
            answer)
