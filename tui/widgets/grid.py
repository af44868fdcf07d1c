"""The grid: every cell of the sheet as a row, grouped as the sheet groups them.

Rows are the sections of `Document.sections()` (a header row each, imports
folded by default), then one row per cell: name, value, (for a sheet with
random draws) the sampled range, change since the last edit, and the formula
or the value as written. This module keeps the grid's state — the sheet,
folded sections, the filter, the last edit's changes, the samples — and its
keys and cursor; rowsview.py draws the rows, rows.py says what they show.
"""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message

from supersheet.editor.document import Change, Document, Section
from supersheet.editor.sample import Samples
from supersheet.editor.verdicts import Verdict

from ..keytable import GRID_KEYS
from .messages import CellMessage
from .render import value_text
from .rows import HEADER, RANGE, Measures, cell_texts, columns_for, dim_column, header_texts
from .rowsview import Row, RowsView
from .samples import range_text


class SheetGrid(RowsView, can_focus=True):
    """Rows of cells with folding sections; a cursor row; Enter or typing edits."""

    BINDINGS = [key.binding() for key in GRID_KEYS]

    COMPONENT_CLASSES = {
        "sheet-grid--header",
        "sheet-grid--section",
        "sheet-grid--cursor",
        "sheet-grid--cursor-blurred",
    }

    DEFAULT_CSS = """
    SheetGrid {
        background: $surface;
    }
    SheetGrid > .sheet-grid--header {
        text-style: bold;
        color: $text-muted;
        background: $panel;
    }
    SheetGrid > .sheet-grid--section {
        text-style: bold;
        color: $accent;
    }
    SheetGrid > .sheet-grid--cursor {
        background: $primary 45%;
    }
    SheetGrid > .sheet-grid--cursor-blurred {
        background: $primary 20%;
    }
    """

    class EditRequested(Message):
        """Enter or typing on a cell row: open the editor (with `initial` typed)."""

        def __init__(self, key: str, initial: str | None = None) -> None:
            super().__init__()
            self.key = key
            self.initial = initial

    class CellChosen(CellMessage):
        """The cursor moved onto a row (key None: a section header)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document: Document | None = None
        self.sections: list[Section] = []
        self.folded: set[str] = set()
        self.filter_text = ""
        # rows a filter shows whether they match or not: a cell just added, renamed or
        # gone to (and a group's row gone to), until the filter's text changes
        self.pinned: set[str] = set()
        self.changes: dict[str, Change] = {}
        self.problems: set[str] = set()     # cells a diagnostic points into (marked !)
        self.failing: set[str] = set()      # cells whose values their `expect` does not accept (✗)
        self.verdicts: dict[str, list[Verdict]] = {}   # by cell: what fails in sweeps, solves, samples
        self.samples: Samples | None = None
        self.samples_pending = False
        self._index: dict[str, int] = {}
        self._section_of: dict[str, Section] = {}
        self.measures: Measures | None = None
        self._chosen: str | None = None     # the row the last CellChosen was about

    # content --------------------------------------------------------------------
    def load(self, document: Document, keep_state: bool = False) -> None:
        """Show `document` (a newly opened sheet, or one rebuilt after an edit)."""
        folded = set(self.folded)
        self.document = document
        self.sections = document.sections()
        self._section_of = {k: s for s in self.sections for k in s.keys}
        if keep_state:
            ids = {s.id for s in self.sections}
            self.folded = {f for f in folded if f in ids}
        else:
            self.folded = {s.id for s in self.sections if s.kind == "import"}
            self.changes = {}
            self.cursor = 0
        self.problems, self.failing = self._marks(document)
        self._measure()
        self.populate()

    def _measure(self) -> None:
        document = self.document
        assert document is not None
        self.columns = columns_for(document)
        self.measures = Measures(document)
        self._preferred = self.measures.preferred(self.samples)
        self.widths = self._fit()
        self._strips.clear()

    def populate(self) -> None:
        """Rebuild the list of rows (after a fold, a filter or a new document)."""
        current = self.current_row_key
        self.rows = []
        self.forget_rows()
        if self.document is None:
            self._resized()
            return
        needle = self.filter_text.lower()
        for section in self.sections:
            keys = [k for k in section.keys if k in self.pinned or self.matches(k, needle)] if needle \
                else section.keys
            if needle and not keys and HEADER + section.id not in self.pinned:
                continue
            self.rows.append(Row(HEADER + section.id, section))
            if section.id in self.folded and not needle:
                continue
            self.rows.extend(Row(k, section) for k in keys)
        self._index = {row.key: i for i, row in enumerate(self.rows)}
        self._resized()
        if current is not None and current in self._index:
            self._set_cursor(self._index[current])
        else:
            first = next((i for i, row in enumerate(self.rows) if not row.key.startswith(HEADER)), 0)
            self._set_cursor(first if current is None else min(self.cursor, max(len(self.rows) - 1, 0)))
        self.refresh()

    def set_samples(self, samples: Samples | None, pending: bool = False) -> None:
        """Show the sampled ranges (`pending`: dimmed, new samples are on their way)."""
        if samples is self.samples and pending == self.samples_pending:
            return
        keys: set[str] = set()
        for known in (self.samples, samples):
            if known is not None and known.sampled is not None:
                keys |= known.uncertain
        if samples is self.samples:
            # only dimmed or not: the rows are drawn again from their strips (_strip),
            # not rendered again: this repaint comes while the user may be typing
            self.samples_pending = pending
            self.repaint_rows(keys)
            return
        self.samples, self.samples_pending = samples, pending
        if self.measures is not None and not pending:   # (a document is shown)
            self._preferred = self.measures.preferred(samples)   # the range column fits the new ranges
            self.relayout()
        # new samples come while the user may be typing: only the rows whose range
        # reads otherwise are rendered again, the rest drawn again from their strips
        changed = self._ranges_changed(keys)
        self.refresh_values(changed | {row.key for row in self.rows if row.key.startswith(HEADER)})
        self.repaint_rows(keys - changed)

    def _ranges_changed(self, keys: set[str]) -> set[str]:
        """Of these rows, all but those on screen whose sampled range is the text
        they show (the only part of a cell's row that its samples change)."""
        document = self.document
        if document is None or RANGE not in self.columns:
            return set(keys)
        at = self.columns.index(RANGE)
        changed = set()
        top, bottom = self._rows_on_screen()
        for key in keys:
            shown, index = self._texts.get(key), self.index_of(key)
            if index is None or not top <= index < bottom or shown is None or key not in self._strips \
                    or not document.has_cell(key) or shown[at] != range_text(document, key, self.samples):
                changed.add(key)
        return changed

    def set_verdicts(self, verdicts: dict[str, list[Verdict]]) -> None:
        """Mark the cells whose expectations fail in a sweep, solve or choice, or over the samples."""
        previous, self.verdicts = set(self.verdicts), verdicts
        self.refresh_values(previous | set(verdicts))

    def show_changes(self, changes: dict[str, Change], also: list[str] | None = None) -> None:
        """After an edit that kept the rows (`Document.layout`: only values and the
        edited cell's text changed): highlight the values it changed, clearing the
        previous edit's highlights, and draw again the rows whose texts may differ —
        those, the cells `also` (the edited one), the cells whose ! or ✗ came or went
        (assumptions and expectations follow the values) and the group rows ("checks
        3/4 pass"). The others keep their rendered lines: drawing every row again
        would cost the UI thread most of an edit. With a filter, the rows are
        filtered again (it finds values as shown)."""
        document, measures = self.document, self.measures
        assert document is not None and measures is not None
        previous = set(self.changes)
        self.changes = dict(changes)
        problems, failing = self._marks(document)
        marked = (problems ^ self.problems) | (failing ^ self.failing)
        self.problems, self.failing = problems, failing
        headers = {row.key for row in self.rows if row.key.startswith(HEADER)}
        keys = previous | set(changes) | set(also or ()) | marked | headers
        self.refresh_values(keys)
        measures.update(set(changes) | set(also or ()))
        self._preferred = measures.preferred(self.samples)
        self.relayout()             # (new widths: every row is drawn again)
        if self.filter_text:        # the filter finds values as shown: which rows match may have changed
            self.populate()

    @staticmethod
    def _marks(document: Document) -> tuple[set[str], set[str]]:
        """The cells a diagnostic points into, and those failing their `expect`."""
        problems = {k for k in (document.cell_at(d.span) for d in document.diagnostics) if k}
        return problems, set(document.failing())

    # cell texts --------------------------------------------------------------------
    def row_texts(self, key: str) -> tuple[Text, ...]:
        document = self.document
        assert document is not None
        if key.startswith(HEADER):
            section = self.rows[self._index[key]].section
            folded = section.id in self.folded and not self.filter_text
            return header_texts(document, section, folded, self.columns)
        verdicts = self.verdicts.get(key, [])
        return cell_texts(document, key, self.changes.get(key), key in self.problems,
                          any(not v.stale for v in verdicts), self.samples, self.columns,
                          stale=bool(verdicts) and all(v.stale for v in verdicts))

    def _strip(self, key: str):
        strip = super()._strip(key)
        if self.samples_pending and RANGE in self.columns and self.samples is not None \
                and key in self.samples.uncertain:
            return dim_column(strip, self.widths, self.columns.index(RANGE))
        return strip

    # cursor -----------------------------------------------------------------------------
    @property
    def current_row_key(self) -> str | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor].key
        return None

    @property
    def current_key(self) -> str | None:
        """The cell under the cursor (None on a section header)."""
        key = self.current_row_key
        return None if key is None or key.startswith(HEADER) else key

    def index_of(self, key: str) -> int | None:
        return self._index.get(key)

    def _set_cursor(self, index: int) -> None:
        index = max(0, min(index, len(self.rows) - 1)) if self.rows else 0
        row = self.rows[index].key if self.rows else None
        # another row, or another cell at the same index: a filter or a fold rebuilt the rows
        # (`/name` whose match lands where the cursor was left the formula bar on the old cell)
        changed = index != self.cursor or row != self._chosen
        previous, top = self.cursor, self.scroll_offset.y
        self.cursor = index
        self._scroll_cursor_visible()
        if self.scroll_offset.y == top:   # only the two cursor rows look different
            self.refresh_line(previous + 1)
            self.refresh_line(index + 1)
        else:
            self.refresh()
        if changed:
            self._chosen = row
            self.post_message(self.CellChosen(self.current_key))

    def action_cursor(self, step: int) -> None:
        self._set_cursor(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self.cursor + direction * max(self.scrollable_content_region.height - 2, 1))

    def action_first(self) -> None:
        self._set_cursor(0)

    def action_last(self) -> None:
        self._set_cursor(len(self.rows) - 1)

    def go_to(self, key: str) -> None:
        """Move the cursor to a cell, unfolding its section if needed. A filter that
        hides the cell stays (its field still says it), and the cell shows among its rows."""
        section = self._section_of.get(key)
        changed = False
        if section is not None and section.id in self.folded:
            self.folded.discard(section.id)
            changed = True
        if self.filter_text and key not in self._index:
            self.pinned.add(key)
            changed = True
        if changed:
            self.populate()
        if key in self._index:
            self._set_cursor(self._index[key])

    def go_to_row(self, index: int) -> None:
        """Move the cursor to a row (a group's title row, say)."""
        self._set_cursor(index)

    def has_section(self, section_id: str) -> bool:
        return any(s.id == section_id for s in self.sections)

    def go_to_section(self, section_id: str) -> None:
        """Move the cursor to a group's row (an import's), shown among a filter's rows if it hides it."""
        if HEADER + section_id not in self._index and self.filter_text:
            self.pinned.add(HEADER + section_id)
            self.populate()
        if HEADER + section_id in self._index:
            self._set_cursor(self._index[HEADER + section_id])

    def matches(self, key: str, needle: str) -> bool:
        """The filter finds a cell by its name, its formula or value as written, or its value as shown."""
        document = self.document
        if needle in key.lower() or document is None:
            return needle in key.lower()
        return needle in document.raw_text(key).lower() or needle in value_text(document, key).plain.lower()

    def set_filter(self, text: str) -> None:
        """Show the cells that match `text`. The cell named exactly `text` is selected
        (`/attn_weights` Enter is that cell, not the first formula that names it); else
        the selected row stays when its name matches; else the first cell whose name
        matches, before one whose formula or value only mentions the text; else the
        first match (not whatever row its index now falls on: Del or typing right after
        the filter would hit a cell the user did not look for)."""
        shown = self.current_row_key
        if text != self.filter_text:
            self.pinned = set()
        self.filter_text = text
        self.populate()
        if not text:
            return
        needle = text.lower()
        cells = [(i, row.key) for i, row in enumerate(self.rows) if not row.key.startswith(HEADER)]
        exact = next((i for i, key in cells if key.lower() == needle), None)
        named = next((i for i, key in cells if needle in key.lower()), None)
        if exact is not None:
            self._set_cursor(exact)
        elif shown is not None and shown in self._index and (needle in shown.lower() or named is None):
            return      # still shown, and by its name (or no name has the text)
        elif named is not None:
            self._set_cursor(named)
        elif cells:
            self._set_cursor(cells[0][0])

    def action_toggle_section(self) -> None:
        key = self.current_row_key
        if key is None:
            return
        row = self.rows[self.cursor]
        section = row.section
        if section.id in self.folded:
            self.folded.discard(section.id)
        else:
            self.folded.add(section.id)
        self.populate()
        self._set_cursor(self._index.get(HEADER + section.id, 0))

    def action_select(self) -> None:
        key = self.current_row_key
        if key is None:
            return
        if key.startswith(HEADER):
            self.action_toggle_section()
        else:
            self.post_message(self.EditRequested(key))

    # events -------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = self.scroll_offset.y + offset.y - 1
        if not 0 <= index < len(self.rows):
            return
        if index == self.cursor:
            self.action_select()
        else:
            self._set_cursor(index)
