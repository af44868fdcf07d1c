"""Modal screens: the help screen and the questions the editor asks
(unsaved edits on quit or open, a file changed on disk)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

INTRO = """\
A sheet is a spreadsheet whose cells have names. Change an input or a formula
and every cell computed from it updates; each value that moved shows its old
value and the change until the next edit."""

KEYS = [
    ("↑ ↓ PgUp PgDn", "move between cells"),
    ("Enter, or type", "edit the cell: its value or formula as written (a paste too)"),
    ("Enter / Esc", "in the editor: commit / cancel; Ctrl+Z undoes typing"),
    ("Enter, Space", "on a group: fold or unfold it (imports start folded)"),
    ("/", "filter cells by name, formula or value (↑ ↓ step through them; Esc clears)"),
    ("Ctrl+C", "copy the cell's value (the palette also copies its formula)"),
    ("Ctrl+N / Ctrl+D / Del", "add a cell after this one / duplicate it / delete it"),
    ("Ctrl+R / Ctrl+E", "rename (every reference follows) / unit, digits, doc, source"),
    ("Ctrl+Z / Ctrl+Y", "undo / redo an edit"),
    ("Ctrl+S", "save; comments and layout are kept"),
    ("F2", "inspector: doc, source, unit, what the cell uses and what uses it"),
    ("F3", "sweep view: a sweep of the sheet, or an axis over a cell"),
    ("F4", "diagnostics: every problem; choose one to jump to its cell"),
    ("F5", "diff: the unsaved sheet against the saved file or git HEAD"),
    ("Ctrl+P", "command palette: open a sheet, run a sweep, go to a cell, save"),
    ("?", "this help"),
    ("Ctrl+Q", "quit (asks when there are unsaved edits)"),
]

OUTRO = """\
Formulas start with '=' (= weights / cards -> GB); inputs are numbers or
quantities (80 GB, 8192 token). An edit that does not check is not applied:
its diagnostic is shown under the editor and the values stay as they were.
Editing a cell of an imported sheet records a `use: … set:` override in this
sheet; the imported file is never changed. With random draws (uniform, normal,
…) a cell's value has every draw at its mean; beside it, its sampled mean and
p5 … p95, and in the inspector a histogram and the draws that drive it."""


def help_text() -> Text:
    text = Text("supersheet edit\n\n", style="bold")
    text.append(INTRO + "\n\n")
    for keys, action in KEYS:
        text.append(f"  {keys:<17}", style="bold cyan")
        text.append(action + "\n")
    text.append("\n" + OUTRO + "\n\n")
    text.append("Esc closes this help", style="dim")
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text(), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str]):
    """A question with a few answers; dismisses with the chosen answer's id
    (Escape answers "cancel"). The first answer has the focus: put the one
    that loses nothing first."""

    BINDINGS = [Binding("escape", "choose('cancel')", "Cancel"),
                Binding("down", "app.focus_next", "Next answer", show=False),
                Binding("up", "app.focus_previous", "Previous answer", show=False)]

    def __init__(self, title: str, message: str, choices: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            with Vertical(id="dialog-buttons"):   # one answer a line: answers are sentences
                for i, (answer, label) in enumerate(self.choices):
                    yield Button(label, id=f"answer-{answer}", variant="primary" if i == 0 else "default",
                                 compact=True)

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "answer-cancel").removeprefix("answer-"))

    def action_choose(self, answer: str) -> None:
        self.dismiss(answer)


class PromptScreen(ModalScreen[str | None]):
    """One line to type (a new cell, a name); Enter answers it, Escape answers None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, message: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            yield Static(self.message, id="dialog-message")
            yield Input(self.value, id="prompt-input", select_on_focus=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


PROPERTY_HINTS = {
    "unit": "display unit (a formula's `-> unit`); empty: as computed",
    "digits": "significant digits shown, 1 to 17; empty: 4",
    "doc": "what the cell means, one line",
    "source": "where the number comes from",
}


class PropertiesScreen(ModalScreen["dict[str, str] | None"]):
    """A cell's unit, digits, doc and source, one field each (↑ ↓ or Tab move
    between them); Enter answers every field at once, Escape answers None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"),
                Binding("down", "app.focus_next", "Next field", show=False),
                Binding("up", "app.focus_previous", "Previous field", show=False)]

    def __init__(self, key: str, values: dict[str, str]) -> None:
        super().__init__()
        self.key = key
        self.values = values

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Properties of {self.key}", id="dialog-title")
            yield Static("Enter applies them (one undo step; only their lines change on save), Esc cancels.\n"
                         "An empty field removes the key.", id="dialog-message")
            for prop, value in self.values.items():
                with Horizontal(classes="property"):
                    yield Label(prop, classes="property-name")
                    yield Input(value, id=f"property-{prop}", placeholder=PROPERTY_HINTS.get(prop, ""),
                                select_on_focus=False, compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss({field.id.removeprefix("property-"): field.value for field in self.query(Input) if field.id})

    def action_cancel(self) -> None:
        self.dismiss(None)
