"""Completion in the cell editor: after each key typed there, the offers for the
word at the cursor (editor/completion.py) are shown in the status line — cells
with their values, an import's cells after `alias.`, units after a number,
functions with their signature — and Tab takes the first. Nothing is ever
completed unasked: Enter commits the text as typed. Shown in the status line,
which is redrawn without laying out the screen, so offering costs a typed key
almost nothing. A controller the app holds (tui/app.py: `app.completion`)."""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.completion import Completions, complete

from .host import Editor


def offers_text(found: Completions) -> Text:
    """`Tab: cards 8 · capacity 80 GB · 3 more`: the first offer (what Tab takes) in bold."""
    said = Text("Tab: ", style="bold")
    for i, offer in enumerate(found.offers):
        if i:
            said.append(" · ", style="dim")
        said.append(offer.text, style="bold cyan" if i == 0 else "cyan")
        if offer.detail:
            said.append(f" {offer.detail}", style="dim")
    if found.more:
        said.append(f" · {found.more} more", style="dim")
    return said


class CompletionController:
    def __init__(self, app: Editor) -> None:
        self.app = app
        self.completions: Completions | None = None   # what the status line offers for the word at the cursor

    def offer(self) -> None:
        """The offers for the word at the editor's cursor, in the status line."""
        app = self.app
        editor, document = app.editor, app.document
        if document is None or not editor.editing or editor.key is None:
            self.completions = None
            return
        field = editor.input
        found = complete(document, editor.key, field.value, field.cursor_position)
        had, self.completions = self.completions, found
        if found is None:
            if had is not None:
                app.set_status(f"editing {editor.key} · Enter commits · Esc cancels · Ctrl+Z undoes typing")
            return
        app.set_status(offers_text(found))

    def accept(self) -> None:
        """Tab in the cell editor: the first offer replaces the word at the cursor."""
        app = self.app
        editor, found = app.editor, self.completions
        if found is None or not editor.editing:
            app.set_status("nothing to complete here · type a name, `alias.`, a unit after a number")
            return
        field = editor.input
        with editor.typing():
            text, cursor = found.accept(field.value, field.cursor_position)
            field.value = text
            field.cursor_position = cursor
        self.offer()
