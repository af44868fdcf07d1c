"""Every diagnostic of the sheet in one list; choosing one goes where it is:
its cell, an import's group row, a sweep, or its file and line (shown in the
inspector). Never nowhere."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from supersheet.editor.document import Document, Place
from supersheet.editor.problems import ERROR_VALUE, FAILED_CHECK
from supersheet.editor.verdicts import Verdict
from supersheet.errors import Diagnostic

from .messages import PlaceMessage

NAMED = (ERROR_VALUE, FAILED_CHECK)     # problems whose message names their cell (E-EXPECT starts with it)


class DiagnosticsPanel(OptionList):
    class Jump(PlaceMessage):
        """A diagnostic was chosen: go where it is."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document: Document | None = None
        self.targets: dict[str, str] = {}                          # option id -> the cell it is about
        self.chosen: dict[str, tuple[Diagnostic, str | None]] = {}  # option id -> the diagnostic, its cell
        self._shown: tuple | None = None
        self.verdicts: list[Verdict] = []

    def load(self, document: Document, verdicts: list[Verdict] | None = None) -> int:
        """Show the document's diagnostics and the verdicts found off the UI thread
        (the expectations of sweeps, solves and choices, and those over the samples;
        None: the last ones given); returns how many there are. The list is rebuilt
        only when they changed: rebuilding it lays out the screen again, which
        would delay the new values of an edit by a frame."""
        if verdicts is not None:
            self.verdicts = verdicts
        self.document = document
        diagnostics = document.problems
        keys = [document.diagnostic_cell(d) for d in diagnostics] + [v.key for v in self.verdicts]
        stale = [False] * len(diagnostics) + [v.stale for v in self.verdicts]
        diagnostics = diagnostics + [v.diagnostic for v in self.verdicts]
        shown = tuple((d.code, d.message, d.hint, d.span, old, key) for d, old, key in zip(diagnostics, stale, keys))
        if shown == self._shown:
            return len(diagnostics)
        self._shown = shown
        self.clear_options()
        self.targets, self.chosen = {}, {}
        self.border_title = f"diagnostics ({len(diagnostics)})"
        options = []
        for i, (d, row) in enumerate(zip(diagnostics, shown)):
            key = row[-1]
            where = f"{d.span.line}:{d.span.col}" if d.span else "-"
            text = Text(f"{d.code:<8} ", style="dim" if row[-2] else "bold red")
            text.append(f"{where:<7} ", style="dim")
            if row[-2]:      # found before the last edit, being checked again: not a current verdict
                text.append("… checking again: ", style="italic")
            if key and not d.message.startswith(f"{key}:") and d.code not in NAMED:   # these name their cell
                text.append(f"{key}: ", style="bold")
            text.append(d.message)
            if d.hint:
                text.append(f"  ({d.hint})", style="cyan")
            if row[-2]:
                text.stylize("dim")
            option_id = f"d{i}"
            if key:
                self.targets[option_id] = key
            self.chosen[option_id] = (d, key)
            options.append(Option(text, id=option_id))
        if not options:
            options.append(Option(Text("no problems", style="green"), disabled=True))
        self.add_options(options)
        return len(diagnostics)

    def problems(self) -> list[tuple[Diagnostic, str | None]]:
        """What the list shows, in its order: each problem and the cell it is about."""
        return [self.chosen[option_id] for option_id in sorted(self.chosen, key=lambda i: int(i[1:]))]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        place = self.place_of(event.option.id)
        if place is not None:
            self.post_message(self.Jump(place))

    def place_at_cursor(self) -> Place | None:
        """Where the highlighted diagnostic is (None: no row, or "no problems")."""
        if self.highlighted is None:
            return None
        return self.place_of(self.get_option_at_index(self.highlighted).id)

    def place_of(self, option_id: str | None) -> Place | None:
        target = self.chosen.get(option_id or "")
        if target is None or self.document is None:
            return None
        diagnostic, key = target
        return self.document.place_of(diagnostic, key)
