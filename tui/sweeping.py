"""The sweep view's work (F3): a sweep of the sheet, a fit, or an ad hoc axis over the
selected cell, run on the current (unsaved) values off the UI thread, its rows marked
stale from an edit until the rerun's arrive; and Ctrl+X, its table written as CSV or
Parquet by the CLI's writers (editor/sweep.py) — or its chart, named .svg, .png or
.html, drawn by `supersheet plot`'s code — off the UI thread too. An existing file is
replaced only when the question says so (Cancel has the focus). A controller the app
holds (tui/app.py: `app.sweeping`); the widget is widgets/sweep.py."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from rich.text import Text

from supersheet.editor.sweep import ExportError

from .host import Editor
from .screens import ChoiceScreen, PromptScreen
from .widgets.sweep import ADHOC, FIT


class SweepController:
    def __init__(self, app: Editor) -> None:
        self.app = app      # what it shows and runs is the sweep view's (widgets/sweep.py): no state here

    def show(self, name: str | None = None, axis: str | None = None) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        sweep = app.sweep
        if name is None and axis is None and sweep.choice in (None, ADHOC) and not sweep.axis_text \
                and not document.sweep_names():
            key = app.grid.current_key or next(iter(document.keys()), None)
            axis = document.suggest_axis(key) if key else None
        sweep.configure(document, sweep=name, axis=axis)
        sweep.display = True
        self.rerun()

    def adhoc(self) -> None:
        """An ad hoc sweep over the selected cell."""
        app = self.app
        document = app.document
        key = app.grid.current_key
        if document is None or key is None:
            app.notify("select a cell first", severity="warning")
            return
        self.show(axis=document.suggest_axis(key))

    def rerun(self) -> None:
        """Run the sweep view's sweep on the current values, off the UI thread; its
        table is marked stale until the new rows arrive."""
        app = self.app
        document = app.document
        if document is None:
            return
        sweep = app.sweep
        if sweep.choice == ADHOC and not sweep.axis_text and app.grid.current_key:
            # an ad hoc sweep starts around the selected cell
            sweep.configure(document, axis=document.suggest_axis(app.grid.current_key))
        sweeper = sweep.request(document)
        if sweeper is None:
            return
        sweep.pending()
        app.background.run("sweep", sweeper, sweep.show)

    # export ------------------------------------------------------------------------
    def export(self) -> None:
        """Ctrl+X: ask for the file, then write the table (or its chart) off the UI thread."""
        app = self.app
        document, view = app.document, app.sweep
        if document is None:
            return
        if not view.display or view.choice is None or (view.choice == ADHOC and not view.axis_text):
            app.set_status(Text("open a sweep first (F3), then Ctrl+X writes its table", style="yellow"))
            return
        if view.choice.startswith(FIT):
            app.set_status(Text(f"a fit's rows are written by supersheet fit {document.path.name} "
                                f"{view.choice[len(FIT):]} --format csv", style="yellow"))
            return
        name = None if view.choice == ADHOC else view.choice
        axis = view.axis_text if name is None else None
        stem = f"{document.path.stem}-{name or 'adhoc'}"

        def answer(text: str | None) -> None:
            if not text or not text.strip():
                app.set_status("nothing exported")
                return
            target = Path(text.strip()).expanduser()
            target = target if target.is_absolute() else document.path.parent / target
            try:      # refused before the question: a device or a folder is never offered to be replaced
                export = document.exporter(target, name, axis,
                                           (view.x, view.y) if view.x is not None and view.y is not None else None)
            except ExportError as e:
                app.set_status(Text(f"not exported: {e}", style="bold red"))
                return
            if os.path.lexists(target):
                app.push_screen(ChoiceScreen(f"{target.name} exists", f"{target} exists. Replace it with the table?",
                                             [("cancel", "Cancel"), ("replace", "Replace it")]),
                                lambda choice: self._export(export, target, name or axis) if choice == "replace"
                                else app.set_status("nothing exported"))
            else:
                self._export(export, target, name or axis)
        app.push_screen(PromptScreen(
            "Export the sweep table", f"The file for the rows of {name or axis}, on the current values "
            f"(relative to {document.path.parent}): .csv, or .parquet with each column's unit; "
            ".svg, .png or .html for the chart shown. Typing replaces the name.", f"{stem}.csv", selected=True),
            answer)

    def _export(self, export: Callable[[], int], target: Path, what: str | None) -> None:
        app = self.app
        app.set_status(f"writing the table of {what} to {target}…")

        def write() -> int | str:
            try:
                return export()
            except ExportError as e:
                return str(e)

        def done(result: int | str) -> None:
            if isinstance(result, str):
                app.set_status(Text(f"not exported: {result}", style="bold red"))
                app.notify(result, title="not exported", severity="error", timeout=15)
            else:
                app.set_status(f"wrote {result} row{'s' if result != 1 else ''} of {what} to {target}")
        app.background.run("export", write, done)
