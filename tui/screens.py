"""Modal screens: the help screen; the questions the editor asks (unsaved
edits on quit or open, a file changed on disk, a name, a cell's properties)
are in dialogs.py."""
from __future__ import annotations

import textwrap

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .dialogs import ChoiceScreen, ImportedPropertiesScreen, PickerScreen, PromptScreen, PropertiesScreen
from .keytable import PALETTE_KEY, written

__all__ = ["ChoiceScreen", "HelpScreen", "ImportedPropertiesScreen", "PickerScreen", "PromptScreen", "PropertiesScreen",
           "help_text"]

INTRO = """\
A sheet is a spreadsheet whose cells have names. Change an input or a formula
and every cell computed from it updates; each value that moved shows its old
value and the change until the next edit."""

# The keys come from the key table (keytable.py); the first four rows are the keys the
# grid and the cell editor route themselves (keys.py).
KEYS = [
    ("↑ ↓ PgUp PgDn", "move between cells"),
    ("Enter, or type", "edit the cell: its value or formula as written (a paste too)"),
    (written("commit_edit", "cancel_edit"), f"in the editor: commit / cancel; {written('undo_typing')} undoes typing"),
    (written("accept_completion"), "in the editor: take the first completion the status line offers"),
    ("Enter, Space", "on a group: fold or unfold it (imports start folded)"),
    (written("filter"), "filter cells by name, formula or value (↑ ↓ step through them; Esc clears)"),
    (written("copy_value"), "copy the cell's value (the palette also copies its formula)"),
    (written("add_cell", "duplicate_cell", "delete_cell"), "add a cell after this one / duplicate it / delete it"),
    (written("rename_cell", "edit_properties"), "rename (every reference follows) / unit, digits, doc, source"),
    (written("remove_expectation") + "; F4: Del", "remove an expect entry about the cell / the one a diagnostic is in"),
    (written("undo", "redo"), "undo / redo an edit"),
    (written("save", "save_as"), "save; comments and layout are kept / save as a new file"),
    (written("toggle_inspector"), "inspector: doc, source, unit, what the cell uses and what uses it"),
    (written("toggle_sweep", "export_sweep"), "sweep view: a sweep of the sheet, or an axis over a cell / export its table"),
    (written("toggle_diagnostics"), "diagnostics: every problem; choose one to go where it is"),
    (written("next_problem", "previous_problem"), "the next / previous problem (the status line counts them)"),
    (written("swap_import"), "on an import: import another sheet instead (another model, other hardware)"),
    (written("add_import") + "; Del", "import a sheet (project, library) / on an import's row: remove it"),
    (written("import_sets"), "on an import: its set: entries (Enter changes one, Del removes it)"),
    (written("go_to_definition", "go_back"), "open the sheet a cell is written in, at it / back where you were"),
    (written("toggle_diff"), "diff: the unsaved sheet against the saved file or git HEAD"),
    (PALETTE_KEY, "command palette: open a sheet, run a sweep, go to a cell, save"),
    (written("help"), "this help"),
    (written("quit"), "quit (asks when there are unsaved edits)"),
]

OUTRO = """\
Formulas start with '=' (= weights / cards -> GB); inputs are numbers or
quantities (80 GB, 8192 token). An edit that does not check is not applied:
its diagnostic is shown under the editor and the values stay as they were.
Editing a cell of an imported sheet records a `use: … set:` override in this
sheet; the imported file is not changed. A cell of an import shared by other
imports (one instance) is edited in its file, which all of them follow;
Ctrl+S asks before writing that file. With random draws (uniform, normal,
…) a cell's value has every draw at its mean; beside it, its sampled mean and
p5 … p95, and in the inspector a histogram and the draws that drive it."""


HELP_WIDTH = 84      # the help's text at most: #help is 90 wide with its border, padding and scrollbar


def help_text(width: int = HELP_WIDTH) -> Text:
    """The help in `width` columns: paragraphs filled to it, each key's words wrapped
    beside its key, never back under it (an 80-column terminal reads as well as a wide one)."""
    text = Text("supersheet edit\n\n", style="bold")
    text.append(_filled(INTRO, width) + "\n\n")
    keys_width = max(len(keys) for keys, _ in KEYS) + 2      # the keys never run into their words
    words = max(20, width - keys_width - 2)
    for keys, action in KEYS:
        lines = textwrap.wrap(action, words) or [""]
        text.append(f"  {keys:<{keys_width}}", style="bold cyan")
        text.append(lines[0] + "\n")
        for line in lines[1:]:
            text.append(" " * (keys_width + 2) + line + "\n")
    text.append("\n" + _filled(OUTRO, width) + "\n\n")
    text.append("Esc closes this help", style="dim")
    return text


def _filled(paragraph: str, width: int) -> str:
    return textwrap.fill(" ".join(paragraph.split()), width)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text(self._width()), id="help-text")

    def _width(self) -> int:
        # #help's border, padding and scrollbar take 6 columns of a narrower terminal
        return min(HELP_WIDTH, self.app.size.width - 6)

    def on_resize(self) -> None:
        self.query_one("#help-text", Static).update(help_text(self._width()))

    def action_close(self) -> None:
        self.dismiss(None)
