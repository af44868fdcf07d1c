"""Go to definition (F12) and Back (Ctrl+B): on a cell of another sheet — an
imported cell (`model.layers`), one inherited with `extends` — F12 opens the
sheet it is written in at that cell; on a cell of this sheet whose formula names
one cell of another sheet (`capacity: = hgx.hbm_capacity`), that one. Each jump
remembers where it came from (a stack of open sheets), and Ctrl+B goes back to
the sheet and cell before it. Leaving a sheet with unsaved edits asks first,
as opening any sheet does. A controller the app holds (tui/app.py: `app.definition`)."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text

from supersheet.editor.document import Document

from .files import FileController
from .host import Editor


class DefinitionController:
    def __init__(self, app: Editor, files: FileController) -> None:
        self.app = app
        self.files = files
        self.sheet_stack: list[tuple[Path, str]] = []   # where F12 came from: (sheet, cell), for Ctrl+B

    def definition_of(self, document: Document, key: str) -> tuple[Path, str] | None:
        home = document.home_of(key)
        if home is not None:
            return home
        others = [p for p in document.precedents(key) if document.home_of(p) is not None]
        return document.home_of(others[0]) if len(others) == 1 else None

    def go_to_definition(self) -> None:
        app = self.app
        document, key = app.document, app.grid.current_key
        if document is None or key is None:
            app.set_status("select a cell first")
            return
        found = self.definition_of(document, key)
        if found is None:
            app.set_status(Text(f"{key} is written in this sheet (F2 shows what it uses)", style="yellow"))
            return
        path, name = found
        came_from = (document.path, key)

        def there() -> None:
            self.sheet_stack.append(came_from)
            if app.document is not None and app.document.has_cell(name):
                app.go_to(name)
            depth = len(self.sheet_stack)
            app.set_status(f"{name} in {path.name} · Ctrl+B goes back to {came_from[1]} in "
                           f"{came_from[0].name}" + (f" ({depth} sheets deep)" if depth > 1 else ""))
        self.files.open_sheet(path, then=there)

    def go_back(self) -> None:
        app = self.app
        if not self.sheet_stack:
            app.set_status("nothing to go back to: F12 on a cell of another sheet goes to it")
            return
        path, key = self.sheet_stack[-1]

        def there() -> None:
            self.sheet_stack.pop()
            if app.document is not None and app.document.has_cell(key):
                app.go_to(key)
            app.set_status(f"back at {key} in {path.name}")
        self.files.open_sheet(path, then=there)
