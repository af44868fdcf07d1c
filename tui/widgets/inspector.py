"""The inspector: `supersheet explain`, live, for the selected cell.

Doc, source, unit, formula and value; for a cell that depends on random
draws, its samples (a histogram, and the draws that drive it); then the cells
it uses (precedents) and the cells that use it (dependents), each with its
value; choosing one jumps the grid to it.
"""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from supersheet.editor.document import Document, Place
from supersheet.editor.sample import Samples
from supersheet.editor.verdicts import Verdict
from supersheet.units import describe

from .messages import CellMessage
from .render import diagnostic_text, value_text
from .samples import samples_text

HISTOGRAM_WIDTH = 40


class Inspector(Vertical):
    class Jump(CellMessage):
        """A precedent or dependent was chosen: go to it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: str | None = None
        self.verdicts: dict[str, list[Verdict]] = {}   # by cell: what fails in sweeps, solves, samples
        self.border_title = "inspector"

    def compose(self) -> ComposeResult:
        yield Static("", id="inspector-body")
        yield Static("", id="inspector-samples")
        yield OptionList(id="inspector-links")

    def show_cell(self, document: Document, key: str | None, samples: Samples | None = None) -> None:
        self.key = key
        body = self.query_one("#inspector-body", Static)
        links = self.query_one("#inspector-links", OptionList)
        links.clear_options()
        if key is None or not document.has_cell(key):
            body.update(Text("select a cell", style="dim"))
            self.show_samples(document, None, None)
            return
        body.update(self._describe(document, key))
        self.show_samples(document, key, samples)
        options: list[Option] = []
        precedents, dependents = document.precedents(key), document.dependents(key)
        options.append(Option(Text(f"uses ({len(precedents)})", style="bold"), disabled=True))
        options.extend(self._link(document, k) for k in precedents)
        options.append(Option(Text(f"used by ({len(dependents)})", style="bold"), disabled=True))
        options.extend(self._link(document, k) for k in dependents)
        links.add_options(options)

    def show_place(self, place: Place) -> None:
        """A problem that is no cell's (in a solve, a choice, a base sheet …): where it
        is and its lines, as the CLI prints it."""
        self.key = None
        self.query_one("#inspector-links", OptionList).clear_options()
        self.query_one("#inspector-samples", Static).display = False
        text = Text(place.title + "\n", style="bold")
        if place.text:
            text.append("\n")
            text.append_text(diagnostic_text(place.text))
        self.query_one("#inspector-body", Static).update(text)

    def show_samples(self, document: Document, key: str | None, samples: Samples | None) -> None:
        """The selected cell's samples (after sampling finished, or was started again)."""
        part = self.query_one("#inspector-samples", Static)
        text = samples_text(document, key, samples, HISTOGRAM_WIDTH) if key is not None else None
        part.display = text is not None
        part.update(text or "")

    def _link(self, document: Document, key: str) -> Option:
        text = Text("  " + key + " = ")
        text.append_text(value_text(document, key))
        return Option(text, id=key)

    def _describe(self, document: Document, key: str) -> Text:
        cell = document.cell(key)
        typ = document.type_of(key)
        text = Text()
        text.append(key, style="bold")
        kind = cell.kind + (" · set by this sheet" if cell.set_by is not None else "")
        kind += " · imported" if cell.scope.prefix else ""
        shared = document.shared_instance(key) if cell.scope.prefix else []
        if shared:
            edited = document.imported_edit(key)
            kind += f" · one instance shared by {', '.join(shared)}"
            kind += f" · unsaved edit of {edited.name} (not what the file says)" if edited is not None else ""
        text.append(f"  {kind}\n", style="dim")
        text.append_text(value_text(document, key))
        if document.is_uncertain(key):
            text.append("  every random draw at its mean", style="dim")
        for outcome in document.failing().get(key, []):
            text.append(f"\n✗ expected {outcome.expectation.text}, got {outcome.actual}", style="bold red")
        for verdict in self.verdicts.get(key, []):
            if verdict.stale:
                text.append(f"\n… {verdict.summary} (found before the last edit; checking again)", style="dim")
            else:
                text.append(f"\n✗ {verdict.summary}", style="bold red")
        text.append("\n")
        spec = cell.spec
        if spec.doc:
            text.append("\n" + spec.doc.strip() + "\n", style="italic")
        rows: list[tuple[str, str]] = []
        written = document.raw_text(key)
        rows.append(("formula" if cell.kind != "input" else "written", written))
        if typ is not None:
            if typ.is_bool:
                rows.append(("type", "condition (true/false)"))
            else:
                unit = document.shown(key, document.value(key)).unit or "—"
                rows.append(("unit", f"{unit} ({describe(typ.dims)})"))
                if typ.is_array:
                    rows.append(("array", f"{typ.length} elements"))
        if spec.source:
            rows.append(("source", spec.source))
        where = (cell.set_by or spec).span
        rows.append(("defined", f"{Path(where.file).name}:{where.line}"))
        reason = document.editable(key)
        if reason:
            rows.append(("read-only", reason))
        text.append("\n")
        for label, value in rows:
            text.append(f"{label:<8} ", style="dim")
            text.append(value + "\n")
        return text

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Jump(event.option.id))
