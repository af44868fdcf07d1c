"""What a row of the grid shows and how its columns are laid out: the texts
of a cell row and of a section header, the column widths for the grid's
width, and a row composed into a strip. Functions of the document and the
grid's state; the widget (grid.py) keeps the state, the cursor and the cache.

Columns: the cell's name, its value (deterministic: every random draw at its
mean), for a sheet with random draws the sampled mean with p5 … p95, the
change since the last edit, and the formula or the value as written.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from supersheet.editor.document import Change, Document, Section
from supersheet.editor.sample import Samples

from .render import change_text, value_text
from .samples import range_text


@dataclass(frozen=True)
class Column:
    id: str
    title: str


NAME = Column("name", "cell")
VALUE = Column("value", "value")
RANGE = Column("range", "sampled: mean (p5 … p95)")
CHANGE = Column("change", "change")
FORMULA = Column("formula", "formula / as written")

HEADER = "§"          # a section header row's key: HEADER + the section's id
CHANGE_WIDTH = 22     # the change column's share when room is short ("↑ 300% was 1.577 GB")
CHANGE_WORDS = 15     # its text beside the old value: "↑ 1.23e+04% was "
RANGE_WIDTH = 26
MIN_FORMULA = 12
NARROW_FORMULA = 20   # what the change column and the names give way to, on a narrow terminal (80 columns)
NARROW_CHANGE = 8     # the change column at its narrowest beside formulas: its arrow and percent ("↑ 300%")
FORMULA_FIRST = 40    # the formula column's room before the change column grows past CHANGE_WIDTH
MIN_CHANGE = 12
MIN_NAME = 8
MIN_RANGE = 16        # a sampled range cut to its mean and p5 ("1.234 GB (1.1 …"), beside formulas at 80 columns
NARROW_VALUE = 16     # what long values (lists) shrink to (cut with …) so that formulas keep MIN_FORMULA beside ranges
NARROW_NAME = 18      # and the names, last
PAD = 1


def columns_for(document: Document) -> tuple[Column, ...]:
    if document.has_draws:
        return NAME, VALUE, RANGE, CHANGE, FORMULA
    return NAME, VALUE, CHANGE, FORMULA


@dataclass(frozen=True)
class Preferred:
    """The widths the content asks for; `least_name` is what names may shrink to."""

    name: int = 16
    value: int = 10
    least_name: int = 14
    range: int = RANGE_WIDTH
    change: int = CHANGE_WIDTH      # the widest change: its words and the widest old value
    formula: int = 40               # the widest formula (or value as written)


class Measures:
    """How long every cell's value and text as written are, as the grid shows
    them: measured once when a sheet is shown, then only for the cells an edit
    changed (measuring every value again would cost an edit as much as showing it)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.names = [len(k) for k in document.keys()]
        self.own = [len(k) for k in document.keys() if "." not in k]
        self.values = {k: len(value_text(document, k).plain) for k in document.keys()}
        self.written = {k: len(document.raw_text(k)) for k in document.keys()}
        self._ranges: tuple[Samples, int] | None = None     # the samples last measured, their range width

    def update(self, keys) -> None:
        """Measure these cells again (their values or texts changed)."""
        document = self.document
        for key in keys:
            if document.has_cell(key):
                self.values[key] = len(value_text(document, key).plain)
                self.written[key] = len(document.raw_text(key))

    def preferred(self, samples: Samples | None = None) -> Preferred:
        document = self.document
        name = max(16, min(34, max(self.names, default=10) + 2))
        own = max(14, min(name, max(self.own, default=10) + 2))
        value = max(10, min(24, max(self.values.values(), default=8) + 3))
        formula = max(MIN_FORMULA, min(80, max(self.written.values(), default=10) + 6))
        return Preferred(name, value, own, self.range_width(samples), max(CHANGE_WIDTH, CHANGE_WORDS + value),
                         formula)

    def range_width(self, samples: Samples | None) -> int:
        """The width the sampled ranges ask for: measured once per `samples` (an
        edit of a value measures the others again, but its samples are the same
        until they are sampled again)."""
        if samples is None or samples.sampled is None:
            return RANGE_WIDTH
        if self._ranges is None or self._ranges[0] is not samples:
            document = self.document
            shown = (range_text(document, k, samples).cell_len for k in samples.uncertain if document.has_cell(k))
            self._ranges = (samples, max(16, min(34, max(shown, default=RANGE_WIDTH - 1) + 1)))
        return self._ranges[1]


def fit(columns: tuple[Column, ...], want: Preferred, inner: int, formulas_elsewhere: bool = False) -> list[int]:
    """Column widths for `inner` cells of width: the formula column takes what
    is left; when that is less than NARROW_FORMULA, the change column and then
    the names give way (an 80-column terminal shows 20 characters of formula); with no room for formulas at all (the inspector shows them), the
    change column takes the rest, or goes too; the value column always shows.
    Spare width goes to the change and formula columns, in turn: the formula
    column first up to FORMULA_FIRST (or its content, when narrower), then the
    change column up to its content (the widest old value after "↑ 300% was"),
    then the formula column again, to the edge. On a sheet with draws, the ranges
    and values give way to keep formulas (`_ranges_give_way`), unless a panel
    beside the grid shows the formula (`formulas_elsewhere`)."""
    fixed = want.value + (want.range if RANGE in columns else 0)
    name, change = want.name, CHANGE_WIDTH
    pads = 2 * PAD * len(columns)
    formula = inner - name - fixed - change - pads
    short = max(0, NARROW_FORMULA - formula)
    cut = min(short, change - NARROW_CHANGE)
    change, short = change - cut, short - cut
    cut = min(short, name - want.least_name)
    name = name - cut
    formula = inner - name - fixed - change - pads
    if formula < MIN_FORMULA and RANGE in columns and not formulas_elsewhere:
        narrow = _ranges_give_way(columns, want, inner)
        if narrow is not None:
            return narrow
    if formula < MIN_FORMULA:
        # no room for formulas (the inspector shows them): the change column takes
        # the rest; with too little for it too, it goes and the names shrink, so
        # that the values always show
        formula = 0
        room = inner - fixed - 2 * PAD * (len(columns) - 2) - name    # beside names and fixed columns
        if room - 2 * PAD >= MIN_CHANGE:
            change = min(CHANGE_WIDTH, room - 2 * PAD)
        else:
            change = 0
            name = max(MIN_NAME, min(name, name + room))
    elif change == CHANGE_WIDTH:
        grow = max(0, min(want.change - change, formula - min(want.formula, FORMULA_FIRST)))
        change, formula = change + grow, formula - grow
    value = want.value
    widths = {NAME: name, VALUE: value, RANGE: want.range, CHANGE: change, FORMULA: formula}
    over = sum(widths[c] + 2 * PAD for c in columns if widths[c] > 0) - inner
    if over > 0:   # the last resort: long values are cut (with an ellipsis), never hidden
        widths[VALUE] = max(MIN_NAME, value - over)
    return [widths[c] for c in columns]


def _ranges_give_way(columns: tuple[Column, ...], want: Preferred, inner: int) -> list[int] | None:
    """Widths on a narrow terminal for a sheet with random draws, where the ranges
    would leave formulas no room (an 80-column terminal): the change column goes,
    the ranges shrink to MIN_RANGE, then the values to NARROW_VALUE, then the names
    to NARROW_NAME (each cut with …), so that the formula column keeps MIN_FORMULA and takes the rest. None when
    even that leaves formulas too little (the caller then gives them up)."""
    name, value, range_ = want.name, want.value, want.range
    formula = inner - name - value - range_ - 2 * PAD * (len(columns) - 1)
    cut = min(max(0, MIN_FORMULA - formula), max(0, range_ - MIN_RANGE))
    range_, formula = range_ - cut, formula + cut
    cut = min(max(0, MIN_FORMULA - formula), max(0, value - NARROW_VALUE))
    value, formula = value - cut, formula + cut
    cut = min(max(0, MIN_FORMULA - formula), max(0, name - NARROW_NAME))
    name, formula = name - cut, formula + cut
    if formula < MIN_FORMULA:
        return None
    widths = {NAME: name, VALUE: value, RANGE: range_, CHANGE: 0, FORMULA: formula}
    return [widths[c] for c in columns]


def header_texts(document: Document, section: Section, folded: bool, columns: tuple[Column, ...]) -> tuple[Text, ...]:
    marker = "▸ " if folded else "▾ "
    texts = {c: Text("") for c in columns}
    if section.kind == "import":
        label = Text(marker + section.alias)
        label.append(f" ({len(section.keys)})", style="dim")
        title = section.title.split(" · ", 1)[-1] if " · " in section.title else ""
        texts.update({NAME: label, CHANGE: Text("imported", style="dim"), FORMULA: Text(title, style="dim italic")})
    elif section.kind == "checks":
        passed = sum(document.value(k) is True for k in section.keys)
        label = Text(marker + section.title)
        verb = "pass" if section.id == "checks" else "hold"
        label.append(f" {passed}/{len(section.keys)} {verb}", style="dim" if passed == len(section.keys) or
                     section.id == "checks" else "bold red")
        texts[NAME] = label
    else:
        texts[NAME] = Text(marker + section.title)
    return tuple(texts[c] for c in columns)


def cell_texts(document: Document, key: str, change: Change | None, bad: bool, marked: bool,
               samples: Samples | None, columns: tuple[Column, ...], stale: bool = False) -> tuple[Text, ...]:
    """`bad`: a diagnostic points into the cell; `marked`: an expectation of it fails
    in a sweep, solve or choice, or over the samples (grid.py's verdicts); `stale`:
    one failed before the last edit and is being checked again (a dim `…`, not ✗)."""
    cell = document.cell(key)
    failing = key in document.failing() or marked   # a value its `expect` does not accept
    if bad or failing:
        name = Text("! " if bad else "✗ ", style="bold red")
    else:
        name = Text("… ", style="dim") if stale else Text("  ")
    if cell.scope.prefix:
        name.append(cell.scope.prefix, style="dim")
    name.append(cell.name, style="bold red" if bad or failing else "")
    raw = document.raw_text(key)
    imported = document.imported_edit(key) if cell.scope.prefix else None
    if imported is not None:     # an unsaved edit of the shared imported file, not what the file says
        written = Text(f"{imported.name}*: ", style="italic yellow") + Text(raw)
    elif cell.set_by is not None:
        written = Text("set: ", style="italic magenta") + Text(raw)
    else:
        written = Text(raw, style="cyan" if cell.kind == "input" else "")
    texts = {NAME: name, VALUE: value_text(document, key, changed=change is not None),
             CHANGE: change_text(document, change), FORMULA: written}
    if RANGE in columns:
        texts[RANGE] = range_text(document, key, samples)
    return tuple(texts[c] for c in columns)


def dim_column(strip: Strip, widths: list[int], index: int) -> Strip:
    """A composed row with one column dimmed (the sampled ranges while new ones
    are computed): its strip is reused, not its texts rendered again."""
    shown = [w + 2 * PAD if w > 0 else 0 for w in widths]
    start = sum(shown[:index])
    end = start + shown[index]
    if end <= start:
        return strip
    before, column, after = strip.divide([start, end, strip.cell_length])
    return Strip.join([before, column.apply_style(DIM), after])


DIM = Style(dim=True)


def compose_line(texts: tuple[Text, ...], widths: list[int], console: Console, base: Style | None = None,
                 header: bool = False, right: int = 1) -> Strip:
    """One row: each text cut to its column (column `right` aligned right).
    A header's title runs across the empty columns after it."""
    line = Text(no_wrap=True, end="")
    cells = list(zip(texts, widths))
    if header:
        k = next((i for i in range(1, len(texts) - 1) if texts[i].plain), len(texts) - 1)
        span = sum(widths[:k]) + 2 * PAD * (k - 1)
        title = texts[0].copy()
        title.truncate(span, overflow="ellipsis", pad=True)
        line.append(" " * PAD)
        line.append_text(title)
        line.append(" " * PAD)
        cells = cells[k:]
    for i, (text, width) in enumerate(cells):
        if width <= 0:
            continue
        cell = text.copy()
        cell.no_wrap = True
        cell.truncate(width, overflow="ellipsis")
        cell.align("right" if not header and i == right else "left", width)
        line.append(" " * PAD)
        line.append_text(cell)
        line.append(" " * PAD)
    segments = list(line.render(console))
    return Strip(Segment.apply_style(segments, base) if base else segments, line.cell_len)
