"""The editor's keys, in one table. The app's and the grid's bindings, the keys
the help screen lists and the keys the command palette names all come from
here, so none of them can name a key the others do not.

(The grid, the cell editor and the filter field also route Enter, Escape,
Space and typing themselves, one key at a time: tui/keys.py.)
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
    Key("ctrl+z", "undo", "Undo", "Ctrl+Z"),
    Key("ctrl+y", "redo", "Redo", "Ctrl+Y"),
    Key("slash", "filter", "Filter", "/"),
    Key("f2", "toggle_inspector", "Inspector", "F2"),
    Key("f3", "toggle_sweep", "Sweep", "F3"),
    Key("f4", "toggle_diagnostics", "Diagnostics", "F4"),
    Key("f5", "toggle_diff", "Diff", "F5"),
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
    Key("enter", "select", "Edit", show=False),
    Key("space", "toggle_section", "Fold", show=False),
    Key("ctrl+c", "app.copy_value", "Copy value", "Ctrl+C", show=False),
    Key("ctrl+n", "app.add_cell", "Add cell", "Ctrl+N", show=False),
    Key("ctrl+d", "app.duplicate_cell", "Duplicate cell", "Ctrl+D", show=False),
    Key("delete", "app.delete_cell", "Delete cell", "Del", show=False),
    Key("ctrl+r", "app.rename_cell", "Rename cell", "Ctrl+R", show=False),
    Key("ctrl+e", "app.edit_properties", "Cell properties", "Ctrl+E", show=False),
)

PALETTE_KEY = "Ctrl+P"    # Textual's command palette (App.COMMAND_PALETTE_BINDING)


def written(*actions: str) -> str:
    """The keys of the app's actions as the help screen writes them: `Ctrl+Z / Ctrl+Y`."""
    return " / ".join(_written(action) for action in actions)


def key_of(action: str) -> str | None:
    """How the key of one of the app's actions is written, or None when it has no key."""
    found = [k.written for k in APP_KEYS + GRID_KEYS if k.written and k.action.removeprefix("app.") == action]
    return found[0] if found else None


def _written(action: str) -> str:
    key = key_of(action)
    if key is None:
        raise KeyError(f"no key runs {action!r}")
    return key
