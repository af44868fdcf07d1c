"""Command palette entries: every action of the editor, plus one command per
cell (go to), per sheet beside the open one, under the working directory and
in the library (open), and per sweep (run)."""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .keytable import key_of
from .widgets.sweep import FIT

if TYPE_CHECKING:
    from supersheet.editor.document import Document

    from .files import FileController
    from .sweeping import SweepController


class Commanded(Protocol):
    """What the palette asks of the editor's app (tui/app.py's `SupersheetApp`, which mounts
    this provider, so this module does not import it back)."""

    document: Document | None
    files: FileController
    sweeping: SweepController

    def run_action(self, action: str) -> Any: ...
    def go_to(self, key: str) -> None: ...

ACTIONS: list[tuple[str, str, str]] = [
    ("Save", "write the sheet back", "save"),
    ("Save As", "write the sheet with its edits to a new file, and edit that one", "save_as"),
    ("Undo", "undo the last edit", "undo"),
    ("Redo", "redo the undone edit", "redo"),
    ("Edit cell", "edit the selected cell (Enter)", "edit"),
    ("Filter cells", "filter the grid by name", "filter"),
    ("Add cell", "a new cell after the selected one, in its group", "add_cell"),
    ("Duplicate cell", "a copy of the selected cell under a new name", "duplicate_cell"),
    ("Rename cell", "rename the selected cell and every reference to it; offers to update the sheets that import it", "rename_cell"),
    ("Cell properties", "the selected cell's unit, digits, doc and source", "edit_properties"),
    ("Go to definition", "open the sheet the selected cell (or the one cell of another sheet its formula names) is written in, at it", "go_to_definition"),
    ("Back", "back to the sheet and cell before the last Go to definition", "go_back"),
    ("Swap import", "import another sheet under the selected import's alias (another model, other hardware)", "swap_import"),
    ("Add import", "import a sheet of this project or of the library under an alias", "add_import"),
    ("Remove import", "remove the selected import from use: (asks, and lists what uses it)", "remove_import"),
    ("Import set: entries", "the selected import's set: entries: change, add or remove one", "import_sets"),
    ("Delete cell", "delete the selected cell; asks, and lists what uses it", "delete_cell"),
    ("Remove expectation", "an expect entry: the one of the diagnostic selected in F4 (Del there), or one about the selected cell", "remove_expectation"),
    ("Copy value", "the selected cell's value with its unit, to the clipboard", "copy_value"),
    ("Copy exact value", "the selected cell's value at full precision, with its unit (not the digits shown)", "copy_exact"),
    ("Copy formula", "the selected cell's formula or value as written, to the clipboard", "copy_formula"),
    ("Toggle inspector", "doc, unit, precedents and dependents of the selected cell", "toggle_inspector"),
    ("Toggle sweep view", "table and plot of a sweep", "toggle_sweep"),
    ("Toggle diagnostics", "every problem of the sheet", "toggle_diagnostics"),
    ("Next problem", "go to the next error, failed check, violated assumption or failed expectation", "next_problem"),
    ("Previous problem", "go to the previous one", "previous_problem"),
    ("Toggle diff view", "what the unsaved edits change, result by result", "toggle_diff"),
    ("Diff against the saved file", "the unsaved sheet against the file on disk", "diff_saved"),
    ("Diff against git HEAD", "the unsaved sheet against its last commit (imports at HEAD too)", "diff_head"),
    ("Export sweep table", "the rows the sweep view shows, to a CSV or Parquet file (as `supersheet sweep -o` writes them)", "export_sweep"),
    ("Ad hoc sweep over the selected cell", "vary the selected cell around its value", "adhoc_sweep"),
    ("Reload from disk", "drop unsaved edits and read the file again", "reload"),
    ("Help", "keys and how editing works", "help"),
    ("Quit", "leave the editor (asks about unsaved edits)", "quit"),
]


class SheetCommands(Provider):
    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        app = cast(Commanded, self.app)
        for title, help_text, action in ACTIONS:
            key = key_of(action)
            yield title, f"{help_text} ({key})" if key else help_text, partial(app.run_action, action)
        document = app.document
        if document is None:
            return
        for name in document.sweep_names():
            yield f"Run sweep: {name}", "show this sweep of the sheet", partial(app.sweeping.show, name)
        for name in document.fit_names():
            yield f"Run fit: {name}", "show this fit: its values, and the data against the model row by row", \
                partial(app.sweeping.show, FIT + name)
        for key in document.keys():
            yield f"Go to cell: {key}", "", partial(app.go_to, key)
        for path in app.files.sheet_paths():
            yield f"Open sheet: {path}", "", partial(app.files.open_sheet, path)

    async def discover(self) -> Hits:
        for title, help_text, command in self._commands():
            if title.startswith(("Go to cell", "Open sheet")):
                continue
            yield DiscoveryHit(title, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, command in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), command, text=title, help=help_text or None)
