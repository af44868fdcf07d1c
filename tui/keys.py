"""Keys that never go astray: the keys of the grid, the cell editor and the
filter field are routed by the app, one at a time, in the order they were
typed. A mixin of the app (tui/app.py).

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
the same way, from the moment they are pushed.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Input

from .dialogs import Dialog
from .keytable import EDITOR_KEYS, FILTER_KEYS, GRID_KEYS, PANEL_KEYS, actions
from .widgets.editor import type_into

NOT_TYPING = set("/?")        # on the grid these are keys (filter, help), not the start of a value
TYPING_GAP = 1.0              # s: keys closer than this after text typed on a group's row are still that typing
GRID, EDITOR, FILTER, PANEL = actions(GRID_KEYS), actions(EDITOR_KEYS), actions(FILTER_KEYS), actions(PANEL_KEYS)
ENDS_TYPING = ("app.commit_edit", "app.cancel_edit")


class KeyRouting:
    """Mixed into SupersheetApp."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste, events.MouseDown)):
            self.heap.touched()
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self._regain_focus()
            if self._routes_keys():
                if isinstance(event, events.Paste):
                    self.route_paste(event.text)
                elif not await self._check_bindings(event.key, priority=True):
                    await self.route_key(event)
                return
            if isinstance(event, events.Key) and event.key in PANEL and self._in_a_panel():
                # chosen before the next key is looked at: the keys typed after it follow the focus
                await self.run_action(PANEL[event.key], self.focused)
                return
            dialog = self.screen
            if isinstance(dialog, Dialog):    # a question: its keys, in order, even before it is built
                if isinstance(event, events.Paste):
                    dialog.take_paste(event.text)
                elif not await self._check_bindings(event.key, priority=True) and not dialog.take_key(event):
                    await self._check_bindings(event.key)
                return
        await super().on_event(event)  # type: ignore[misc]

    def _regain_focus(self) -> None:
        """A key typed while the terminal said the app lost the focus (a focus report,
        `ESC [ O`: tmux sends one when a client detaches or the pane loses focus) gives
        the focus back to the widget that had it before this key is looked at. Textual
        does that too, but only after the key was passed by: it then went to the grid
        through the grid's message queue and ran after the keys typed behind it
        (`Home Down 2048 Enter` edited the row below the one meant, then moved to the
        top). With nothing to give it back to, the grid takes it."""
        if not self.app_focus:
            self.app_focus = True       # Textual's watcher gives the focus back, now
        if self.focused is None and not isinstance(self.screen, Dialog):
            try:
                grid = self.grid
            except NoMatches:   # not composed yet, or being torn down
                return
            if grid.screen is self.screen:
                self.screen.set_focus(grid)

    @property
    def filter_field(self) -> Input:
        return self.query_one("#filter", Input)

    def _routes_keys(self) -> bool:
        """The keys are ours while the main screen shows and the grid, the editor
        or the filter has the focus."""
        try:
            grid = self.grid
            ours = (grid, self.editor.input, self.filter_field)
        except NoMatches:   # not composed yet, or being torn down
            return False
        return grid.screen is self.screen and self.focused in ours

    def _in_a_panel(self) -> bool:
        """The diagnostics list or the diff table has the focus (their rows are places)."""
        focused = self.focused
        return focused is not None and (focused is self.diagnostics_panel or focused.id == "diff-table")

    def _focus_now(self, widget: Widget) -> None:
        """Move the focus before the next key is looked at (`Widget.focus` defers it)."""
        if self.focused is not widget:
            self.screen.set_focus(widget)

    async def route_key(self, event: events.Key) -> None:
        if self.editor.editing:
            await self._editor_key(event)
        elif self.focused is self.filter_field:
            await self._filter_key(event)
        else:
            await self._grid_key(event)

    async def _editor_key(self, event: events.Key) -> None:
        editor = self.editor
        self._focus_now(editor.input)
        if event.key in EDITOR:                  # commit, cancel, undo typing, complete: the key table's
            await self.run_action(EDITOR[event.key])
            return
        if event.is_printable and event.character is not None:
            editor.type_text(event.character)
        else:
            with editor.typing():
                await self._check_bindings(event.key)
        self.offer_completions()

    async def _grid_key(self, event: events.Key) -> None:
        grid = self.grid
        self._focus_now(grid)
        if self._typed_on_a_group(event):
            return
        typing = event.is_printable and event.character not in NOT_TYPING and bool(event.character)
        if event.key in GRID:                    # the grid's keys (Enter, Space, ↑ ↓ …), run now
            await self.run_action(GRID[event.key], grid)
        elif typing and grid.current_key is not None:
            self.start_edit(grid.current_key, event.character)
        elif typing:
            self._refuse_typing(event.character or "")
        else:
            await self._check_bindings(event.key)

    def _typed_on_a_group(self, event: events.Key) -> bool:
        """Whether this key belongs to text typed on a group's row (it has no value
        to edit): the rest of that text, a space too, and the Enter or Esc that ends
        it are taken here, never a fold; any other key ends it and does its own work."""
        if self._refused is None:
            return False
        refused, when = self._refused
        if time.monotonic() - when > TYPING_GAP:
            self._refused = None
            return False
        if event.is_printable and event.character:
            self._refuse_typing(refused + event.character)
            return True
        self._refused = None
        return EDITOR.get(event.key) in ENDS_TYPING     # the Enter or Esc that would have ended an edit

    def _refuse_typing(self, text: str) -> None:
        self._refused = (text, time.monotonic())
        shown = text if len(text) <= 24 else text[:23] + "…"
        self.set_status(Text(f"not typed: {shown!r} - this row is a group's title, not a cell; "
                             "select a cell to type its value", style="yellow"))

    async def _filter_key(self, event: events.Key) -> None:
        field = self.filter_field
        if event.key in FILTER:                  # to the cells, or clear the filter
            await self.run_action(FILTER[event.key])
        else:
            if event.is_printable and event.character is not None:
                type_into(field, event.character)
            else:
                await self._check_bindings(event.key)
            self.grid.set_filter(field.value)   # now, so that the keys after it see the filtered grid

    def route_paste(self, text: str) -> None:
        line = text.splitlines()[0] if text else ""
        if self.editor.editing:
            self._focus_now(self.editor.input)
            self.editor.type_text(line)
            self.offer_completions()
        elif self.focused is self.filter_field:
            type_into(self.filter_field, line)
            self.grid.set_filter(self.filter_field.value)
        elif self.grid.current_key is not None and line:
            self.start_edit(self.grid.current_key, line)
        elif line:
            self._refuse_typing(line)

    # the actions of the routed keys (keytable.py) -----------------------------------------
    def action_open_row(self) -> None:
        """Enter on the grid: a cell opens in the editor, a group's row folds or unfolds."""
        cell = self.grid.current_key
        if cell is None:
            self.grid.action_toggle_section()
        else:
            self.start_edit(cell)

    def action_fold_row(self) -> None:
        """Space on the grid: a group's row folds or unfolds; on a cell it does nothing
        (a space typed after a value never folds the group under the cursor)."""
        if self.grid.current_key is None:
            self.grid.action_toggle_section()

    def action_commit_edit(self) -> None:
        self.commit_editor()

    def action_cancel_edit(self) -> None:
        self.cancel_editor()

    def action_undo_typing(self) -> None:
        self.undo_typing()

    def action_leave_filter(self) -> None:
        self._focus_now(self.grid)

    # the filter ------------------------------------------------------------------------
    def action_filter(self) -> None:
        field = self.filter_field
        field.display = True
        self._focus_now(field)

    def action_escape(self) -> None:
        field = self.filter_field
        if field.display:
            with field.prevent(Input.Changed):
                field.value = ""
            field.display = False
            self.grid.set_filter("")
        self._focus_now(self.grid)

    def on_input_changed(self, event: Input.Changed) -> None:
        """The filter field changed other than by a routed key (the mouse, a paste into
        it). Its Changed messages come after the keys queued with them, so one about an
        older text (`s` of `/skew` typed in a burst) is dropped: filtering by it again
        would move the cursor under the keys typed next."""
        if event.input.id == "filter" and event.value == event.input.value != self.grid.filter_text:
            self.grid.set_filter(event.value)

