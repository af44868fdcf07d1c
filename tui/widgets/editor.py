"""The cell editor: a formula bar under the grid.

It always shows the selected cell's raw text (its value or formula as
written). Enter or typing on the grid starts editing here; Enter commits (the
app applies the edit), Escape cancels. When an edit is refused, its diagnostic
is shown underneath exactly as the CLI prints it, with the offending span
marked, and the editor stays open with the text as typed. Being always on
screen, opening and closing it never changes the layout, which keeps commits
fast.

While editing, the app types into it (tui/keys.py routes the keys in order);
each change of the text is remembered, so Ctrl+Z undoes typing, not an edit.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Input, Label, Static

from ..keytable import EDITOR_KEYS
from .render import diagnostic_text


class FixedField(Input):
    """An Input whose size the CSS fixes, so that its text never lays out the screen.

    Textual's Input sets its virtual size (the width of its text) on every
    change of the text, and a widget's virtual size is a reactive that lays
    out the whole screen: 8-17 ms per key while a resample competes for the
    interpreter, most of a keystroke's echo (bench/bench_tui.py). The field's
    own size never depends on its text (width 1fr, height 1), and scrolling
    reads the virtual size directly, so repainting the field is enough."""

    virtual_size = Reactive(Size(0, 0), layout=False)

    def render_line(self, y: int) -> Strip:
        """Not editing (the field cannot take focus), show the text from its start,
        cut with … when it is wider than the field: the Input would show it from
        where the last edit's cursor left it (a committed formula's end) and cut it
        without a mark. Editing, it is the Input's own line (scrolled to the cursor)."""
        if y != 0 or self.can_focus or not self.value:
            return super().render_line(y)
        width = self.scrollable_content_region.width     # the cells on screen (the Input draws one more, clipped)
        text = self._value.copy()
        text.end = ""
        text.truncate(width, overflow="ellipsis")
        strip = Strip(self.app.console.render(text, self.app.console_options.update_width(width)))
        return strip.extend_cell_length(width).apply_style(self.rich_style)


class CellEditor(Vertical):
    BINDINGS = [key.binding() for key in EDITOR_KEYS]

    class Committed(Message):
        def __init__(self, key: str, text: str) -> None:
            super().__init__()
            self.key = key
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: str | None = None
        self.editing = False
        self._shown = ""
        self._typed: list[tuple[str, int]] = []   # the text and cursor before each change, while editing
        self._redraw_due = False        # a commit's bar is drawn in the frame after its values (close)
        self._label: Text | str | None = None      # the label to show then

    def compose(self) -> ComposeResult:
        with Horizontal(id="editor-bar"):
            yield Label("", id="editor-label")
            yield Label("│", id="editor-separator")    # the name ends here, the value begins
            yield FixedField(id="editor-input", select_on_focus=False, compact=True)
        yield Static("", id="editor-problem")

    def on_mount(self) -> None:
        self.input.can_focus = False
        self.query_one("#editor-problem").display = False

    @property
    def input(self) -> Input:
        return self.query_one("#editor-input", Input)

    def show(self, key: str | None, label: str, text: str) -> None:
        """Show the selected cell (when not editing)."""
        if self.editing:
            return
        self.key = key
        self._set_label(Text(label, style="bold"))
        field = self.input
        with self.prevent(Input.Changed):
            field.value = text
        self._shown = text

    def open(self, key: str, label: Text | str, text: str) -> None:
        """Start editing `key` with `text` in the field."""
        self.key = key
        self.editing = True
        self._set_label(label)
        self.add_class("-editing")
        field = self.input
        field.can_focus = True
        with self.prevent(Input.Changed):
            field.value = text
        field.cursor_position = len(text)
        self._typed = []
        self.screen.set_focus(field)   # now: the next key typed is the editor's, not the grid's

    # typing (the app routes the keys here, in order) ----------------------------------
    @property
    def text(self) -> str:
        return self.input.value

    @contextmanager
    def typing(self) -> Iterator[None]:
        """Remember the text before a key that may change it (for `undo_typing`)."""
        field = self.input
        before = (field.value, field.cursor_position)
        yield
        if field.value != before[0]:
            self._typed.append(before)

    def type_text(self, text: str) -> None:
        """Type `text` at the cursor (replacing a selection), as the Input would."""
        with self.typing():
            type_into(self.input, text)

    def undo_typing(self) -> bool:
        """Take back the last change of the text; False when there is none."""
        if not self._typed:
            return False
        value, cursor = self._typed.pop()
        field = self.input
        field.value = value
        field.cursor_position = cursor
        return True

    def close(self, text: str | None = None) -> None:
        """Stop editing; the field shows `text` (the cell as it now is)."""
        self.editing = False
        self._typed = []
        field = self.input
        field.can_focus = False
        if text is not None:
            with self.prevent(Input.Changed):
                field.value = text      # (a text other than the one typed is drawn at once)
            self._shown = text
        self.clear_problem()
        # the bar (restyled, its label, the field drawn from its start: render_line) is
        # drawn in the frame after the new values, with the grid's focus coming back,
        # which repaints it anyway: in the values' frame it cost about as much as they
        # did, and Textual draws again every widget in the box from the first changed
        # row down to it (and not restyled at all when the editor opened again meanwhile)
        self._redraw_due = True
        self.app.call_after_refresh(self._redraw)    # (in the app's queue, with its own: not waking the editor's)

    def _redraw(self) -> None:
        self._redraw_due = False
        if self._label is not None:
            label, self._label = self._label, None
            self._set_label(label)
        if not self.editing:
            self.remove_class("-editing")
            self.input.refresh()    # drawn from its start again (render_line), even when the text stays

    def _set_label(self, label: Text | str) -> None:
        if self._redraw_due:        # (after a commit: with the rest of the bar, in the next frame)
            self._label = label
            return
        self.query_one("#editor-label", Label).update(label, layout=False)

    def show_problem(self, rendered: str, message: str = "") -> None:
        problem = self.query_one("#editor-problem", Static)
        text = Text()
        if message:
            text.append(message, style="bold yellow")
            if rendered:
                text.append("\n")
        if rendered:
            text.append_text(diagnostic_text(rendered))
        problem.update(text)
        problem.display = True
        self.add_class("-problem")

    def clear_problem(self) -> None:
        problem = self.query_one("#editor-problem", Static)
        if problem.display:
            problem.update("")
            problem.display = False
            self.remove_class("-problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.key is not None and self.editing:
            self.post_message(self.Committed(self.key, event.value))

    def cancel(self) -> None:
        """Stop editing; the field shows the cell as it was."""
        self.close(self._shown)


def type_into(field: Input, text: str) -> None:
    """Type `text` at the cursor of `field` (replacing a selection), as the Input would."""
    selection = field.selection
    if selection.is_empty:
        field.insert_text_at_cursor(text)
    else:
        field.replace(text, *selection)
