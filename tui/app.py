"""`supersheet edit`: the Textual app. Wiring only — the document model is
supersheet.editor.document.Document, the widgets live in tui/widgets, the look in app.tcss.
The app holds its controllers, each with the state it owns: the file actions (save,
reload, quit, Save As) are `files` (files.py), the panels around the grid (inspector,
diagnostics, diff) `panels` (panels.py), the sweep view's runs and export `sweeping`
(sweeping.py), the samples and the blocks' checks `sampling` (sampling.py), the recovery
file `recovery` (recover.py), the keys routed in order `keys` (keys.py), completion
`completion` (completing.py), the structural edits `structure` (structure.py), the imports
`imports` (imports.py), go to definition `definition` (definition.py); work off the UI
thread runs through `background` (background.py: Textual workers). Each takes the app as
host.py's `Editor`; the app's actions and message handlers hand over to them."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, TypeVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, Static

from supersheet.editor.baselines import HEAD, SAVED
from supersheet.editor.document import Document, EditResult, StructureError
from supersheet.editor.problems import kind_of, summary
from supersheet.editor.results import assignment
from supersheet.editor.verdicts import Verdict

from .background import Background
from .clipboard import in_tmux, to_tmux
from .commands import SheetCommands
from .completing import CompletionController
from .definition import DefinitionController
from .files import FileController
from .heap import QuietHeap
from .host import focus_now
from .imports import ImportController
from .keys import KeyRouter
from .keytable import APP_KEYS
from .panels import PanelController
from .recover import RecoveryController
from .sampling import SamplingController
from .screens import HelpScreen
from .structure import StructureController
from .sweeping import SweepController
from .widgets.diagnostics import DiagnosticsPanel
from .widgets.diff import DiffView
from .widgets.editor import CellEditor
from .widgets.footer import KeyFooter
from .widgets.grid import SheetGrid
from .widgets.inspector import Inspector
from .widgets.render import value_text, visible_changes
from .widgets.sweep import SweepView
from .widgets.status import StatusLine

W = TypeVar("W", bound=Widget)


COUNT_SHARE = 0.4    # the most of the status line's width the problem count takes with its kinds


def shortened_count(said: str, width: int) -> str:
    """`15 problems: 3 errors, 2 failed checks, 10 failed expectations` in `width` characters:
    the last kinds give way to `…` (errors, listed first, stay longest), then all of them,
    so that the message beside the count keeps most of a narrow status line (F4 has them all)."""
    total, _, kinds = said.partition(": ")
    parts = kinds.split(", ") if kinds else []
    for kept in range(len(parts), 0, -1):
        text = f"{total}: {', '.join(parts[:kept])}" + (", …" if kept < len(parts) else "")
        if len(text) <= width:
            return text
    return total


class SupersheetApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "supersheet"
    COMMANDS = App.COMMANDS | {SheetCommands}
    BINDINGS = [key.binding() for key in APP_KEYS]

    def __init__(self, path: str | Path, *, watch_seconds: float = 1.0, new: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.new = new            # the sheet does not exist yet: ask for its title, then create it
        self.document: Document | None = None
        self.watch_seconds = watch_seconds
        self._shown_layout: object | None = None
        self.background = Background(self)   # work off the UI thread, newest first (background.py)
        self.recovery = RecoveryController(self)
        self.sampling = SamplingController(self)
        self.sweeping = SweepController(self)
        self.panels = PanelController(self, self.sampling, self.sweeping)
        self.files = FileController(self, self.recovery, self.panels)
        self.completion = CompletionController(self)
        self.keys = KeyRouter(self, self.completion)
        self.imports = ImportController(self)
        self.structure = StructureController(self, self.files, self.imports)
        self.definition = DefinitionController(self, self.files)
        self.heap = QuietHeap()   # full garbage collections only when the user is idle (heap.py)
        self._problems_width = 0       # the status line's problem count's width (0: not on screen)
        self._problems_count: tuple | None = None   # ... and what it says, in which style
        self._problems_found = ("", False)  # the count in full, and whether it is red (an error, an assumption)
        self._widgets: dict[type, Widget] = {}       # the main screen's panels (_one)
        self.footer_asking = False           # the footer is asking check_action (widgets/footer.py)

    # layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="▦")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Input(placeholder="filter cells by name, formula or value (Esc clears)", id="filter")
                yield SheetGrid(id="grid")
                yield CellEditor(id="editor")
            yield Inspector(id="inspector")
        yield SweepView(id="sweep")
        yield DiffView(id="diff")
        yield DiagnosticsPanel(id="diagnostics")
        with Horizontal(id="statusbar"):
            yield StatusLine(id="status")
            yield Static("", id="problems")     # how many problems, always there while there are any
        yield KeyFooter()

    def _one(self, kind: type[W]) -> W:
        """The main screen's widget of this kind. Found once: they live as long as the
        app, and a query of the DOM per use was ~5 % of the UI thread's time per edit
        (bench/bench_tui.py); found again if it was ever detached."""
        found = self._widgets.get(kind)
        if found is None or not found.is_attached:
            found = self._widgets[kind] = self.query_one(kind)
        return found    # type: ignore[return-value]  # _widgets maps each kind to a widget of it

    @property
    def grid(self) -> SheetGrid:
        return self._one(SheetGrid)

    @property
    def editor(self) -> CellEditor:
        return self._one(CellEditor)

    @property
    def inspector(self) -> Inspector:
        return self._one(Inspector)

    @property
    def sweep(self) -> SweepView:
        return self._one(SweepView)

    @property
    def diagnostics_panel(self) -> DiagnosticsPanel:
        return self._one(DiagnosticsPanel)

    @property
    def diff_view(self) -> DiffView:
        return self._one(DiffView)

    @property
    def filter_field(self) -> Input:
        return self.query_one("#filter", Input)

    def on_mount(self) -> None:
        for widget in (self.query_one("#filter"), self.inspector, self.sweep, self.diagnostics_panel, self.diff_view):
            widget.display = False
        self.grid.formulas_shown_by = self.inspector    # beside the grid, when open: ranges keep their width
        if self.new:
            self.files.create_sheet()
        else:
            self.load(Document(self.path))
        self.recovery.catch_hangups()
        if self.watch_seconds:
            self.set_interval(self.watch_seconds, self.files.check_disk)
        self.set_interval(1.0, self.heap.sweep_if_idle)

    def load(self, document: Document) -> None:
        """Show a newly opened (or reloaded) document."""
        self.document = document
        self.path = document.path
        self._shown_layout = document.layout
        self.files.warned_disk = False
        self.sampling.clear()
        self.grid.set_samples(None)
        self.grid.set_verdicts({})
        self.inspector.verdicts = {}
        self.grid.load(document)
        self.grid.border_title = document.title or document.path.name
        self.load_problems(document, [])
        count = len(document.diagnostics)
        if count:
            self.diagnostics_panel.display = True
        self.editor.close()
        self.show_selected(self.grid.current_key)
        self.update_title()
        self.set_status(f"{len(document.keys())} cells"
                        + (f", {count} problem{'s' if count != 1 else ''}" if count else "")
                        + " · Enter or type to edit · ? for help")
        self.grid.focus()
        if self.sweep.display:
            self.sweeping.rerun()
        self.panels.refresh_diff()
        self.sampling.resample()
        self.sampling.recheck_blocks()
        # the round-trip YAML is loaded off the UI thread, so the first edit need not wait for it
        self.call_after_refresh(self.background.run, "roundtrip", document.source.warm, lambda _: None)
        self.call_after_refresh(self.heap.freeze)
        self.call_after_refresh(self.recovery.offer)

    def on_unmount(self) -> None:
        """The app exits (or failed): its signal handlers go back, its resample process stops."""
        self.recovery.release_hangups()
        self.sampling.close()

    def _handle_exception(self, error: Exception) -> None:
        """An internal error ends the app (Textual's rule): keep the unsaved text first."""
        try:
            self.recovery.write()
        except Exception:  # noqa: BLE001 - the error being handled is the one to report
            pass
        super()._handle_exception(error)

    def update_title(self) -> None:
        document = self.document
        if document is None:
            return
        # the mark first: a narrow header cuts the end of a long path, never the mark
        self.sub_title = ("● unsaved · " if document.dirty else "") + str(document.path)

    def load_problems(self, document: Document, verdicts: list[Verdict] | None = None) -> None:
        """F4's list and the count at the right of the status line (editor/problems.py)."""
        self.diagnostics_panel.load(document, verdicts)
        found = [d for d, _ in self.diagnostics_panel.problems()]
        # red while something is wrong with the sheet or outside its model; a failed check or
        # expectation (a finding, a number that moved) in yellow
        self._problems_found = (summary(found), any(kind_of(d) in ("error", "assumption") for d in found))
        self.show_problem_count(self.size.width)

    def on_resize(self, event: events.Resize) -> None:
        """The count fitted again to the new width: fitted only when the sheet was checked, it
        kept its old length after a resize until the next edit. (Before App's own handler:
        `self.size` is still the old size here.)"""
        if self._problems_count is not None:     # (none yet before the sheet is first checked)
            self.show_problem_count(event.size.width)

    def show_problem_count(self, width: int) -> None:
        """The count at the right of the status line, fitted to `width` columns (COUNT_SHARE)."""
        found, red = self._problems_found
        said = shortened_count(found, int(width * COUNT_SHARE) - 7)
        count = Text(f" ⚠ {said} · F8 ", style="bold red" if red else "bold yellow") if said else Text("")
        if (count.plain, count.style) == self._problems_count:
            # the same: not drawn again (an empty count has no width, and drawing a widget
            # that is not on screen makes Textual map the whole screen again, ~1 ms an edit)
            return
        # laid out again when its width changes (it appears, goes, grows or shrinks): a count
        # that grew in its old width lost its end
        self.query_one("#problems", Static).update(count, layout=count.cell_len != self._problems_width)
        self._problems_width, self._problems_count = count.cell_len, (count.plain, count.style)

    def set_status(self, text: str | Text) -> None:
        self.query_one(StatusLine).say(text)

    def show_selected(self, key: str | None) -> None:
        """The formula bar (and the inspector, if open) follow the grid's cursor."""
        document = self.document
        if document is None:
            return
        self.imports.footer_follows_row()
        if key is None:
            self.editor.show(None, "", "")
        else:
            self.editor.show(key, key, document.raw_text(key))
        if self.inspector.display and key is not None:
            self.inspector.show_cell(document, key, self.sampling.samples)

    # editing --------------------------------------------------------------------------
    def on_sheet_grid_edit_requested(self, event: SheetGrid.EditRequested) -> None:
        self.start_edit(event.key, event.initial)

    def start_edit(self, key: str, initial: str | None = None) -> None:
        """Open the editor on `key`, holding `initial` (what was typed) or the cell's text."""
        document = self.document
        if document is None:
            return
        reason = document.editable(key)
        if reason:
            self.notify(reason, title="read-only here", severity="warning")
            return
        cell = document.cell(key)
        text = initial if initial is not None else document.raw_text(key)
        self.editor.open(key, Text("✎ " + key, style="bold"), text)
        shared = document.shared_instance(key)
        if shared and cell.scope.path:   # format 10.3: an edit of the imported file, which every alias of it reads
            where = (f" (one instance shared by {', '.join(shared)}: an edit of {Path(cell.scope.path).name} for "
                     "all of them; Ctrl+S asks before writing that file)")
        else:
            where = " (imported: saved as a `use: … set:` override in this sheet)" if cell.scope.prefix else ""
        self.set_status(f"editing {key}{where} · Enter commits · Esc cancels · Ctrl+Z undoes typing")
        self.completion.completions = None
        if initial is not None:        # typed on the grid: what it may complete is offered at once
            self.completion.offer()

    def on_cell_editor_committed(self, event: CellEditor.Committed) -> None:
        self.commit_edit(event.key, event.text)

    def commit_editor(self) -> bool:
        """Commit the text in the editor (if it is open); False when it was refused."""
        editor = self.editor
        if not editor.editing or editor.key is None:
            return True
        return self.commit_edit(editor.key, editor.text)

    def commit_edit(self, key: str, text: str) -> bool:
        document = self.document
        if document is None:
            return False
        result = document.apply(key, text)
        if not result.ok:
            self.editor.show_problem(result.rendered, result.message)
            self.set_status(Text(f"{key}: not applied — the values are unchanged", style="bold red"))
            return False
        self.editor.close(document.raw_text(key))
        imported = document.imported_edit(key)     # a shared instance's cell: its file, not this sheet
        self.after_edit(result, f"edited {key} in {imported.name}" if imported else f"edited {key}")
        # focus returns to the grid after the new values are painted: moving focus
        # repaints the whole screen, which would delay showing them by a frame or two
        # (a key typed meanwhile moves it at once: tui/keys.py)
        self.call_after_refresh(self._grid_focus_after_edit)
        return True

    def _grid_focus_after_edit(self) -> None:
        if not self.editor.editing and self.focused is self.editor.input:
            self.grid.focus()

    def cancel_editor(self) -> None:
        self.editor.cancel()
        self.screen.set_focus(self.grid)
        self.show_selected(self.grid.current_key)
        self.set_status("edit cancelled")

    def undo_typing(self) -> None:
        if not self.editor.undo_typing():
            self.set_status("nothing typed to undo · Esc cancels the edit")

    def after_edit(self, result: EditResult, verb: str) -> None:
        document = self.document
        assert document is not None
        grid = self.grid
        changes = visible_changes(document, result.changes)
        if document.layout is not self._shown_layout:
            # re-checked from the text: cells, groups, markers and formulas may have moved too
            grid.changes = changes
            grid.load(document, keep_state=True)
            self.load_problems(document)
            self._shown_layout = document.layout
        else:
            grid.show_changes(changes, also=[result.key] if document.has_cell(result.key) else [])
            self.load_problems(document)   # new values: assumptions and expectations may now fail
        changed = len([k for k in changes if k != result.key])
        # (in the frame after the new values: widgets/status.py)
        self.query_one(StatusLine).say_after_frame(
            f"{verb}: {changed} value{'s' if changed != 1 else ''} changed, "
            f"{len(result.recomputed)} recomputed" + (" · unsaved" if document.dirty else "")
            + (f" · {result.note}" if result.note else ""))
        self.call_after_refresh(self.update_title)   # a new title lays out the header: after the values show
        self.recovery.due()
        if not self.editor.editing:
            self.show_selected(grid.current_key)
        self.sampling.verdicts_outdated()
        if self.sweep.display:
            self.sweep.pending()    # from the first frame that shows the new values: its rows are old
            self.call_after_refresh(self.sweeping.rerun)
        if self.diff_view.display:
            self.call_after_refresh(self.panels.refresh_diff)
        self.call_after_refresh(self.sampling.resample)
        self.call_after_refresh(self.sampling.recheck_blocks)
        self.call_after_refresh(self.heap.freeze)

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
        if result.key:
            self.grid.go_to(result.key)
        if result.key and not result.label:
            self.after_edit(result, f"{which} {assignment(result.key, result.text)}")
        else:
            self.after_edit(result, f"{which}: {result.label or result.text}")

    def action_copy_value(self) -> None:
        self._copy("value")

    def action_copy_formula(self) -> None:
        self._copy("formula")

    def action_copy_exact(self) -> None:
        self._copy("exact")

    def _copy(self, what: str) -> None:
        """Copy the selected cell's value (as shown, with its unit) or its raw text
        to the clipboard (OSC 52: the terminal must allow it), and inside tmux to
        its paste buffer."""
        document, key = self.document, self.grid.current_key
        if document is None or key is None:
            self.set_status("select a cell to copy")
            return
        text = {"value": lambda: value_text(document, key).plain, "exact": lambda: document.exact_text(key),
                "formula": lambda: document.raw_text(key)}[what]()
        self.copy_to_clipboard(text)
        said = f"copied {key}'s {({'value': 'value', 'exact': 'exact value'}).get(what, 'formula / text')}: {text} · "
        if not in_tmux():
            self.set_status(said + "sent to the terminal's clipboard (OSC 52: the terminal must allow it)")
            return
        # tmux drops OSC 52 by default: its paste buffer too, off the UI thread (clipboard.py)
        self.set_status(said + "putting it in tmux's paste buffer…")
        self.background.run("clipboard", lambda: to_tmux(text), lambda where: self.set_status(Text(said) + where))

    def action_edit(self) -> None:
        key = self.grid.current_key
        if key is not None:
            self.grid.post_message(SheetGrid.EditRequested(key))

    def go_to(self, key: str) -> None:
        """The grid's cursor on `key`, with the focus, and the formula bar on it."""
        self.grid.go_to(key)
        focus_now(self, self.grid)
        self.show_selected(key)

    def structural_edit(self, edit: Callable[[], EditResult], go_to: str | None) -> bool:
        """Make a structural edit (structure.py, imports.py) and show it; False (with the
        reason shown) when it was refused. `go_to`: the cell it made, which the cursor goes to."""
        document = self.document
        if document is None:
            return False
        try:
            result = edit()
        except StructureError as e:
            self.notify(str(e), severity="warning")
            return False
        if not result.ok:
            self.notify(result.message or result.rendered, title="not applied", severity="error", timeout=10)
            return False
        if go_to:
            result.changes.pop(go_to, None)    # a new cell did not change: it is new
        self.after_edit(result, result.text)
        self.load_problems(document)
        if go_to:
            self.grid.go_to(go_to)
            self.show_selected(go_to)
        return True

    # keys: routed in order (keys.py), and the footer's question ------------------------
    async def on_event(self, event: events.Event) -> None:
        if not await self.keys.take(event):
            await super().on_event(event)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.footer_asking:
            return True        # Textual's run_action asks too: every key works wherever it is pressed
        return self.imports.shows_key(action)

    def action_open_row(self) -> None:
        self.keys.open_row()

    def action_fold_row(self) -> None:
        self.keys.fold_row()

    def action_commit_edit(self) -> None:
        self.commit_editor()

    def action_cancel_edit(self) -> None:
        self.cancel_editor()

    def action_undo_typing(self) -> None:
        self.undo_typing()

    def action_accept_completion(self) -> None:
        self.completion.accept()

    def action_filter(self) -> None:
        self.keys.filter()

    def action_leave_filter(self) -> None:
        self.keys.leave_filter()

    def action_escape(self) -> None:
        self.keys.escape()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.keys.input_changed(event)

    # the controllers' actions (keytable.py binds them) and the messages they answer -------
    def action_save(self) -> None:
        self.files.save()

    def action_save_as(self) -> None:
        self.files.save_as()

    def action_reload(self) -> None:
        self.files.reload()

    async def action_quit(self) -> None:
        self.files.quit()

    def action_toggle_inspector(self) -> None:
        self.panels.toggle_inspector()

    def action_toggle_diagnostics(self) -> None:
        self.panels.toggle_diagnostics()

    def action_next_problem(self) -> None:
        self.panels.step_problem(1)

    def action_previous_problem(self) -> None:
        self.panels.step_problem(-1)

    def action_choose_place(self) -> None:
        self.panels.choose_place()

    def action_toggle_diff(self) -> None:
        self.panels.toggle_diff()

    def action_diff_saved(self) -> None:
        self.panels.show_diff(SAVED)

    def action_diff_head(self) -> None:
        self.panels.show_diff(HEAD)

    def action_toggle_sweep(self) -> None:
        self.panels.toggle_sweep()

    def action_adhoc_sweep(self) -> None:
        self.sweeping.adhoc()

    def action_export_sweep(self) -> None:
        self.sweeping.export()

    def action_add_cell(self) -> None:
        self.structure.add_cell()

    def action_duplicate_cell(self) -> None:
        self.structure.duplicate_cell()

    def action_rename_cell(self) -> None:
        self.structure.rename_cell()

    def action_delete_cell(self) -> None:
        self.structure.delete_cell()

    def action_remove_expectation(self) -> None:
        self.structure.remove_expectation()

    def action_edit_properties(self) -> None:
        self.structure.edit_properties()

    def action_swap_import(self) -> None:
        self.imports.swap()

    def action_add_import(self) -> None:
        self.imports.add()

    def action_remove_import(self) -> None:
        self.imports.remove()

    def action_import_sets(self) -> None:
        self.imports.import_sets()

    def action_go_to_definition(self) -> None:
        self.definition.go_to_definition()

    def action_go_back(self) -> None:
        self.definition.go_back()

    def on_sheet_grid_cell_chosen(self, event: SheetGrid.CellChosen) -> None:
        # the cursor's cell now: keys handled since the message was posted may have
        # moved it on, or deleted or renamed the cell it names
        self.show_selected(self.grid.current_key)

    def on_inspector_jump(self, event: Inspector.Jump) -> None:
        self.panels.jump(event.key)

    def on_diagnostics_panel_jump(self, event: DiagnosticsPanel.Jump) -> None:
        self.panels.go_to_place(event.place)

    def on_diff_view_chosen(self, event: DiffView.Chosen) -> None:
        self.panels.diff_chosen(event)

    def on_diff_view_against_changed(self, event: DiffView.AgainstChanged) -> None:
        self.panels.refresh_diff()

    def on_sweep_view_rerun_requested(self, event: SweepView.RerunRequested) -> None:
        self.sweeping.rerun()

    # keys -------------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterator[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Quit":   # ours asks about unsaved edits (SheetCommands)
                yield command
