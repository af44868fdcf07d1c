"""`supersheet edit`: the Textual app. Wiring only — the document model is
engine.edit.Document, the widgets live in tui/widgets, the look in app.tcss."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from engine.edit import Document, EditResult, ExternalChange, library_dir
from engine.editdiff import HEAD, SAVED, Baselines, Comparison
from engine.editsample import Samples, has_draws, sample_sheet

from .commands import SheetCommands
from .screens import ChoiceScreen, HelpScreen
from .widgets.diagnostics import DiagnosticsPanel
from .widgets.diff import DiffView
from .widgets.editor import CellEditor
from .widgets.footer import KeyFooter
from .widgets.grid import SheetGrid
from .widgets.inspector import Inspector
from .widgets.sweep import ADHOC, SweepView

UNSAVED = [("save", "Save"), ("discard", "Discard edits"), ("cancel", "Cancel")]


class SupersheetApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "supersheet"
    COMMANDS = App.COMMANDS | {SheetCommands}
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("ctrl+y", "redo", "Redo"),
        Binding("slash", "filter", "Filter"),
        Binding("f2", "toggle_inspector", "Inspector"),
        Binding("f3", "toggle_sweep", "Sweep"),
        Binding("f4", "toggle_diagnostics", "Diagnostics"),
        Binding("f5", "toggle_diff", "Diff"),
        Binding("f1,question_mark", "help", "Help", key_display="?"),
        Binding("escape", "escape", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, path: str | Path, *, watch_seconds: float = 1.0) -> None:
        super().__init__()
        self.path = Path(path)
        self.document: Document | None = None
        self.watch_seconds = watch_seconds
        self._warned_disk = False
        self._shown_model = None
        self.baselines = Baselines()
        self.samples: Samples | None = None
        self._generations: dict[str, int] = {}

    # layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="▦")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Input(placeholder="filter cells by name (Esc clears)", id="filter")
                yield SheetGrid(id="grid")
                yield CellEditor(id="editor")
            yield Inspector(id="inspector")
        yield SweepView(id="sweep")
        yield DiffView(id="diff")
        yield DiagnosticsPanel(id="diagnostics")
        yield Static("", id="status")
        yield KeyFooter()

    @property
    def grid(self) -> SheetGrid:
        return self.query_one(SheetGrid)

    @property
    def editor(self) -> CellEditor:
        return self.query_one(CellEditor)

    @property
    def inspector(self) -> Inspector:
        return self.query_one(Inspector)

    @property
    def sweep(self) -> SweepView:
        return self.query_one(SweepView)

    @property
    def diagnostics_panel(self) -> DiagnosticsPanel:
        return self.query_one(DiagnosticsPanel)

    @property
    def diff_view(self) -> DiffView:
        return self.query_one(DiffView)

    def on_mount(self) -> None:
        for widget in (self.query_one("#filter"), self.inspector, self.sweep, self.diagnostics_panel, self.diff_view):
            widget.display = False
        self.load(Document(self.path))
        if self.watch_seconds:
            self.set_interval(self.watch_seconds, self.check_disk)

    def load(self, document: Document) -> None:
        """Show a newly opened (or reloaded) document."""
        self.document = document
        self.path = document.path
        self._shown_model = document.workbook.model
        self._warned_disk = False
        self.samples = None
        self.grid.set_samples(None)
        self.grid.load(document)
        self.grid.border_title = document.title or document.path.name
        count = self.diagnostics_panel.load(document)
        if count:
            self.diagnostics_panel.display = True
        self.editor.close()
        self.show_selected(self.grid.current_key)
        self.update_title()
        self.set_status(f"{len(document.workbook.model.cells)} cells"
                        + (f", {count} problem{'s' if count != 1 else ''}" if count else "")
                        + " · Enter or type to edit · ? for help")
        self.grid.focus()
        if self.sweep.display:
            self.rerun_sweep()
        self.refresh_diff()
        self.resample()

    def update_title(self) -> None:
        document = self.document
        if document is None:
            return
        self.sub_title = str(document.path) + (" ● unsaved" if document.dirty else "")

    def set_status(self, text: str | Text) -> None:
        self.query_one("#status", Static).update(text, layout=False)

    def show_selected(self, key: str | None) -> None:
        """The formula bar (and the inspector, if open) follow the grid's cursor."""
        document = self.document
        if document is None:
            return
        if key is None:
            self.editor.show(None, "", "")
        else:
            self.editor.show(key, key, document.raw_text(key))
        if self.inspector.display and key is not None:
            self.inspector.show_cell(document, key, self.samples)

    # editing --------------------------------------------------------------------------
    def on_sheet_grid_edit_requested(self, event: SheetGrid.EditRequested) -> None:
        document = self.document
        if document is None:
            return
        reason = document.editable(event.key)
        if reason:
            self.notify(reason, title="read-only here", severity="warning")
            return
        cell = document.cell(event.key)
        text = event.initial if event.initial is not None else document.raw_text(event.key)
        self.editor.open(event.key, Text("✎ " + event.key, style="bold"), text)
        where = " (imported: saved as a `use: … set:` override in this sheet)" if cell.scope.prefix else ""
        self.set_status(f"editing {event.key}{where} · Enter commits · Esc cancels")

    def on_cell_editor_committed(self, event: CellEditor.Committed) -> None:
        document = self.document
        if document is None:
            return
        result = document.apply(event.key, event.text)
        if not result.ok:
            self.editor.show_problem(result.rendered, result.message)
            self.set_status(Text(f"{event.key}: not applied — the values are unchanged", style="bold red"))
            return
        self.editor.close(document.raw_text(event.key))
        self.after_edit(result, f"edited {event.key}")
        # focus returns to the grid after the new values are painted: moving focus
        # repaints the whole screen, which would delay showing them by a frame or two
        self.call_after_refresh(self.grid.focus)

    def on_cell_editor_cancelled(self, event: CellEditor.Cancelled) -> None:
        self.grid.focus()
        self.show_selected(self.grid.current_key)
        self.set_status("edit cancelled")

    def after_edit(self, result: EditResult, verb: str) -> None:
        document = self.document
        assert document is not None
        grid = self.grid
        if document.workbook.model is not self._shown_model:
            # re-checked from the text: markers and formulas may have moved too
            grid.changes = dict(result.changes)
            grid.load(document, keep_state=True)
            self.diagnostics_panel.load(document)
            self._shown_model = document.workbook.model
        else:
            grid.show_changes(result.changes, also=[result.key])
        changed = len([k for k in result.changes if k != result.key])
        self.set_status(f"{verb}: {changed} value{'s' if changed != 1 else ''} changed, "
                        f"{len(result.recomputed)} recomputed" + (" · unsaved" if document.dirty else ""))
        self.update_title()
        if not self.editor.editing:
            self.show_selected(grid.current_key)
        if self.sweep.display:
            self.call_after_refresh(self.rerun_sweep)
        if self.diff_view.display:
            self.call_after_refresh(self.refresh_diff)
        self.call_after_refresh(self.resample)

    def action_undo(self) -> None:
        self._history("undo")

    def action_redo(self) -> None:
        self._history("redo")

    def _history(self, which: str) -> None:
        document = self.document
        if document is None:
            return
        result = document.undo() if which == "undo" else document.redo()
        if result is None:
            self.set_status(f"nothing to {which}")
            return
        self.grid.go_to(result.key)
        self.after_edit(result, f"{which} {result.key} = {result.text}")

    def action_edit(self) -> None:
        key = self.grid.current_key
        if key is not None:
            self.grid.post_message(SheetGrid.EditRequested(key))

    # saving ---------------------------------------------------------------------------
    def action_save(self) -> None:
        self.save()

    def save(self, force: bool = False, then=None) -> None:
        document = self.document
        if document is None:
            return
        try:
            wrote = document.save(force=force)
        except ExternalChange:
            def answer(choice: str | None) -> None:
                if choice == "reload":
                    self.reload()
                elif choice == "overwrite":
                    self.save(force=True, then=then)
            self.push_screen(ChoiceScreen(
                "The file changed on disk",
                f"{document.path} was changed by another program since it was opened.\n"
                "Reload it (your unsaved edits are lost), overwrite it with your version, or cancel.",
                [("reload", "Reload"), ("overwrite", "Overwrite"), ("cancel", "Cancel")]), answer)
            return
        except OSError as e:
            self.notify(f"cannot save: {e}", severity="error")
            return
        self._warned_disk = False
        self.update_title()
        self.set_status(f"saved {document.path}" if wrote else f"{document.path} is unchanged")
        self.refresh_diff()
        if then is not None:
            then()

    def reload(self) -> None:
        document = self.document
        if document is None:
            return
        try:
            document.reload()
        except (OSError, UnicodeDecodeError) as e:
            self.notify(f"cannot reload: {e}", severity="error")
            return
        self.load(document)
        self.set_status(f"reloaded {document.path} from disk")

    def action_reload(self) -> None:
        self.reload()

    def check_disk(self) -> None:
        """Reload a file changed on disk when there is nothing to lose; else warn once."""
        document = self.document
        if document is None or not document.path.exists() or not document.disk_changed():
            return
        if not document.dirty:
            self.reload()
            self.notify(f"{document.path} changed on disk and was reloaded")
        elif not self._warned_disk:
            self._warned_disk = True
            self.notify(f"{document.path} changed on disk; saving will ask what to do", severity="warning")

    def when_saved_or_discarded(self, then) -> None:
        """Run `then` now if there is nothing unsaved, else after asking."""
        document = self.document
        if document is None or not document.dirty:
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)
            elif choice == "discard":
                then()
        self.push_screen(ChoiceScreen("Unsaved edits",
                                      f"{document.path} has unsaved edits. Save them first?", UNSAVED), answer)

    async def action_quit(self) -> None:
        self.when_saved_or_discarded(lambda: self.exit(0))

    def open_sheet(self, path: str | Path) -> None:
        def go() -> None:
            try:
                document = Document(path)
            except (OSError, UnicodeDecodeError) as e:
                self.notify(f"cannot open {path}: {e}", severity="error")
                return
            self.load(document)
        self.when_saved_or_discarded(go)

    def library_sheets(self) -> list[str]:
        root = library_dir()
        if not root.is_dir():
            return []
        paths = sorted(root.rglob("*.yaml"))
        try:
            return [str(p.relative_to(Path.cwd())) for p in paths]
        except ValueError:
            return [str(p) for p in paths]

    # panels ---------------------------------------------------------------------------
    def on_sheet_grid_cell_chosen(self, event: SheetGrid.CellChosen) -> None:
        self.show_selected(event.key)

    def action_toggle_inspector(self) -> None:
        inspector = self.inspector
        inspector.display = not inspector.display
        if inspector.display and self.document is not None:
            inspector.show_cell(self.document, self.grid.current_key, self.samples)

    def action_toggle_diagnostics(self) -> None:
        panel = self.diagnostics_panel
        panel.display = not panel.display
        if panel.display:
            panel.focus()
        else:
            self.grid.focus()

    @on(Inspector.Jump)
    @on(DiagnosticsPanel.Jump)
    @on(DiffView.Jump)
    def jump(self, event: Inspector.Jump | DiagnosticsPanel.Jump | DiffView.Jump) -> None:
        if self.document is not None and event.key in self.document.workbook.model.cells:
            self.go_to(event.key)

    def go_to(self, key: str) -> None:
        self.grid.go_to(key)
        self.grid.focus()
        self.show_selected(key)

    def action_toggle_sweep(self) -> None:
        sweep = self.sweep
        if sweep.display:
            sweep.display = False
            self.grid.focus()
            return
        self.show_sweep()

    def show_sweep(self, name: str | None = None, axis: str | None = None) -> None:
        document = self.document
        if document is None:
            return
        sweep = self.sweep
        if name is None and axis is None and sweep.choice in (None, ADHOC) and not sweep.axis_text \
                and not document.sweep_names():
            key = self.grid.current_key or next(iter(document.workbook.model.cells), None)
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
        document = self.document
        if document is None:
            return
        sweep = self.sweep
        if sweep.choice == ADHOC and not sweep.axis_text and self.grid.current_key:
            # an ad hoc sweep starts around the selected cell
            sweep.configure(document, axis=document.suggest_axis(self.grid.current_key))
        sweep.run(document)

    # the diff against the saved file or git HEAD ---------------------------------------
    def action_toggle_diff(self) -> None:
        view = self.diff_view
        view.display = not view.display
        if view.display:
            self.refresh_diff()
        else:
            self.grid.focus()

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

        def compare() -> Comparison:
            try:
                return self.baselines.compare(path, text, against)
            except Exception as e:  # noqa: BLE001 - a failed comparison is shown, never fatal to the editor
                return Comparison(against, against, None, f"cannot compare: {type(e).__name__}: {e}")
        view.pending()
        self.in_background("diff", compare, view.show)

    # samples of the random draws ---------------------------------------------------------
    def resample(self) -> None:
        """Sample the sheet's random draws (after opening and after each edit), off
        the UI thread; the grid's ranges are dimmed until the new ones arrive."""
        document = self.document
        if document is None:
            return
        if not has_draws(document.workbook):
            if self.samples is not None:
                self.show_samples(None)
            return
        self.grid.set_samples(self.samples, pending=True)
        path, text = document.path, document.text()

        def sample() -> Samples | None:
            try:
                return sample_sheet(path, text)
            except Exception as e:  # noqa: BLE001 - a sheet that cannot be sampled keeps its exact values
                return Samples(None, f"cannot sample: {type(e).__name__}: {e}")
        self.in_background("samples", sample, self.show_samples)

    def show_samples(self, samples: Samples | None) -> None:
        document = self.document
        self.samples = samples
        self.grid.set_samples(samples)
        if document is not None and self.inspector.display:
            self.inspector.show_samples(document, self.grid.current_key, samples)
        if samples is not None and samples.error:
            self.set_status(Text(f"samples: {samples.error}", style="yellow"))

    def in_background(self, group: str, compute, show) -> None:
        """Run `compute` in a thread, then `show` its result on the UI thread
        unless a newer run of the same group started meanwhile."""
        generation = self._generations[group] = self._generations.get(group, 0) + 1

        def run() -> None:
            result = compute()

            def deliver() -> None:
                if self._generations.get(group) == generation:
                    show(result)
            try:
                self.call_from_thread(deliver)
            except RuntimeError:   # the app has exited meanwhile
                pass
        self.run_worker(run, thread=True, group=group, exit_on_error=False)

    # keys -------------------------------------------------------------------------------
    def action_filter(self) -> None:
        field = self.query_one("#filter", Input)
        field.display = True
        field.focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.grid.set_filter(event.value)

    @on(Input.Submitted, "#filter")
    def filter_done(self, event: Input.Submitted) -> None:
        self.grid.focus()

    def action_escape(self) -> None:
        field = self.query_one("#filter", Input)
        if field.display:
            field.value = ""
            field.display = False
            self.grid.set_filter("")
            self.grid.focus()
        elif self.focused is not self.grid:
            self.grid.focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen):
        for command in super().get_system_commands(screen):
            if command.title != "Quit":   # ours asks about unsaved edits (SheetCommands)
                yield command
