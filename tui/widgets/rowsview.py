"""Drawing the grid: a scrolling list of rows under a header of column
titles, each row rendered once into a cached strip and re-rendered only when
its texts change, with one cursor row. The grid (grid.py) subclasses it with
the sheet's state, folding, filtering and keys; what a row shows is in rows.py.

A line-API widget rather than a DataTable: an edit re-renders only the rows
whose values changed, so the new values reach the screen within a frame or
two even on long sheets.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, messages
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from supersheet.editor.document import Section

from .rows import HEADER, PAD, Column, Preferred, compose_line, fit


@dataclass
class Row:
    key: str              # a cell key, or HEADER + section id
    section: Section


def same_texts(new: tuple[Text, ...], old: tuple[Text, ...]) -> bool:
    """Whether two rows' texts draw the same: their characters and styles, not only
    what `Text.__eq__` compares (the text and its spans, not its own style: a value
    highlighted as changed and the same value plain are equal to it)."""
    return len(new) == len(old) and all(
        a.plain == b.plain and a.style == b.style and a.spans == b.spans and a.justify == b.justify
        and a.overflow == b.overflow and a.no_wrap == b.no_wrap and a.end == b.end
        for a, b in zip(new, old))


class RowsView(ScrollView):
    """Rows of texts in columns; subclasses say what a row's texts are (`row_texts`)."""

    HEADER_STYLE = "sheet-grid--header"
    SECTION_STYLE = "sheet-grid--section"
    CURSOR_STYLE = "sheet-grid--cursor"
    BLURRED_CURSOR_STYLE = "sheet-grid--cursor-blurred"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Row] = []
        self.cursor = 0
        self.columns: tuple[Column, ...] = ()
        self.widths: list[int] = []
        self._preferred = Preferred()
        self._strips: dict[str, Strip] = {}
        self._texts: dict[str, tuple[Text, ...]] = {}
        self._style = Style()
        self._cursor_bg: Style | None = None        # the cursor's background (per repaint: focused or not)
        self._line_width = 0            # the width rows are cropped to (per repaint)
        self.formulas_shown_by: Widget | None = None   # a panel that, when shown, shows the cell's formula

    def row_texts(self, key: str) -> tuple[Text, ...]:
        """The texts of the row `key` (a cell, or HEADER + a section's id)."""
        raise NotImplementedError

    # texts ---------------------------------------------------------------------------
    def texts(self, key: str) -> tuple[Text, ...]:
        """The column texts of a row (cached until the row changes)."""
        texts = self._texts.get(key)
        if texts is None:
            texts = self._texts[key] = self.row_texts(key)
        return texts

    def row_text(self, key: str) -> str:
        """A row as plain text, columns separated by ' | ' (for tests and tools)."""
        return " | ".join(t.plain for t in self.texts(key))

    def refresh_values(self, keys) -> None:
        """Re-render these rows where their texts changed. Only the lines of those on
        screen are repainted (repainting the whole grid would cost a frame's worth of
        time on an edit), and of those only the rows whose texts now read otherwise: a
        group's title row or a cell whose mark came and went the same way keeps its
        strip (composing a row costs more than finding its texts; an edit of one input
        asked for every group's row, and for each redrawn row the frame also draws the
        widgets between it and the status line). The rows off screen are rendered
        when they show."""
        top, bottom = self._rows_on_screen()
        repaint = []
        for key in keys:
            index = self.index_of(key)
            shown = self._texts.get(key) if key in self._strips else None
            if shown is None or index is None or not top <= index < bottom:
                self._strips.pop(key, None)
                self._texts.pop(key, None)
                repaint.append(key)
                continue
            texts = self.row_texts(key)
            if not same_texts(texts, shown):
                self._texts[key] = texts
                del self._strips[key]
                repaint.append(key)
        self.repaint_rows(repaint)

    def repaint_rows(self, keys) -> None:
        """Draw these rows again (those on screen), from their cached strips."""
        self._forget_painted_repaints()
        top, bottom = self._rows_on_screen()
        lines = [index + 1 for index in map(self.index_of, keys) if index is not None and top <= index < bottom]
        if not lines:
            return
        # (line 0 is the column titles) one refresh for them all: each clears the widget's caches
        width, scroll_y = max(self.virtual_size.width, self.size.width), self.scroll_offset.y
        self.refresh(*(Region(0, line - scroll_y, width, 1) for line in lines))   # (as refresh_line)
        if self.is_mounted:
            # the screen learns now, not at the grid's next idle, that it has rows to paint:
            # else it may find nothing to paint first and run the callbacks meant for after
            # this frame (`call_after_refresh`: the title, the editor bar and the status line,
            # the focus's return) before it, and paint them with the rows (a full repaint)
            self.screen.post_message(messages.Update(self))

    def _forget_painted_repaints(self) -> None:
        """Drop a whole-widget repaint Textual kept after painting it. A frame that
        repaints the whole screen (opening the cell editor moves the focus: the grid's
        refresh on blur, then the screen's) clears the screen's dirty widgets without
        taking their regions, so the grid's whole rectangle stayed pending until its next
        repaint: the edit's frame then re-rendered every widget overlapping it (header
        to status line) to show a few changed rows. Only when every line of the grid
        has been rendered since (no dirty line in its styles cache) is that region
        already on screen; otherwise it is kept."""
        if self._repaint_regions and not self._styles_cache._dirty_lines:
            self._exchange_repaint_regions()

    def on_screen(self, index: int | None) -> bool:
        """Whether the row at `index` in `rows` is on screen now."""
        top, bottom = self._rows_on_screen()
        return index is not None and top <= index < bottom

    def _rows_on_screen(self) -> tuple[int, int]:
        """The first row on screen and the one after the last (a widget's region is
        looked up in the screen's map: once per repaint, not once per row)."""
        top = self.scroll_offset.y
        return top, top + self.scrollable_content_region.height - 1

    def index_of(self, key: str) -> int | None:
        """The position of the row `key` in `rows` (None when it is not shown)."""
        raise NotImplementedError

    def forget_rows(self) -> None:
        self._strips.clear()
        self._texts.clear()

    @property
    def row_count(self) -> int:
        return len(self.rows)

    # layout --------------------------------------------------------------------------
    def _fit(self) -> list[int]:
        inner = self.scrollable_content_region.width or (self.app.size.width - 4)
        return fit(self.columns, self._preferred, inner, self.formulas_elsewhere)

    @property
    def formulas_elsewhere(self) -> bool:
        """Whether a panel beside the rows shows the selected cell's formula."""
        panel = self.formulas_shown_by
        return panel is not None and panel.display

    def relayout(self) -> bool:
        """Fit the columns to the width again; True when they changed."""
        widths = self._fit()
        if widths == self.widths:
            return False
        self.widths = widths
        self._strips.clear()
        self._resized()
        self.refresh()
        return True

    def _resized(self) -> None:
        width = sum(self.widths) + 2 * PAD * len([w for w in self.widths if w > 0])
        self.virtual_size = Size(width, len(self.rows) + 1)

    def on_resize(self, event: events.Resize) -> None:
        if self.columns and self.relayout():
            self.refresh()
        self._scroll_cursor_visible()

    # drawing -------------------------------------------------------------------------
    def _strip(self, key: str) -> Strip:
        strip = self._strips.get(key)
        if strip is None:
            header = key.startswith(HEADER)
            base = self.get_component_rich_style(self.SECTION_STYLE) if header else Style()
            strip = self._strips[key] = compose_line(self.texts(key), self.widths, self.app.console, base, header)
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self._line_width
        style = self._style   # (computed once per repaint: `rich_style` walks the ancestors each time)
        if y == 0:
            header_style = self.get_component_rich_style(self.HEADER_STYLE)
            titles = tuple(Text(column.title) for column in self.columns)
            strip = compose_line(titles, self.widths, self.app.console)
            return strip.crop_extend(scroll_x, scroll_x + width, header_style).apply_style(header_style)
        index = scroll_y + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, style)
        strip = self._strip(self.rows[index].key).crop_extend(scroll_x, scroll_x + width, style)
        if index == self.cursor:
            # the cursor's background over the row's own (a group's row has one), its colours kept
            strip = Strip(Segment.apply_style(list(strip), post_style=self._cursor_bg), strip.cell_length)
        return strip.apply_style(style)

    def render_lines(self, crop):
        # focus changes restyle the widget too; rows are re-rendered only when
        # the styles they are drawn with really changed (a theme change). What
        # every line needs is looked up once per repaint: a repaint while the
        # user types should cost only its rows
        self._style = self.rich_style
        self._line_width = self.scrollable_content_region.width
        cursor = self.get_component_rich_style(self.CURSOR_STYLE if self.has_focus else self.BLURRED_CURSOR_STYLE)
        self._cursor_bg = Style(bgcolor=cursor.bgcolor)
        key = (self.get_component_rich_style(self.SECTION_STYLE), self._style)
        if key != getattr(self, "_style_key", None):
            self._style_key = key
            self._strips.clear()
        return super().render_lines(crop)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _scroll_cursor_visible(self) -> None:
        visible = max(self.scrollable_content_region.height - 1, 1)
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)
