"""The diff view: what the unsaved sheet changes against the saved file or
git HEAD, grouped as `supersheet diff` groups it (results first, the largest
relative change first), one row per cell; choosing a row goes to its cell (an
import's row to its group, a part's title to its first row; what is not in the
sheet now, as a removed cell, is said in the inspector).
The app computes the comparison (supersheet.editor.baselines) in a worker and reruns it
after every edit while the view is open."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Select, Static

from supersheet.compare import SECTIONS, Change, arrowed, percent_text as percent
from supersheet.editor.baselines import HEAD, SAVED, Comparison
from supersheet.errors import render_diagnostic

from .render import DOWN_STYLE, FAIL_STYLE, UP_STYLE

AGAINST = [("against the saved file", SAVED), ("against git HEAD", HEAD)]
COLUMNS = ("cell", "was", "now", "Δ", "Δ%")
SECTION_STYLE = "bold"
SHORT = {"results": ("result", "results"), "checks": ("check flipped", "checks flipped"),
         "expectations": ("expectation failing", "expectations failing"), "inputs": ("input", "inputs"),
         "formulas": ("formula", "formulas"), "renamed": ("renamed", "renamed"), "imports": ("import", "imports"),
         "added": ("added", "added"), "removed": ("removed", "removed")}


class DiffView(Vertical):
    class Chosen(Message):
        """A row was chosen: the app finds where it is (editor/places.py `change_place`)."""

        def __init__(self, attr: str, change: Change, label: str) -> None:
            super().__init__()
            self.attr = attr
            self.change = change
            self.label = label

    class AgainstChanged(Message):
        """The user chose another baseline; the app compares again."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "diff"
        self.against = SAVED
        self.last: Comparison | None = None
        self.targets: dict[str, str] = {}     # row key -> cell name
        self.changes: dict[str, tuple[str, Change]] = {}   # row key (a part's title too) -> its part, the change

    def compose(self) -> ComposeResult:
        with Horizontal(id="diff-controls"):
            yield Select(AGAINST, value=SAVED, allow_blank=False, id="diff-against", compact=True)
            yield Static("", id="diff-summary")
        yield DataTable(id="diff-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="diff-message")

    def choose(self, against: str) -> None:
        self.against = against
        with self.prevent(Select.Changed):
            self.query_one("#diff-against", Select).value = against

    def pending(self) -> None:
        """A comparison is running: say so until it is shown."""
        self.query_one("#diff-summary", Static).update(Text("comparing…", style="dim"))

    # showing a comparison ---------------------------------------------------------------
    def show(self, comparison: Comparison) -> None:
        self.last = comparison
        self.border_title = f"diff · unsaved against {comparison.label}"
        table = self.query_one("#diff-table", DataTable)
        table.clear(columns=True)
        self.targets, self.changes = {}, {}
        diff = comparison.diff
        summary = self.query_one("#diff-summary", Static)
        message = self.query_one("#diff-message", Static)
        if diff is None:
            summary.update("")
            table.display = False
            message.update(Text(comparison.message, style="yellow"))
            message.display = True
            return
        problems = [(label, d) for label, ds in ((diff.old_label, diff.old_problems),
                                                 (diff.new_label, diff.new_problems)) for d in ds]
        if problems:
            text = Text()
            for label, d in problems:
                text.append(f"{label} does not check:\n", style=FAIL_STYLE)
                text.append((render_diagnostic(d, comparison.sources) if comparison.sources else d.headline()) + "\n")
            summary.update(Text("one side does not check", style=FAIL_STYLE))
            table.display = False
            message.update(text)
            message.display = True
            return
        counts = []
        rows: list[tuple[str, tuple[Text, ...]]] = []
        for attr, title in SECTIONS:
            changes: list[Change] = getattr(diff, attr)
            if not changes:
                continue
            counts.append(f"{len(changes)} {SHORT[attr][len(changes) != 1]}")
            rows.append((f"§{attr}", (Text(title, style=SECTION_STYLE), *[Text("")] * (len(COLUMNS) - 1))))
            self.changes[f"§{attr}"] = (attr, changes[0])     # a part's title: its first row
            for i, change in enumerate(changes):
                row_key = f"{attr}:{i}"
                rows.append((row_key, tuple(c if isinstance(c, Text) else Text(c) for c in _row(attr, change))))
                self.targets[row_key] = change.name.split(" -> ")[-1].split("[")[0]
                self.changes[row_key] = (attr, change)
        # the columns fit the panel, a long formula cut with …: the table never scrolls sideways
        room = (self.size.width or self.app.size.width) - 2 - 2 * table.cell_padding * len(COLUMNS)
        widths = fit_widths([max([len(c)] + [cells[i].cell_len for _, cells in rows]) for i, c in enumerate(COLUMNS)],
                            room)
        for column, width in zip(COLUMNS, widths):
            table.add_column(column, key=column, width=width)
        for row_key, cells in rows:
            table.add_row(*[_cut(cell, width) for cell, width in zip(cells, widths)], key=row_key)
        unchanged = f"{diff.unchanged} unchanged"
        summary.update(Text(" · ".join(counts + [unchanged]) if counts else f"no differences · {unchanged}",
                            style="" if counts else "green"))
        table.display = bool(counts)
        message.display = False

    def on_resize(self) -> None:
        if self.last is not None and self.display:
            self.show(self.last)          # the columns fit the new width

    def rows(self) -> list[str]:
        """The table as plain text lines, cells separated by ' | ' (for tests and tools)."""
        table = self.query_one("#diff-table", DataTable)
        return [" | ".join(str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(i)).rstrip(" |")
                for i in range(table.row_count)]

    # events ---------------------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value in (SAVED, HEAD) and event.value != self.against:
            self.against = str(event.value)
            self.post_message(self.AgainstChanged())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        chosen = self.chosen_of(str(event.row_key.value))
        if chosen is not None:
            self.post_message(chosen)

    def chosen_at_cursor(self) -> DiffView.Chosen | None:
        """The change of the table's cursor row, as Enter on it would choose it."""
        table = self.query_one("#diff-table", DataTable)
        if not table.row_count:
            return None
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return self.chosen_of(str(row_key.value))

    def chosen_of(self, row_key: str) -> DiffView.Chosen | None:
        chosen = self.changes.get(row_key)
        if chosen is None or self.last is None or self.last.diff is None:
            return None
        attr, change = chosen
        return self.Chosen(attr, change, self.last.diff.old_label)


def fit_widths(natural: list[int], room: int, least: int = 6) -> list[int]:
    """Column widths that fit `room`: the natural ones when they do, else the widest
    cut first (a long formula gives way before a name or a percentage), none under
    `least` (nor under its natural width when that is smaller)."""
    widths = list(natural)
    while sum(widths) > room:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= least:
            break
        widths[widest] -= 1
    return widths


def _cut(text: Text, width: int) -> Text:
    """`text` in `width` cells, ending in … when it is longer."""
    if text.cell_len <= width:
        return text
    cut = text.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut


def _row(attr: str, change: Change) -> tuple[Text | str, ...]:
    name = Text(change.name)
    if attr in ("results", "inputs", "checks"):
        arrow, style = _direction(change)
        delta = Text(arrowed(change) if change.delta else arrow, style=style)
        was, now = Text(change.old or ""), Text(change.new or "", style="bold")
        if attr == "checks":
            failed = (change.new or "").lower() in ("false", "✗ fail")
            now.stylize(FAIL_STYLE if failed else "bold green")
        return name, was, now, delta, Text(percent(change), style=style)
    if attr == "expectations":
        return name, Text(change.old or "", style="dim"), Text(f"got {change.new}", style=FAIL_STYLE), \
            Text(change.note, style="dim"), ""
    if attr == "added":
        return name, "", Text(change.new or "", style="bold"), Text("added", style="dim"), ""
    if attr == "removed":
        return name, Text(change.old or ""), "", Text("removed", style="dim"), ""
    if attr == "imports":
        return name, change.old or "", change.new or "", Text(change.note, style="dim"), ""
    return name, change.old or "", change.new or "", "", ""


def _direction(change: Change) -> tuple[str, str]:
    if change.relative is None:
        return "•", "yellow"
    if change.relative > 0:
        return "↑", UP_STYLE
    if change.relative < 0:
        return "↓", DOWN_STYLE
    return "→", ""
