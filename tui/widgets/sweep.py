"""The sweep view: one of the sheet's sweeps, or an ad hoc axis, as a table and
a plot of a chosen cell against a chosen axis. The app reruns it after every
edit while it is open."""
from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Select, Static
from textual_plotext import PlotextPlot

from supersheet.editor.document import Document, SweepRun
from supersheet.editor.sweep import column_name, run_title
from supersheet.units import format_number

ADHOC = "\0adhoc"
FIT = "\0fit:"          # a choice that is a fit of the sheet: FIT + its name
MAX_TABLE_ROWS = 500
MAX_SERIES = 6


class SweepTable(DataTable):
    """The sweep's rows. S sorts them by the column under the cursor (again: the other
    way), H hides that column, A shows every column again; the sort and the hidden
    columns stay through the reruns after each edit."""

    BINDINGS = [Binding("s", "sort_column", "Sort by column"), Binding("h", "hide_column", "Hide column"),
                Binding("a", "show_all", "All columns")]

    def _column_at_cursor(self) -> str | None:
        if not self.columns:
            return None
        return str(self.ordered_columns[self.cursor_column].key.value)

    def action_sort_column(self) -> None:
        column = self._column_at_cursor()
        if column is not None:
            self.parent_view().sort_by(column)

    def action_hide_column(self) -> None:
        column = self._column_at_cursor()
        if column is not None:
            self.parent_view().hide(column)

    def action_show_all(self) -> None:
        self.parent_view().show_all()

    def parent_view(self) -> SweepView:
        return next(a for a in self.ancestors if isinstance(a, SweepView))


class SweepView(Vertical):
    class RerunRequested(Message):
        """The user changed what to sweep; the app runs it on the current sheet."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "sweep"
        self.choice: str | None = None    # a sweep's name, ADHOC, or None: not chosen yet
        self.axis_text: str = ""
        self.y: str | None = None
        self.x: str | None = None
        self.last: SweepRun | None = None
        self.stale = False                # the rows shown are from before the last edit (pending)
        self.sort: tuple[str, bool] | None = None   # the column the rows are sorted by, and descending
        self.hidden: set[str] = set()     # columns the table does not show (the plot still can)

    def compose(self) -> ComposeResult:
        with Horizontal(id="sweep-controls"):
            yield Select([], prompt="sweep", id="sweep-choice", compact=True)
            yield Input(placeholder="axis, e.g. context=1024 token..65536 token*2", id="sweep-axis", compact=True)
            yield Select([], prompt="plot", id="sweep-y", compact=True)
            yield Select([], prompt="against", id="sweep-x", compact=True)
        with Horizontal(id="sweep-body"):
            yield PlotextPlot(id="sweep-plot")
            yield SweepTable(id="sweep-table", cursor_type="column", zebra_stripes=True)
        yield Static("", id="sweep-status")

    # what to run -------------------------------------------------------------------
    def configure(self, document: Document, sweep: str | None = None, axis: str | None = None) -> None:
        """Choose a named sweep, or an ad hoc axis (text in the `--vary` syntax)."""
        names = document.sweep_names()
        fits = [FIT + n for n in document.fit_names()]
        if sweep is not None:
            self.choice = sweep
        elif axis is not None:
            self.choice = ADHOC
            self.axis_text = axis
        elif self.choice is None or (self.choice != ADHOC and self.choice not in names and self.choice not in fits):
            self.choice = names[0] if names else fits[0] if fits else ADHOC
        options = [(f"sweep: {n}", n) for n in names] + [(f"fit: {f[len(FIT):]}", f) for f in fits] + \
            [("ad hoc axis", ADHOC)]
        choice = self.query_one("#sweep-choice", Select)
        with self.prevent(Select.Changed, Input.Changed):
            choice.set_options(options)
            choice.value = self.choice
            axis_input = self.query_one("#sweep-axis", Input)
            axis_input.value = self.axis_text
            axis_input.display = self.choice == ADHOC

    def request(self, document: Document) -> Callable[[], SweepRun] | None:
        """The configured sweep on the document's current values, to run off the UI
        thread (None: there is nothing to run; the view says what to do)."""
        if self.choice == ADHOC:
            if not self.axis_text:
                self._show_error("type an axis and press Enter, e.g. context=1024 token..65536 token*2")
                return None
            return document.sweeper(axis=self.axis_text)
        if self.choice is not None and self.choice.startswith(FIT):
            return document.fitter(self.choice[len(FIT):])
        return document.sweeper(name=self.choice)

    def pending(self) -> None:
        """A rerun is on its way: the rows shown were computed before the last edit,
        so they are marked stale (dimmed, `…`) until the new ones arrive, never shown
        as current (the grid's look for its verdicts being checked again)."""
        if self.last is None or self.last.frame is None:
            self.query_one("#sweep-status", Static).update(Text("running…", style="dim"))
            return
        self.stale = True
        self.add_class("-stale")
        coming = f"fit {self.choice[len(FIT):]}" if self.choice and self.choice.startswith(FIT) else \
            run_title(None if self.choice == ADHOC else self.choice, self.axis_text)
        now = "found before the last edit; running again" if coming == self.last.title else f"shown; running {coming}"
        self.query_one("#sweep-status", Static).update(Text(f"… {self._rows(self.last)} {now}", style="dim"))

    def show(self, result: SweepRun) -> None:
        """Show a run's rows; a run that failed leaves the rows before it marked stale."""
        if result.frame is None:
            if self.stale and self.last is not None and self.last.title == result.title:
                self.query_one("#sweep-status", Static).update(
                    Text(f"… {self._rows(self.last)} found before the last edit; "
                         f"cannot run it again: {result.error}", style="dim"))
                return
            self.last = result
            self._fresh()
            self._show_error(result.error)
            return
        self.last = result
        self._fresh()
        self._fill_choices(result)
        self._fill_table(result)
        self.draw()

    def _show_error(self, message: str) -> None:
        self.query_one("#sweep-status", Static).update(message)
        self.query_one("#sweep-table", DataTable).clear(columns=True)
        plot = self.query_one("#sweep-plot", PlotextPlot)
        plot.plt.clear_data()
        plot.plt.clear_figure()
        plot.refresh()

    def _fresh(self) -> None:
        self.stale = False
        self.remove_class("-stale")

    @staticmethod
    def _rows(result: SweepRun) -> str:
        rows = result.frame.height
        return f"{result.title}: {rows} row{'s' if rows != 1 else ''}"

    def _fill_choices(self, result: SweepRun) -> None:
        frame = result.frame
        numeric_axes = [c for c in result.axes if frame[c].dtype.is_numeric()]
        plottable = [c for c in result.value_cells if
                     (frame[c].dtype.is_numeric() or frame[c].dtype == _bool_dtype())]
        if self.x not in numeric_axes:
            self.x = numeric_axes[0] if numeric_axes else None
        if self.y not in plottable:
            models = list(result.overlay or ())
            self.y = models[0] if models else plottable[-1] if plottable else None
        with self.prevent(Select.Changed):
            y_select = self.query_one("#sweep-y", Select)
            y_select.set_options([(c, c) for c in plottable])
            if self.y is not None:
                y_select.value = self.y
            x_select = self.query_one("#sweep-x", Select)
            x_select.set_options([(c, c) for c in numeric_axes])
            if self.x is not None:
                x_select.value = self.x

    def _fill_table(self, result: SweepRun) -> None:
        frame = result.frame
        table = self.query_one("#sweep-table", DataTable)
        at = table.cursor_column
        table.clear(columns=True)
        said = ""
        if self.sort is not None and self.sort[0] in frame.columns:   # every row, before the first 500 are taken
            frame = frame.sort(self.sort[0], descending=self.sort[1], nulls_last=True, maintain_order=True)
            said = f", sorted by {self.sort[0]} {'↓' if self.sort[1] else '↑'}"
        hidden = [c for c in frame.columns if c in self.hidden]
        if hidden:
            frame = frame.drop(hidden)
            said += f", {len(hidden)} column{'s' if len(hidden) != 1 else ''} hidden (A shows them)"
        for column in frame.columns:
            table.add_column(column, key=column)
        for row in frame.head(MAX_TABLE_ROWS).iter_rows():
            table.add_row(*(_cell(v) for v in row))
        if frame.columns:
            table.move_cursor(column=min(at, len(frame.columns) - 1))
        more = f", first {MAX_TABLE_ROWS} shown" if frame.height > MAX_TABLE_ROWS else ""
        note = f" · {result.note}" if result.note else ""
        self.query_one("#sweep-status", Static).update(f"{self._rows(result)}{more}{said}{note} · S sort, H hide")

    def sort_by(self, column: str) -> None:
        """Sort the rows by `column`, ascending; again, descending."""
        self.sort = (column, not self.sort[1]) if self.sort is not None and self.sort[0] == column else (column, False)
        if self.last is not None and self.last.frame is not None:
            self._fill_table(self.last)

    def hide(self, column: str) -> None:
        self.hidden.add(column)
        if self.last is not None and self.last.frame is not None:
            self._fill_table(self.last)

    def show_all(self) -> None:
        self.hidden.clear()
        if self.last is not None and self.last.frame is not None:
            self._fill_table(self.last)

    def draw(self) -> None:
        plot = self.query_one("#sweep-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        result = self.last
        if result is None or result.frame is None or self.x is None or self.y is None:
            plot.refresh()
            return
        import polars as pl   # deferred: polars
        frame = result.frame
        others = [c for c in result.axes if c != self.x]
        groups = frame.partition_by(others, maintain_order=True, as_dict=True) if others else {(): frame}
        for i, (values, group) in enumerate(groups.items()):
            if i >= MAX_SERIES:
                break
            data = group.select(pl.col(self.x).cast(pl.Float64), pl.col(self.y).cast(pl.Float64)).drop_nulls()
            if data.height == 0:
                continue
            label = ", ".join(f"{column_name(c)}={_cell(v)}" for c, v in zip(others, values)) or None
            beside = (result.overlay or {}).get(self.y)
            if beside is not None:   # a fit: the data as points beside the model's line (the title says which)
                points = group.select(pl.col(self.x).cast(pl.Float64), pl.col(beside).cast(pl.Float64)).drop_nulls()
                plt.scatter(points[self.x].to_list(), points[beside].to_list(), marker="dot")
            plt.plot(data[self.x].to_list(), data[self.y].to_list(), marker="braille", label=label)
        xs = frame[self.x].drop_nulls()
        if xs.len() > 1 and xs.min() > 0 and xs.max() / xs.min() >= 64:
            plt.xscale("log")
        beside = (result.overlay or {}).get(self.y)
        plt.title(f"{self.y} (line), {beside} (dots) vs {self.x}" if beside else f"{self.y} vs {self.x}")
        plot.refresh()

    # events ---------------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value
        if value is Select.BLANK or value is None:
            return
        if event.select.id == "sweep-choice":
            self.choice = str(value)
            self.query_one("#sweep-axis", Input).display = self.choice == ADHOC
            self.post_message(self.RerunRequested())
        elif event.select.id == "sweep-y":
            self.y = str(value)
            self.draw()
        elif event.select.id == "sweep-x":
            self.x = str(value)
            self.draw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.axis_text = event.value.strip()
        self.choice = ADHOC
        self.post_message(self.RerunRequested())


def _bool_dtype():
    import polars as pl   # deferred: polars
    return pl.Boolean


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_number(value, 4)
    return str(value)
