"""What the editor's controllers use of the app that holds them (tui/app.py's
`SupersheetApp`): the open document, the main screen's widgets, the status line, the
steps every edit goes through, and the few Textual calls they make. The controllers
(files.py, structure.py, imports.py, sampling.py, sweeping.py, …) each declare the
state they own and take the app as this `Protocol`, so none imports the app back."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol

from rich.text import Text
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

from supersheet.editor.document import Document, EditResult
from supersheet.editor.verdicts import Verdict

from .background import Background
from .widgets.diagnostics import DiagnosticsPanel
from .widgets.diff import DiffView
from .widgets.editor import CellEditor
from .widgets.grid import SheetGrid
from .widgets.inspector import Inspector
from .widgets.sweep import SweepView


class Editor(Protocol):
    path: Path
    document: Document | None
    background: Background

    # the main screen's widgets
    @property
    def grid(self) -> SheetGrid: ...
    @property
    def editor(self) -> CellEditor: ...
    @property
    def inspector(self) -> Inspector: ...
    @property
    def sweep(self) -> SweepView: ...
    @property
    def diagnostics_panel(self) -> DiagnosticsPanel: ...
    @property
    def diff_view(self) -> DiffView: ...

    # what every controller shows through
    def set_status(self, text: str | Text) -> None: ...
    def load(self, document: Document) -> None: ...
    def after_edit(self, result: EditResult, verb: str) -> None: ...
    def load_problems(self, document: Document, verdicts: list[Verdict] | None = None) -> None: ...
    def show_selected(self, key: str | None) -> None: ...
    def update_title(self) -> None: ...
    def commit_editor(self) -> bool: ...
    def go_to(self, key: str) -> None: ...
    def structural_edit(self, edit: Callable[[], EditResult], go_to: str | None) -> bool: ...

    # Textual's
    @property
    def focused(self) -> Widget | None: ...
    @property
    def screen(self) -> Screen[object]: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> Any: ...
    def set_timer(self, delay: float, callback: Callable[[], Any] | None = None) -> Timer: ...
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
    def exit(self, result: int | None = None, return_code: int = 0) -> None: ...
    def refresh_bindings(self) -> None: ...


def focus_now(app: Editor, widget: Widget) -> None:
    """Move the focus before the next key is looked at (`Widget.focus` defers it)."""
    if app.focused is not widget:
        app.screen.set_focus(widget)


def in_a_panel(app: Editor) -> bool:
    """The diagnostics list or the diff table has the focus (their rows are places)."""
    focused = app.focused
    return focused is not None and (focused is app.diagnostics_panel or focused.id == "diff-table")
