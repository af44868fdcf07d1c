"""The editor's panels around the grid: the inspector, the diagnostics, the
sweep view and the diff view, and the work done off the UI thread for them
(comparing with the saved file or git HEAD, sampling random draws). A mixin
of the app (tui/app.py)."""
from __future__ import annotations

import threading

from rich.text import Text

from supersheet.editor.baselines import HEAD, SAVED, Comparison
from supersheet.editor.document import Place
from supersheet.editor.places import change_place
from supersheet.editor.sample import Samples
from supersheet.editor.verdicts import Verdict, block_verdicts, by_cell, has_block_expectations

from .widgets.diagnostics import DiagnosticsPanel
from .widgets.diff import DiffView
from .widgets.grid import SheetGrid
from .widgets.inspector import Inspector
from .widgets.sweep import ADHOC, SweepView


class PanelActions:
    """Mixed into SupersheetApp."""

    def on_sheet_grid_cell_chosen(self, event: SheetGrid.CellChosen) -> None:
        # the cursor's cell now: keys handled since the message was posted may have
        # moved it on, or deleted or renamed the cell it names
        self.show_selected(self.grid.current_key)

    def toggle(self, panel, show) -> None:
        """Hide a shown panel (the grid takes the focus back), or show it and call `show`.
        The focus moves before the next key is looked at: F4 and ↓ Enter typed in one
        burst choose a diagnostic, they do not move the grid's cursor and edit a cell."""
        if panel.display:
            panel.display = False
            self._focus_now(self.grid)
        else:
            panel.display = True
            show()

    def action_toggle_inspector(self) -> None:
        self.toggle(self.inspector, self.show_inspector)

    def show_inspector(self) -> None:
        if self.document is not None:
            self.inspector.show_cell(self.document, self.grid.current_key, self.samples)

    def action_toggle_diagnostics(self) -> None:
        self.toggle(self.diagnostics_panel, lambda: self._focus_now(self.diagnostics_panel))

    def action_next_problem(self) -> None:
        self.step_problem(1)

    def action_previous_problem(self) -> None:
        self.step_problem(-1)

    def step_problem(self, step: int) -> None:
        """F8 / Shift+F8: go to the next (previous) of the problems F4 lists, in its
        order, round; the status line says which of how many, and what it is. F4's
        list, when open, highlights it. The grid keeps the focus."""
        document = self.document
        if document is None:
            return
        problems = self.diagnostics_panel.problems()
        if not problems:
            self.set_status(Text("no problems", style="green"))
            return
        self._problem_at = (self._problem_at + step) % len(problems) if 0 <= self._problem_at < len(problems) \
            else (0 if step > 0 else len(problems) - 1)
        diagnostic, key = problems[self._problem_at]
        if self.diagnostics_panel.display:
            self.diagnostics_panel.highlighted = self._problem_at
        place = document.place_of(diagnostic, key)
        self.go_to_place(place)
        said = Text(f"problem {self._problem_at + 1}/{len(problems)}: ", style="bold")
        said.append(f"{diagnostic.code} ", style="red")
        said.append(diagnostic.message + (f" ({diagnostic.hint})" if diagnostic.hint else ""))
        said.append(f" → {place.title}", style="dim")
        self.set_status(said)

    # (named handlers: `@on` collects handlers of Textual classes only, not of a mixin)
    def on_inspector_jump(self, event: Inspector.Jump) -> None:
        self.jump(event.key)

    def on_diagnostics_panel_jump(self, event: DiagnosticsPanel.Jump) -> None:
        self.go_to_place(event.place)

    def on_diff_view_chosen(self, event: DiffView.Chosen) -> None:
        document = self.document
        if document is None:
            return
        change = event.change
        self.go_to_place(change_place(event.attr, change.name, change.old, change.new, event.label,
                                      document.has_cell, self.grid.has_section))

    def action_choose_place(self) -> None:
        """Enter on the diagnostics list or the diff table: go where its row is."""
        if self.focused is self.diagnostics_panel:
            place = self.diagnostics_panel.place_at_cursor()
            if place is not None:
                self.go_to_place(place)
        else:
            chosen = self.diff_view.chosen_at_cursor()
            if chosen is not None:
                self.on_diff_view_chosen(chosen)

    def jump(self, key: str) -> None:
        if self.document is not None and self.document.has_cell(key):
            self.go_to(key)

    def go_to_place(self, place: Place) -> None:
        """Go where a diagnostic or a diff row is: its cell or group row in the
        grid, its sweep in the sweep view, or else its lines in the inspector;
        the status line says where, so choosing a row never does nothing."""
        document = self.document
        if document is None:
            return
        if place.cell is not None and document.has_cell(place.cell):
            self.go_to(place.cell)
        elif place.section is not None and self.grid.has_section(place.section):
            self.grid.go_to_section(place.section)
            self._focus_now(self.grid)
            self.show_selected(None)
        elif place.sweep is not None and place.sweep in document.sweep_names():
            self.show_sweep(name=place.sweep)
        else:
            self.inspector.display = True
            self.inspector.show_place(place)
        self.set_status(Text(f"→ {place.title}", style="bold"))

    def go_to(self, key: str) -> None:
        self.grid.go_to(key)
        self._focus_now(self.grid)
        self.show_selected(key)

    def action_toggle_sweep(self) -> None:
        self.toggle(self.sweep, self.show_sweep)

    def show_sweep(self, name: str | None = None, axis: str | None = None) -> None:
        document = self.document
        if document is None:
            return
        sweep = self.sweep
        if name is None and axis is None and sweep.choice in (None, ADHOC) and not sweep.axis_text \
                and not document.sweep_names():
            key = self.grid.current_key or next(iter(document.keys()), None)
            axis = document.suggest_axis(key) if key else None
        sweep.configure(document, sweep=name, axis=axis)
        sweep.display = True
        self.rerun_sweep()

    def open_sweep(self, name: str) -> None:
        self.show_sweep(name=name)

    def action_adhoc_sweep(self) -> None:
        document = self.document
        key = self.grid.current_key
        if document is None or key is None:
            self.notify("select a cell first", severity="warning")
            return
        self.show_sweep(axis=document.suggest_axis(key))

    def on_sweep_view_rerun_requested(self, event: SweepView.RerunRequested) -> None:
        self.rerun_sweep()

    def rerun_sweep(self) -> None:
        """Run the sweep view's sweep on the current values, off the UI thread; its
        table is marked stale until the new rows arrive."""
        document = self.document
        if document is None:
            return
        sweep = self.sweep
        if sweep.choice == ADHOC and not sweep.axis_text and self.grid.current_key:
            # an ad hoc sweep starts around the selected cell
            sweep.configure(document, axis=document.suggest_axis(self.grid.current_key))
        sweeper = sweep.request(document)
        if sweeper is None:
            return
        sweep.pending()
        self.in_background("sweep", sweeper, sweep.show)

    # the diff against the saved file or git HEAD ---------------------------------------
    def action_toggle_diff(self) -> None:
        self.toggle(self.diff_view, self.refresh_diff)

    def show_diff(self, against: str) -> None:
        self.diff_view.choose(against)
        self.diff_view.display = True
        self.refresh_diff()

    def action_diff_saved(self) -> None:
        self.show_diff(SAVED)

    def action_diff_head(self) -> None:
        self.show_diff(HEAD)

    def on_diff_view_against_changed(self, event: DiffView.AgainstChanged) -> None:
        self.refresh_diff()

    def refresh_diff(self) -> None:
        """Compare the unsaved text with the chosen baseline, off the UI thread."""
        document, view = self.document, self.diff_view
        if document is None or not view.display:
            return
        path, text, against = document.path, document.text(), view.against
        imported = document.shared.texts()     # imported files edited here (shared instances), unsaved too

        def compare() -> Comparison:
            try:
                return self.baselines.compare(path, text, against, imported)
            except Exception as e:  # noqa: BLE001 - a failed comparison is shown, never fatal to the editor
                return Comparison(against, against, None, f"cannot compare: {type(e).__name__}: {e}")
        view.pending()
        self.in_background("diff", compare, view.show)

    # samples of the random draws ---------------------------------------------------------
    def resample(self) -> None:
        """Sample the sheet's random draws (after opening and after each edit) in the
        editor's resample process (editor/resampler.py), waited for off the UI thread;
        the grid's ranges are dimmed until the new ones arrive."""
        document = self.document
        if document is None:
            return
        if not document.has_draws:
            if self.samples is not None or self.samples_stale:
                self.show_samples(None)
            return
        self.grid.set_samples(self.samples, pending=True)
        sampler = document.sampler(self.resampler)

        def sample() -> Samples | None:
            try:
                return sampler()
            except Exception as e:  # noqa: BLE001 - a sheet that cannot be sampled keeps its exact values
                return Samples(None, f"cannot sample: {type(e).__name__}: {e}")
        self.in_background("samples", sample, self.show_samples)

    def show_samples(self, samples: Samples | None) -> None:
        document = self.document
        self.samples = samples
        self.samples_stale = False
        self.grid.set_samples(samples)
        if document is not None and self.inspector.display:
            self.inspector.show_samples(document, self.grid.current_key, samples)
        if samples is not None and samples.error:
            self.set_status(Text(f"samples: {samples.error}", style="yellow"))
        elif samples is not None and samples.note and samples.note != self.sampling_note:
            self.set_status(Text(f"samples: {samples.note}", style="yellow"))   # said once
        self.sampling_note = samples.note if samples is not None and samples.note else self.sampling_note
        self.show_verdicts()

    def on_unmount(self) -> None:
        """The app exits (or failed): its resample process stops with it."""
        self.resampler.close()

    # expectations that only running the blocks (or sampling) can check ---------------------
    def recheck_blocks(self) -> None:
        """Check the expectations of the sheet's sweeps, solves and choices on the
        unsaved text (after opening and after each edit), off the UI thread."""
        document = self.document
        if document is None:
            return
        if not has_block_expectations(document.model):
            if self.block_verdicts or self.blocks_stale:
                self.show_block_verdicts([])
            return
        path, text, imported = document.path, document.text(), document.shared.texts()
        self.in_background("blocks", lambda: block_verdicts(path, text, imported), self.show_block_verdicts)

    def show_block_verdicts(self, verdicts: list[Verdict]) -> None:
        self.block_verdicts = verdicts
        self.blocks_stale = False
        self.show_verdicts()

    def verdicts_outdated(self) -> None:
        """An edit changed the inputs: what the blocks and the samples found before it
        is shown as stale (dimmed, `…`) until they are checked again, never as current."""
        self.blocks_stale = self.samples_stale = True
        if self.verdicts:
            self.show_verdicts()

    @property
    def verdicts(self) -> list[Verdict]:
        """What fails in the sweeps, solves and choices, and over the samples
        (`stale` while they are checked again after an edit)."""
        blocks = [v.outdated() for v in self.block_verdicts] if self.blocks_stale else self.block_verdicts
        sampled = self.samples.verdicts if self.samples is not None else []
        return blocks + ([v.outdated() for v in sampled] if self.samples_stale else sampled)

    def show_verdicts(self) -> None:
        """Mark the cells of the verdicts in the grid, say them in the inspector, list them as diagnostics."""
        document = self.document
        if document is None:
            return
        verdicts = self.verdicts
        cells = by_cell(verdicts)
        self.grid.set_verdicts(cells)
        self.inspector.verdicts = cells
        if self.inspector.display:
            self.show_inspector()
        self.load_problems(document, verdicts)

    def in_background(self, group: str, compute, show) -> None:
        """Run `compute` in a thread, then `show` its result on the UI thread
        unless a newer run of the same group started meanwhile. Runs of a group
        take turns, and one that is already stale when its turn comes is skipped
        (quick edits do not pile up work)."""
        generation = self._generations[group] = self._generations.get(group, 0) + 1
        lock = self._locks.setdefault(group, threading.Lock())

        def current() -> bool:
            return self._generations.get(group) == generation

        def run() -> None:
            with lock:
                if not current():
                    return
                result = compute()

            def deliver() -> None:
                if current():
                    show(result)
            try:
                self.call_from_thread(deliver)
            except RuntimeError:   # the app has exited meanwhile
                pass
        self.run_worker(run, thread=True, group=group, exit_on_error=False)
