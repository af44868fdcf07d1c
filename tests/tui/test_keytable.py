"""The editor's keys are written once (tui/keytable.py): the bindings, the help
screen and the command palette all read that table, so they cannot disagree."""
from __future__ import annotations

from supersheet.tui.app import SupersheetApp
from supersheet.tui.commands import ACTIONS

from supersheet.tui.keytable import APP_KEYS, EDITOR_KEYS, FILTER_KEYS, GRID_KEYS, key_of
from supersheet.tui.widgets.editor import CellEditor
from supersheet.tui.screens import help_text
from supersheet.tui.widgets.grid import SheetGrid
from repo_paths import REPO


def test_every_key_runs_an_action_that_exists():
    for key in APP_KEYS:
        assert hasattr(SupersheetApp, "action_" + key.action), key
    for key in GRID_KEYS + EDITOR_KEYS + FILTER_KEYS:
        owner, _, action = key.action.rpartition(".")
        assert hasattr(SupersheetApp if owner == "app" else SheetGrid, "action_" + action.split("(")[0]), key


def test_the_bindings_are_the_table():
    assert [(b.key, b.action) for b in SupersheetApp.BINDINGS] == [(k.keys, k.action) for k in APP_KEYS]
    assert [(b.key, b.action) for b in SheetGrid.BINDINGS] == [(k.keys, k.action) for k in GRID_KEYS]
    assert [(b.key, b.action) for b in CellEditor.BINDINGS] == [(k.keys, k.action) for k in EDITOR_KEYS]


def test_the_routed_keys_come_from_the_table_not_from_their_names():
    """keys.py routes Enter, Escape, Space and Ctrl+Z by the key table (issue 17): no key name in it."""
    source = (REPO / "tui" / "keys.py").read_text(encoding="utf-8")
    for name in ('"enter"', '"escape"', '"space"', '"ctrl+z"'):
        assert name not in source, name


def test_the_help_lists_every_key_that_has_a_written_form():
    help_lines = help_text().plain.splitlines()
    for key in APP_KEYS + GRID_KEYS + EDITOR_KEYS:
        if key.written:
            assert any(line.startswith("  ") and key.written in line[:24] for line in help_lines), key


def test_the_palette_names_the_key_of_each_action_that_has_one():
    keyed = {action: key_of(action) for _, _, action in ACTIONS if key_of(action)}
    assert {"save", "undo", "delete_cell", "toggle_diff", "help"} <= set(keyed)
    for _, description, action in ACTIONS:
        assert "(Ctrl+" not in description and "(F" not in description, description   # written in the table only


def test_the_help_fits_an_80_column_terminal_with_each_keys_words_beside_it():
    """Issue 31: at 80x24 the help wrapped its words back under the keys; now every line fits
    (74 columns inside the box) and a key's words continue in their own column."""
    from supersheet.tui.screens import KEYS
    lines = help_text(74).plain.splitlines()
    assert all(len(line) <= 74 for line in lines), max(lines, key=len)
    keys_width = max(len(keys) for keys, _ in KEYS) + 2
    rows = lines[lines.index(next(l for l in lines if l.startswith("  ↑ ↓"))):]
    rows = rows[:next(i for i, l in enumerate(rows) if not l.strip())]
    continued = [line for line in rows if not line.startswith("  ") or line[2] == " "]
    assert len(rows) > len(KEYS) and continued                  # some wrapped, at 74 columns
    assert all(line.startswith(" " * (keys_width + 2)) and line[keys_width + 2] != " " for line in continued)
