"""Keys that never go astray: the keys of the grid, the cell editor and the
filter field are routed by the app, one at a time, in the order they were
typed.

Textual hands a key to the focused widget through that widget's message
queue, and opening the editor, committing an edit or filtering happen later
still, through more messages. Keys that arrive in a burst (a paste, a fast
typist, a terminal catching up under load) were then already on their way to
the grid while the editor opened: `16` opened the editor twice, ending with
`6`, and a space meant for the value folded a group. So, while the focus is
on one of these three, the app does each key's work itself before it looks at
the next key: opening the editor, typing, committing, moving the cursor,
filtering. A slow recompute only delays the keys after it; they still land
where they were typed. The editor's questions (dialogs.py) take their keys
the same way, from the moment they are pushed. A controller the app holds
(tui/app.py: `app.keys`), handed every event first (`SupersheetApp.on_event`).
"""
from __future__ import annotations

import time
from typing import Protocol

from rich.text import Text
from textual import events
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.widgets import Input

from .completing import CompletionController
from .dialogs import Dialog
from .heap import QuietHeap
from .host import Editor, focus_now, in_a_panel
from .keytable import EDITOR_KEYS, FILTER_KEYS, GRID_KEYS, PANEL_KEYS, actions
from .widgets.editor import type_into

NOT_TYPING = set("/?")        # on the grid these are keys (filter, help), not the start of a value
TYPING_GAP = 1.0              # s: keys closer than this after text typed on a group's row are still that typing
GRID, EDITOR, FILTER, PANEL = actions(GRID_KEYS), actions(EDITOR_KEYS), actions(FILTER_KEYS), actions(PANEL_KEYS)
ENDS_TYPING = ("app.commit_edit", "app.cancel_edit")


class Router(Editor, Protocol):
    """What the key routing uses of the app, besides what every controller does."""

    heap: QuietHeap
    app_focus: bool

    @property
    def filter_field(self) -> Input: ...
    def start_edit(self, key: str, initial: str | None = None) -> None: ...
    async def run_action(self, action: str, default_namespace: DOMNode | None = None) -> bool: ...
    async def _check_bindings(self, key: str, priority: bool = False) -> bool: ...


class KeyRouter:
    def __init__(self, app: Router, completion: CompletionController) -> None:
        self.app = app
        self.completion = completion
        self.refused: tuple[str, float] | None = None   # text typed on a group's row, and when

    async def take(self, event: events.Event) -> bool:
        """Route a key or a paste now, in order; False: Textual's own handling takes it."""
        app = self.app
        if isinstance(event, (events.Key, events.Paste, events.MouseDown)):
            app.heap.touched()
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self.regain_focus()
            if self.routes_keys():
                if isinstance(event, events.Paste):
                    self.route_paste(event.text)
                elif not await app._check_bindings(event.key, priority=True):
                    await self.route_key(event)
                return True
            if isinstance(event, events.Key) and event.key in PANEL and in_a_panel(app):
                # chosen before the next key is looked at: the keys typed after it follow the focus
                await app.run_action(PANEL[event.key], app.focused)
                return True
            dialog = app.screen
            if isinstance(dialog, Dialog):    # a question: its keys, in order, even before it is built
                if isinstance(event, events.Paste):
                    dialog.take_paste(event.text)
                elif not await app._check_bindings(event.key, priority=True) and not dialog.take_key(event):
                    await app._check_bindings(event.key)
                return True
        return False

    def regain_focus(self) -> None:
        """A key typed while the terminal said the app lost the focus (a focus report,
        `ESC [ O`: tmux sends one when a client detaches or the pane loses focus) gives
        the focus back to the widget that had it before this key is looked at. Textual
        does that too, but only after the key was passed by: it then went to the grid
        through the grid's message queue and ran after the keys typed behind it
        (`Home Down 2048 Enter` edited the row below the one meant, then moved to the
        top). With nothing to give it back to, the grid takes it."""
        app = self.app
        if not app.app_focus:
            app.app_focus = True       # Textual's watcher gives the focus back, now
        if app.focused is None and not isinstance(app.screen, Dialog):
            try:
                grid = app.grid
            except NoMatches:   # not composed yet, or being torn down
                return
            if grid.screen is app.screen:
                app.screen.set_focus(grid)

    def routes_keys(self) -> bool:
        """The keys are ours while the main screen shows and the grid, the editor
        or the filter has the focus."""
        app = self.app
        try:
            grid = app.grid
            ours = (grid, app.editor.input, app.filter_field)
        except NoMatches:   # not composed yet, or being torn down
            return False
        return grid.screen is app.screen and app.focused in ours

    async def route_key(self, event: events.Key) -> None:
        app = self.app
        if app.editor.editing:
            await self._editor_key(event)
        elif app.focused is app.filter_field:
            await self._filter_key(event)
        else:
            await self._grid_key(event)

    async def _editor_key(self, event: events.Key) -> None:
        app = self.app
        editor = app.editor
        focus_now(app, editor.input)
        if event.key in EDITOR:                  # commit, cancel, undo typing, complete: the key table's
            await app.run_action(EDITOR[event.key])
            return
        if event.is_printable and event.character is not None:
            editor.type_text(event.character)
        else:
            with editor.typing():
                await app._check_bindings(event.key)
        self.completion.offer()

    async def _grid_key(self, event: events.Key) -> None:
        app = self.app
        grid = app.grid
        focus_now(app, grid)
        if self._typed_on_a_group(event):
            return
        typing = event.is_printable and event.character not in NOT_TYPING and bool(event.character)
        if event.key in GRID:                    # the grid's keys (Enter, Space, ↑ ↓ …), run now
            await app.run_action(GRID[event.key], grid)
        elif typing and grid.current_key is not None:
            app.start_edit(grid.current_key, event.character)
        elif typing:
            self._refuse_typing(event.character or "")
        else:
            await app._check_bindings(event.key)

    def _typed_on_a_group(self, event: events.Key) -> bool:
        """Whether this key belongs to text typed on a group's row (it has no value
        to edit): the rest of that text, a space too, and the Enter or Esc that ends
        it are taken here, never a fold; any other key ends it and does its own work."""
        if self.refused is None:
            return False
        refused, when = self.refused
        if time.monotonic() - when > TYPING_GAP:
            self.refused = None
            return False
        if event.is_printable and event.character:
            self._refuse_typing(refused + event.character)
            return True
        self.refused = None
        return EDITOR.get(event.key) in ENDS_TYPING     # the Enter or Esc that would have ended an edit

    def _refuse_typing(self, text: str) -> None:
        app = self.app
        self.refused = (text, time.monotonic())
        shown = text if len(text) <= 24 else text[:23] + "…"
        app.set_status(Text(f"not typed: {shown!r} - this row is a group's title, not a cell; "
                            "select a cell to type its value", style="yellow"))

    async def _filter_key(self, event: events.Key) -> None:
        app = self.app
        field = app.filter_field
        if event.key in FILTER:                  # to the cells, or clear the filter
            await app.run_action(FILTER[event.key])
        else:
            if event.is_printable and event.character is not None:
                type_into(field, event.character)
            else:
                await app._check_bindings(event.key)
            app.grid.set_filter(field.value)   # now, so that the keys after it see the filtered grid

    def route_paste(self, text: str) -> None:
        app = self.app
        line = text.splitlines()[0] if text else ""
        if app.editor.editing:
            focus_now(app, app.editor.input)
            app.editor.type_text(line)
            self.completion.offer()
        elif app.focused is app.filter_field:
            type_into(app.filter_field, line)
            app.grid.set_filter(app.filter_field.value)
        elif app.grid.current_key is not None and line:
            app.start_edit(app.grid.current_key, line)
        elif line:
            self._refuse_typing(line)

    # the actions of the routed keys (keytable.py) -----------------------------------------
    def open_row(self) -> None:
        """Enter on the grid: a cell opens in the editor, a group's row folds or unfolds."""
        app = self.app
        cell = app.grid.current_key
        if cell is None:
            app.grid.action_toggle_section()
        else:
            app.start_edit(cell)

    def fold_row(self) -> None:
        """Space on the grid: a group's row folds or unfolds; on a cell it does nothing
        (a space typed after a value never folds the group under the cursor)."""
        app = self.app
        if app.grid.current_key is None:
            app.grid.action_toggle_section()

    def leave_filter(self) -> None:
        app = self.app
        focus_now(app, app.grid)

    # the filter ------------------------------------------------------------------------
    def filter(self) -> None:
        app = self.app
        field = app.filter_field
        field.display = True
        focus_now(app, field)

    def escape(self) -> None:
        app = self.app
        field = app.filter_field
        if field.display:
            with field.prevent(Input.Changed):
                field.value = ""
            field.display = False
            app.grid.set_filter("")
        focus_now(app, app.grid)

    def input_changed(self, event: Input.Changed) -> None:
        """The filter field changed other than by a routed key (the mouse, a paste into
        it). Its Changed messages come after the keys queued with them, so one about an
        older text (`s` of `/skew` typed in a burst) is dropped: filtering by it again
        would move the cursor under the keys typed next."""
        app = self.app
        if event.input.id == "filter" and event.value == event.input.value != app.grid.filter_text:
            app.grid.set_filter(event.value)

