"""The questions the editor asks: a choice between a few answers, one line to
type, a cell's properties. Their keys are handed over by the app one at a
time, in order (tui/keys.py), and each key's work is done before the next is
looked at: text typed in the burst that opens a dialog (before it is even
built) lands in its field, Enter answers at once, and the keys typed after
Enter go to what the answer leads to — never to the grid behind the dialog,
never lost while a field is not focused yet. The mouse works as usual."""
from __future__ import annotations

from typing import Any, Callable, Generic, Sequence, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from rich.text import Text
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.input import Selection
from textual.widgets.option_list import Option

from supersheet.editor.completion import Completions

from .completing import offers_text
from .widgets.editor import type_into

Answer = TypeVar("Answer")

NEXT = ("down", "tab")
PREVIOUS = ("up", "shift+tab")


class Dialog(ModalScreen[Answer], Generic[Answer]):
    """A modal question that takes its keys from the app, in order."""

    def take_key(self, event: events.Key) -> bool:
        """Do the key's work now; False leaves it to the focused widget's bindings
        (which the app then runs at once: a field's ←, →, Home, Ctrl+U …)."""
        raise NotImplementedError

    def take_paste(self, text: str) -> None:
        """A paste: its first line, as typed."""


class ChoiceScreen(Dialog[str]):
    """A question with a few answers; dismisses with the chosen answer's id
    (Escape answers "cancel"). The first answer has the focus: put the one
    that loses nothing first. ↑ ↓ (Tab) move between answers, Enter or Space
    chooses; any other key does nothing."""

    BINDINGS = [Binding("escape", "choose('cancel')", "Cancel"),
                Binding("down", "app.focus_next", "Next answer", show=False),
                Binding("up", "app.focus_previous", "Previous answer", show=False)]

    def __init__(self, title: str, message: str | Text, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = choices
        self.current = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            with Vertical(id="dialog-buttons"):   # one answer a line: answers are sentences
                for i, (answer, label) in enumerate(self.choices):
                    yield Button(label, id=f"answer-{answer}", variant="primary" if i == 0 else "default",
                                 compact=True)

    def on_mount(self) -> None:
        self.query(Button)[self.current].focus()

    def take_key(self, event: events.Key) -> bool:
        buttons = list(self.query(Button))
        if self.focused in buttons:
            self.current = buttons.index(self.focused)
        if event.key in ("enter", "space"):
            self.dismiss(self.choices[self.current][0])
        elif event.key == "escape":
            self.dismiss("cancel")
        elif event.key in NEXT + PREVIOUS:
            self.current = (self.current + (1 if event.key in NEXT else -1)) % len(self.choices)
            if buttons:
                self.set_focus(buttons[self.current])
        return True     # any other key does nothing: never the grid's

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "answer-cancel").removeprefix("answer-"))

    def action_choose(self, answer: str) -> None:
        self.dismiss(answer)


class FieldsDialog(Dialog[Answer]):
    """Text fields (↑ ↓ or Tab between them); Enter answers them all, Escape None.
    Until the fields are built, typed text is kept in `texts` and they start with it."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, texts: list[str], selected: bool = False) -> None:
        super().__init__()
        self.texts = texts
        self.cursors = [len(text) for text in texts]     # where typing goes until the fields exist
        # `selected`: each field's text starts selected, so that what is typed first replaces
        # it (a name to rename), as in the field itself once it exists
        self.selected = [selected and bool(text) for text in texts]
        self.current = 0

    def answer(self, texts: list[str]) -> Answer:
        raise NotImplementedError

    def fields(self) -> list[Input]:
        return list(self.query(Input))

    def on_mount(self) -> None:
        fields = self.fields()
        for field, cursor, selected in zip(fields, self.cursors, self.selected):
            field.cursor_position = cursor
            if selected:
                field.selection = Selection(0, len(field.value))
        fields[self.current].focus()

    def take_key(self, event: events.Key) -> bool:
        fields = self.fields()
        if self.focused in fields:
            self.current = fields.index(self.focused)
        key = event.key
        if key == "enter":
            self.dismiss(self.answer([f.value for f in fields] if fields else self.texts))
        elif key == "escape":
            self.dismiss(None)
        elif key in NEXT + PREVIOUS:
            self.current = (self.current + (1 if key in NEXT else -1)) % len(self.texts)
            if fields:
                self.set_focus(fields[self.current])
        elif event.is_printable and event.character:
            self.take_paste(event.character)
        elif not fields:
            self._edit_text(key)
        else:   # the field's own keys (←, →, Home, Delete, Ctrl+U …): its bindings, run by the app now
            self.set_focus(fields[self.current])
            return False
        return True

    def take_paste(self, text: str) -> None:
        line = text.splitlines()[0] if text else ""
        fields = self.fields()
        if fields:
            type_into(fields[self.current], line)
        else:
            self._edit_text("", line)

    def _edit_text(self, key: str, typed: str = "") -> None:
        """A key typed before the fields exist, on the text they will start with."""
        text, at = self.texts[self.current], self.cursors[self.current]
        if self.selected[self.current]:      # the whole text is selected
            self.selected[self.current] = False
            if typed or key in ("backspace", "delete"):
                text, at = "", 0              # replaced by what is typed, or deleted
            elif key in ("left", "home"):
                at = 0                        # (as the field does: the cursor goes to that end)
            if not typed:
                self.texts[self.current], self.cursors[self.current] = text, at
                return
        if typed:
            text, at = text[:at] + typed + text[at:], at + len(typed)
        elif key == "backspace" and at:
            text, at = text[:at - 1] + text[at:], at - 1
        elif key == "delete":
            text = text[:at] + text[at + 1:]
        else:
            at = {"left": max(at - 1, 0), "right": min(at + 1, len(text)), "home": 0, "end": len(text)}.get(key, at)
        self.texts[self.current], self.cursors[self.current] = text, at

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self.answer([f.value for f in self.fields()]))

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(FieldsDialog["str | None"]):
    """One line to type (a new cell, a name); Enter answers it, Escape answers None.
    With `complete` (the offers for the word at a cursor in the line), the offers are shown
    under the field as it changes and Tab takes the first, as in the cell editor."""

    def __init__(self, title: str, message: str | Text, value: str = "", selected: bool = False,
                 complete: Callable[[str, int], Completions | None] | None = None) -> None:
        super().__init__([value], selected)
        self.title_text = title
        self.message = message
        self.complete = complete

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            yield Input(self.texts[0], id="prompt-input", select_on_focus=False)
            if self.complete is not None:
                yield Static("", id="prompt-offers")

    def answer(self, texts: list[str]) -> str:
        return texts[0]

    def take_key(self, event: events.Key) -> bool:
        fields = self.fields()
        if event.key != "tab" or self.complete is None or not fields:
            return super().take_key(event)
        # Tab: the first offer for the word at the cursor, found now (in a burst of keys the
        # offers shown may be of an older text); with none, Tab does nothing
        field = fields[0]
        found = self.complete(field.value, field.cursor_position)
        if found is not None:
            field.value, field.cursor_position = found.accept(field.value, field.cursor_position)
            self._show_offers(field)
        return True

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show_offers(event.input)

    def _show_offers(self, field: Input) -> None:
        if self.complete is None:
            return
        found = self.complete(field.value, field.cursor_position)
        self.query_one("#prompt-offers", Static).update(offers_text(found) if found is not None else "")


PROPERTY_HINTS = {
    "unit": "display unit (a formula's `-> unit`); empty: as computed",
    "digits": "significant digits shown, 1 to 17; empty: 4",
    "doc": "what the cell means, one line",
    "source": "where the number comes from",
}


def property_fields(names: list[str], texts: list[str]) -> ComposeResult:
    """One labelled field a property (`#property-unit` …), with its hint as placeholder."""
    for name, text in zip(names, texts):
        with Horizontal(classes="property"):
            yield Label(name, classes="property-name")
            yield Input(text, id=f"property-{name}", placeholder=PROPERTY_HINTS.get(name, ""),
                        select_on_focus=False, compact=True)


class PropertiesScreen(FieldsDialog["dict[str, str] | None"]):
    """A cell's unit, digits, doc and source, one field each; Enter answers
    every field at once (a dict), Escape answers None."""

    def __init__(self, key: str, values: dict[str, str]) -> None:
        super().__init__(list(values.values()))
        self.key = key
        self.names = list(values)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Properties of {self.key}", id="dialog-title")
            yield Static("Enter applies them (one undo step; only their lines change on save), Esc cancels.\n"
                         "An empty field removes the key.", id="dialog-message")
            yield from property_fields(self.names, self.texts)

    def answer(self, texts: list[str]) -> dict[str, Any]:
        return dict(zip(self.names, texts))


class ImportedPropertiesScreen(FieldsDialog["tuple[str, dict[str, str]] | None"]):
    """Ctrl+E on a cell written in another sheet, with what this sheet may change of it.
    Imported (`use:`): its unit, digits, doc and source as written there, read-only, and
    its value, which this sheet may override (`set:`). Inherited (`extends`): the value
    and all four, editable, since a variant's cell replaces its base's whole. A button
    opens that sheet at the cell. The value field has the focus (Enter with nothing
    changed writes nothing); ↑ ↓ (Tab) go through the fields and the button.
    Answers ("set", {field: text}), ("open", {}), or None (Escape)."""

    def __init__(self, key: str, home: str, name: str, properties: dict[str, str], value: str, how: str,
                 inherited: bool = False) -> None:
        self.names = ["value"] + (list(properties) if inherited else [])
        super().__init__([value] + (list(properties.values()) if inherited else []))
        self.key, self.home, self.cell_name, self.how, self.inherited = key, home, name, how, inherited
        self.where = f"{home} (as {name})"
        self.properties = properties
        self.on_open = False          # the button has the focus, not a field

    def compose(self) -> ComposeResult:
        # it scrolls: a long doc or source must not push the fields or the button off a small screen
        with VerticalScroll(id="dialog", classes="scrolling"):
            yield Label(f"Properties of {self.key}", id="dialog-title")
            if self.inherited:
                yield Static(f"Inherited from {self.where} through `extends`. Enter writes it into this "
                             f"sheet as {self.how}, with these (one undo step; the base file is not "
                             "written); unchanged, nothing is written. Esc cancels.", id="dialog-message")
            else:
                yield Static(f"Written in {self.where}; read-only here:", id="dialog-message")
                for prop, value in self.properties.items():
                    with Horizontal(classes="property read-only"):
                        yield Label(prop, classes="property-name")
                        yield Static(value or "(none)", classes="property-value")
                yield Static(f"This sheet can override its value, as {self.how}: Enter applies it (one undo "
                             "step, written in this file only); Esc cancels.", classes="dialog-note")
            yield from property_fields(self.names, self.texts)
            with Vertical(id="dialog-buttons"):
                rest = "change it there" if self.inherited else "change the rest"
                yield Button(f"Open {self.home} at {self.cell_name} to {rest}", id="answer-open", compact=True)

    def answer(self, texts: list[str]) -> tuple[str, dict[str, str]]:
        return ("set", dict(zip(self.names, texts)))

    def take_key(self, event: events.Key) -> bool:
        fields = self.fields()
        if self.focused is not None:
            self.on_open = isinstance(self.focused, Button)
            if self.focused in fields:
                self.current = fields.index(self.focused)
        key, last = event.key, len(self.texts) - 1
        if key in NEXT + PREVIOUS:      # through the fields, then the button, and round
            forward = key in NEXT
            if self.on_open:
                self.on_open, self.current = False, 0 if forward else last
            elif self.current == (last if forward else 0):
                self.on_open = True
            else:
                self.current += 1 if forward else -1
            self._focus_current()
            return True
        if not self.on_open:
            return super().take_key(event)
        if key in ("enter", "space"):
            self.dismiss(("open", {}))
        elif key == "escape":
            self.dismiss(None)
        elif event.is_printable and event.character:    # typing goes to the field it left
            self.on_open = False
            self._focus_current()
            self.take_paste(event.character)
        return True

    def _focus_current(self) -> None:
        targets = list(self.query(Button)) if self.on_open else self.fields()[self.current:self.current + 1]
        if targets:
            self.set_focus(targets[0])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(("open", {}))


class PickerScreen(Dialog["str | None"]):
    """A list to choose one row from (↑ ↓ PgUp PgDn Home End, Enter chooses, Esc answers
    None): answers the chosen row's id. Rows are (id, text); a row with id None is a
    heading, never chosen. With `typing`, typed text filters the rows (those whose text
    holds every word typed; Backspace takes a character back). `keys` maps other keys to
    an answer about the highlighted row: {"delete": "remove:"} answers "remove:ID"."""

    def __init__(self, title: str, message: str | Text, rows: Sequence[tuple[str | None, Text | str]],
                 typing: bool = False, keys: dict[str, str] | None = None) -> None:
        super().__init__()
        self.title_text, self.message, self.rows = title, message, rows
        self.typing, self.keys = typing, keys or {}
        self.typed = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="picker"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            if self.typing:
                yield Static(self._typed_line(), id="picker-typed")
            yield OptionList(*self._options(), id="picker-list")

    def _options(self) -> list[Option]:
        words = self.typed.lower().split()
        return [Option(text, id=row_id, disabled=row_id is None) for row_id, text in self.rows
                if not words or all(w in (text.plain if isinstance(text, Text) else text).lower() for w in words)]

    def _typed_line(self) -> Text:
        if not self.typed:
            return Text("type to filter", style="dim")
        return Text("filter: ", style="dim") + Text(self.typed, style="bold") + Text("▏")

    def _filter(self, typed: str) -> None:
        self.typed = typed
        lists = list(self.query(OptionList))
        if lists:
            lists[0].clear_options()
            lists[0].add_options(self._options())
            lists[0].highlighted = 0 if lists[0].option_count else None
            self.query_one("#picker-typed", Static).update(self._typed_line())

    def on_mount(self) -> None:
        if self.typed:
            self._filter(self.typed)     # what was typed before the list was built
        self.query_one(OptionList).focus()

    def take_key(self, event: events.Key) -> bool:
        key = event.key
        if key == "escape":
            self.dismiss(None)
            return True
        if self.typing and (key == "backspace" or (event.is_printable and event.character)):
            self._filter(self.typed[:-1] if key == "backspace" else self.typed + (event.character or ""))
            return True
        lists = list(self.query(OptionList))
        if not lists:
            return True       # not built yet: only Esc (and typing) means anything
        options = lists[0]
        if key == "enter" or key in self.keys:
            if options.highlighted is not None:
                chosen = options.get_option_at_index(options.highlighted).id
                self.dismiss(chosen if key == "enter" else f"{self.keys[key]}{chosen}")
            return True
        action = {"up": "cursor_up", "down": "cursor_down", "pageup": "page_up", "pagedown": "page_down",
                  "home": "first", "end": "last", "tab": "cursor_down", "shift+tab": "cursor_up"}.get(key)
        if action is not None:
            getattr(options, f"action_{action}")()
        return True

    def take_paste(self, text: str) -> None:
        if self.typing:
            self._filter(self.typed + (text.splitlines()[0] if text else ""))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
