"""The editor's keys, in one table. The app's and the grid's bindings, the keys
the help screen lists and the keys the command palette names all come from
here, so none of them can name a key the others do not.

The grid, the cell editor and the filter field have their keys routed by the
app, one at a time, in order (tui/keys.py): a key of the table of the widget
that has the focus runs that key's action at once (GRID_KEYS, EDITOR_KEYS,
FILTER_KEYS); typing is the only thing keys.py decides by itself. The arrows
and Enter on the diagnostics list or the diff table are run at once too
(PANEL_KEYS): Enter goes to the row that the arrows typed before it chose,
and the keys typed after it land where it went.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Key:
    keys: str                 # Textual's key names, comma-separated: "f1,question_mark"
    action: str               # the action it runs ("app.add_cell" from the grid runs the app's add_cell)
    label: str = ""           # its word in the footer (and Textual's description of the binding)
    written: str = ""         # how the help screen and the palette write the key: "Ctrl+S"
    show: bool = True         # in the footer
    priority: bool = False
    key_display: str | None = None

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.label, show=self.show, priority=self.priority,
                       key_display=self.key_display)


APP_KEYS = (
    Key("ctrl+s", "save", "Save", "Ctrl+S"),
    Key("ctrl+w", "save_as", "Save As", "Ctrl+W", show=False),
    Key("ctrl+z", "undo", "Undo", "Ctrl+Z"),
    Key("ctrl+y", "redo", "Redo", "Ctrl+Y"),
    Key("slash", "filter", "Filter", "/"),
    Key("f2", "toggle_inspector", "Inspector", "F2"),
    Key("f3", "toggle_sweep", "Sweep", "F3"),
    Key("f4", "toggle_diagnostics", "Diagnostics", "F4"),
    Key("f5", "toggle_diff", "Diff", "F5"),
    Key("ctrl+x", "export_sweep", "Export sweep", "Ctrl+X", show=False),
    Key("f8", "next_problem", "Next problem", "F8", show=False),
    Key("shift+f8", "previous_problem", "Previous problem", "Shift+F8", show=False),
    Key("f1,question_mark", "help", "Help", "?", key_display="?"),
    Key("escape", "escape", show=False),
    Key("ctrl+q", "quit", "Quit", "Ctrl+Q", priority=True),
)

GRID_KEYS = (
    Key("up", "cursor(-1)", "Up", show=False),
    Key("down", "cursor(1)", "Down", show=False),
    Key("pageup", "page(-1)", "Page up", show=False),
    Key("pagedown", "page(1)", "Page down", show=False),
    Key("home,ctrl+home", "first", "First", show=False),
    Key("end,ctrl+end", "last", "Last", show=False),
    Key("enter", "app.open_row", "Edit", show=False),          # a cell: edit it; a group's row: fold it
    Key("space", "app.fold_row", "Fold", show=False),          # a group's row: fold it; a cell: nothing
    Key("ctrl+c", "app.copy_value", "Copy value", "Ctrl+C", show=False),
    Key("ctrl+n", "app.add_cell", "Add cell", "Ctrl+N", show=False),
    Key("ctrl+d", "app.duplicate_cell", "Duplicate cell", "Ctrl+D", show=False),
    # Del on an import's row removes the import (action_delete_cell asks imports.py first); this
    # entry only shows it in the footer there (app.check_action). Before delete_cell: `actions()`
    # keeps the last action of a key, so keys.py runs delete_cell
    Key("delete", "app.remove_import", "Remove import", "Del"),
    Key("delete", "app.delete_cell", "Delete cell", "Del", show=False),
    Key("ctrl+r", "app.rename_cell", "Rename cell", "Ctrl+R", show=False),
    Key("ctrl+e", "app.edit_properties", "Cell properties", "Ctrl+E", show=False),
    Key("ctrl+k", "app.remove_expectation", "Remove expectation", "Ctrl+K", show=False),
    Key("ctrl+o", "app.swap_import", "Swap import", "Ctrl+O"),        # these four in the footer on an import's row
    Key("ctrl+t", "app.import_sets", "set: entries", "Ctrl+T"),
    Key("ctrl+u", "app.add_import", "Add import", "Ctrl+U"),
    Key("f12", "app.go_to_definition", "Go to definition", "F12", show=False),
    Key("ctrl+b", "app.go_back", "Back", "Ctrl+B", show=False),
)

EDITOR_KEYS = (       # while a cell is being edited (also the cell editor's bindings)
    Key("enter", "app.commit_edit", "Commit", "Enter", show=False),
    Key("escape", "app.cancel_edit", "Cancel edit", "Esc", show=False),
    Key("ctrl+z", "app.undo_typing", "Undo", "Ctrl+Z"),     # the footer's Undo while editing: of the typing
    Key("tab", "app.accept_completion", "Complete", "Tab", show=False),   # the first offer in the status line
)

FILTER_KEYS = (       # while the filter field has the focus
    Key("enter", "app.leave_filter", "To the cells", show=False),
    Key("escape", "app.escape", "Clear the filter", show=False),
)

PANEL_KEYS = (        # while the diagnostics list or the diff table has the focus (the list's/table's own actions)
    Key("up", "cursor_up", "Up", show=False),
    Key("down", "cursor_down", "Down", show=False),
    Key("pageup", "page_up", "Page up", show=False),
    Key("pagedown", "page_down", "Page down", show=False),
    Key("enter", "app.choose_place", "Go there", show=False),
    Key("delete", "app.remove_expectation", "Remove expect entry", show=False),   # on a diagnostic of one
)

PALETTE_KEY = "Ctrl+P"    # Textual's command palette (App.COMMAND_PALETTE_BINDING)


def written(*actions: str) -> str:
    """The keys of the app's actions as the help screen writes them: `Ctrl+Z / Ctrl+Y`."""
    return " / ".join(_written(action) for action in actions)


def key_of(action: str) -> str | None:
    """How the key of one of the app's actions is written, or None when it has no key."""
    found = [k.written for k in APP_KEYS + GRID_KEYS + EDITOR_KEYS + FILTER_KEYS
             if k.written and k.action.removeprefix("app.") == action]
    return found[0] if found else None


def actions(table: tuple[Key, ...]) -> dict[str, str]:
    """Textual's key name -> the action it runs, for one of the tables."""
    return {name: key.action for key in table for name in key.keys.split(",")}


def _written(action: str) -> str:
    key = key_of(action)
    if key is None:
        raise KeyError(f"no key runs {action!r}")
    return key
