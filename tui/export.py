"""Export the sweep table the sweep view shows (Ctrl+X): the sheet's sweep, or
the ad hoc axis, on the current (unsaved) values, written as CSV or Parquet by
the CLI's writers (editor/sweep.py) — or its chart, named .svg, .png or .html,
drawn by `supersheet plot`'s code — off the UI thread. An existing file is
replaced only when the question says so (Cancel has the focus). A mixin of the
app (tui/app.py)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text

from supersheet.editor.sweep import ExportError

from .screens import ChoiceScreen, PromptScreen
from .widgets.sweep import ADHOC, FIT


class ExportActions:
    """Mixed into SupersheetApp."""

    def action_export_sweep(self) -> None:
        document, view = self.document, self.sweep
        if document is None:
            return
        if not view.display or view.choice is None or (view.choice == ADHOC and not view.axis_text):
            self.set_status(Text("open a sweep first (F3), then Ctrl+X writes its table", style="yellow"))
            return
        if view.choice.startswith(FIT):
            self.set_status(Text(f"a fit's rows are written by supersheet fit {document.path.name} "
                                 f"{view.choice[len(FIT):]} --format csv", style="yellow"))
            return
        name = None if view.choice == ADHOC else view.choice
        axis = view.axis_text if name is None else None
        stem = f"{document.path.stem}-{name or 'adhoc'}"

        def answer(text: str | None) -> None:
            if not text or not text.strip():
                self.set_status("nothing exported")
                return
            target = Path(text.strip()).expanduser()
            target = target if target.is_absolute() else document.path.parent / target
            if os.path.lexists(target):
                self.push_screen(ChoiceScreen(f"{target.name} exists", f"{target} exists. Replace it with the table?",
                                              [("cancel", "Cancel"), ("replace", "Replace it")]),
                                 lambda choice: self._export(target, name, axis) if choice == "replace"
                                 else self.set_status("nothing exported"))
            else:
                self._export(target, name, axis)
        self.push_screen(PromptScreen(
            "Export the sweep table", f"The file for the rows of {name or axis}, on the current values "
            f"(relative to {document.path.parent}): .csv, or .parquet with each column's unit; "
            ".svg, .png or .html for the chart shown. Typing replaces the name.", f"{stem}.csv", selected=True),
            answer)

    def _export(self, target: Path, name: str | None, axis: str | None) -> None:
        view = self.sweep
        try:
            export = self.document.exporter(target, name, axis,
                                            (view.x, view.y) if view.x is not None and view.y is not None else None)
        except ExportError as e:
            self.set_status(Text(f"not exported: {e}", style="bold red"))
            return
        self.set_status(f"writing the table of {name or axis} to {target}…")

        def write() -> int | str:
            try:
                return export()
            except ExportError as e:
                return str(e)

        def done(result: int | str) -> None:
            if isinstance(result, str):
                self.set_status(Text(f"not exported: {result}", style="bold red"))
                self.notify(result, title="not exported", severity="error", timeout=15)
            else:
                self.set_status(f"wrote {result} row{'s' if result != 1 else ''} of {name or axis} to {target}")
        self.in_background("export", write, done)
