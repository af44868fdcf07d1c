"""The editor's panels around the grid: the inspector, the diagnostics (F4, and F8
stepping through the problems), the sweep view and the diff view (comparing with the
saved file or git HEAD, off the UI thread); going where a diagnostic's or a diff row's
place is. A controller the app holds (tui/app.py: `app.panels`); what runs in the
sweep view is sweeping.py's, the samples and the blocks' checks are sampling.py's."""
from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.widget import Widget

from supersheet.editor.baselines import Baselines, Comparison
from supersheet.editor.document import Place
from supersheet.editor.places import change_place

from .host import Editor, focus_now
from .sampling import SamplingController
from .sweeping import SweepController
from .widgets.diff import DiffView


class PanelController:
    def __init__(self, app: Editor, sampling: SamplingController, sweeping: SweepController) -> None:
        self.app = app
        self.sampling = sampling
        self.sweeping = sweeping
        self.problem_at = -1            # the last problem F8 went to
        self.baselines = Baselines()    # what the diff view compares with (the saved file, git HEAD), cached

    def toggle(self, panel: Widget, show: Callable[[], object]) -> None:
        """Hide a shown panel (the grid takes the focus back), or show it and call `show`.
        The focus moves before the next key is looked at: F4 and ↓ Enter typed in one
        burst choose a diagnostic, they do not move the grid's cursor and edit a cell."""
        if panel.display:
            panel.display = False
            focus_now(self.app, self.app.grid)
        else:
            panel.display = True
            show()

    def toggle_inspector(self) -> None:
        self.toggle(self.app.inspector, self.show_inspector)

    def show_inspector(self) -> None:
        app = self.app
        if app.document is not None:
            app.inspector.show_cell(app.document, app.grid.current_key, self.sampling.samples)

    def toggle_diagnostics(self) -> None:
        self.toggle(self.app.diagnostics_panel, lambda: focus_now(self.app, self.app.diagnostics_panel))

    def toggle_sweep(self) -> None:
        self.toggle(self.app.sweep, self.sweeping.show)

    def step_problem(self, step: int) -> None:
        """F8 / Shift+F8: go to the next (previous) of the problems F4 lists, in its
        order, round; the status line says which of how many, and what it is. F4's
        list, when open, highlights it. The grid keeps the focus."""
        app = self.app
        document = app.document
        if document is None:
            return
        problems = app.diagnostics_panel.problems()
        if not problems:
            app.set_status(Text("no problems", style="green"))
            return
        self.problem_at = (self.problem_at + step) % len(problems) if 0 <= self.problem_at < len(problems) \
            else (0 if step > 0 else len(problems) - 1)
        diagnostic, key = problems[self.problem_at]
        if app.diagnostics_panel.display:
            app.diagnostics_panel.highlighted = self.problem_at
        place = document.place_of(diagnostic, key)
        self.go_to_place(place)
        said = Text(f"problem {self.problem_at + 1}/{len(problems)}: ", style="bold")
        said.append(f"{diagnostic.code} ", style="red")
        said.append(diagnostic.message + (f" ({diagnostic.hint})" if diagnostic.hint else ""))
        said.append(f" → {place.title}", style="dim")
        app.set_status(said)

    def diff_chosen(self, event: DiffView.Chosen) -> None:
        """Enter on a row of the diff table: go where its change is."""
        app = self.app
        document = app.document
        if document is None:
            return
        change = event.change
        self.go_to_place(change_place(event.attr, change.name, change.old, change.new, event.label,
                                      document.has_cell, app.grid.has_section))

    def choose_place(self) -> None:
        """Enter on the diagnostics list or the diff table: go where its row is."""
        app = self.app
        if app.focused is app.diagnostics_panel:
            place = app.diagnostics_panel.place_at_cursor()
            if place is not None:
                self.go_to_place(place)
        else:
            chosen = app.diff_view.chosen_at_cursor()
            if chosen is not None:
                self.diff_chosen(chosen)

    def jump(self, key: str | None) -> None:
        app = self.app
        if key is not None and app.document is not None and app.document.has_cell(key):
            app.go_to(key)

    def go_to_place(self, place: Place) -> None:
        """Go where a diagnostic or a diff row is: its cell or group row in the
        grid, its sweep in the sweep view, or else its lines in the inspector;
        the status line says where, so choosing a row never does nothing."""
        app = self.app
        document = app.document
        if document is None:
            return
        if place.cell is not None and document.has_cell(place.cell):
            app.go_to(place.cell)
        elif place.section is not None and app.grid.has_section(place.section):
            app.grid.go_to_section(place.section)
            focus_now(app, app.grid)
            app.show_selected(None)
        elif place.sweep is not None and place.sweep in document.sweep_names():
            self.sweeping.show(name=place.sweep)
        else:
            app.inspector.display = True
            app.inspector.show_place(place)
        app.set_status(Text(f"→ {place.title}", style="bold"))

    # the diff against the saved file or git HEAD ---------------------------------------
    def toggle_diff(self) -> None:
        self.toggle(self.app.diff_view, self.refresh_diff)

    def show_diff(self, against: str) -> None:
        self.app.diff_view.choose(against)
        self.app.diff_view.display = True
        self.refresh_diff()

    def refresh_diff(self) -> None:
        """Compare the unsaved text with the chosen baseline, off the UI thread."""
        app = self.app
        document, view = app.document, app.diff_view
        if document is None or not view.display:
            return
        path, text, against = document.path, document.text(), view.against
        imported = document.shared.texts()     # imported files edited here (shared instances), unsaved too
        baselines = self.baselines

        def compare() -> Comparison:
            try:
                return baselines.compare(path, text, against, imported)
            except Exception as e:  # noqa: BLE001 - a failed comparison is shown, never fatal to the editor
                return Comparison(against, against, None, f"cannot compare: {type(e).__name__}: {e}")
        view.pending()
        app.background.run("diff", compare, view.show)
