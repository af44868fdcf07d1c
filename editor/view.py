"""What the UI reads of the open sheet — its cells, values, problems, groups and
sweeps — so that it never reaches into the workbook. A mixin of `Document`
(document.py), which holds the state it reads: the workbook and its values
(replaced by each edit, never changed in place), the sheet's text. Pure
Python: no UI imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol, TYPE_CHECKING, cast

from supersheet.editor import places, sections as grouping, sweep as editsweep
from supersheet.editor.places import Place
from supersheet.editor.problems import value_problems
from supersheet.editor.sections import Section
from supersheet.editor.sweep import SweepRun
from supersheet.engine.base.diagnostics import Diagnostic, SourceCache, render, sheet_problems
from supersheet.engine.base.span import Span
from supersheet.engine.base.types import Type
from supersheet.engine.compile.evaluate import ErrorValue, Scenario, Value
from supersheet.engine.expect.expect import Outcome
from supersheet.engine.load.model import Cell, Model
from supersheet.engine.present.present import Shown, show
from supersheet.engine.verify.failing import failing_expectations
from supersheet.engine.workbook import Workbook
from supersheet.engine.expect.assume import diagnostics as outside_the_model

if TYPE_CHECKING:
    from supersheet.editor.resampler import Resampler
    from supersheet.editor.sample import Samples


class SourceText(Protocol):
    """What a view reads of its sheet's source: the editor's `SheetText` (roundtrip.py),
    or the plain text a language-server snapshot holds (language.py)."""

    def text(self) -> str: ...

    def known_text(self) -> str: ...


class SheetView:
    """Mixed into Document: reads its path, workbook, scenario and source."""

    path: Path
    workbook: Workbook
    scenario: Scenario
    _failing: tuple[Workbook, Scenario, dict[str, list[Outcome]]] | None
    layout: object
    _unchecked: tuple[object, list[Diagnostic]] | None
    _diagnostics: tuple[Workbook, Scenario, list[Diagnostic]] | None
    _problems: tuple[Workbook, Scenario, list[Diagnostic]] | None = None
    _shown_memo: tuple[object, dict[tuple, Shown]] | None = None
    _split_memo: tuple[str, list[str]] | None = None

    if TYPE_CHECKING:       # read-only here: Document holds a SheetText, a language-server Snapshot its text
        @property
        def source(self) -> SourceText: ...

    @property
    def file(self) -> str:
        root = self.workbook.model.root
        return root.file.file if root is not None else str(self.path)

    @property
    def title(self) -> str:
        return self.workbook.model.title

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The sheet's problems, its expectations that cannot be checked (a cell that is
        not there, a value that cannot match: as `supersheet check` reports them), the
        assumptions its current values violate (E-ASSUME) and the expectations they
        fail (E-EXPECT)."""
        # found once per state (the grid and the diagnostics panel both ask after an edit)
        if self._diagnostics is None or self._diagnostics[0] is not self.workbook \
                or self._diagnostics[1] is not self.scenario:
            found = sheet_problems(self.workbook.diagnostics) + self.unchecked_expectations() + outside_the_model(
                self.workbook, self.scenario) + [o.diagnostic() for found in self.failing().values() for o in found]
            self._diagnostics = (self.workbook, self.scenario, found)
        return list(self._diagnostics[2])

    @property
    def problems(self) -> list[Diagnostic]:
        """Everything F4 lists and the status line counts (problems.py): the diagnostics,
        then the cells holding an error value and the checks that fail; once per state."""
        if self._problems is None or self._problems[0] is not self.workbook or self._problems[1] is not self.scenario:
            self._problems = (self.workbook, self.scenario, self.diagnostics + value_problems(self))
        return list(self._problems[2])

    def unchecked_expectations(self) -> list[Diagnostic]:
        """The top-level expectations that cannot be checked; found once per `layout`
        (they depend on the text, the cells and their types, not on the values: an
        in-place edit of an input's value keeps them)."""
        if not self.workbook.ok or self.workbook.model.root is None:
            return []
        if self._unchecked is None or self._unchecked[0] is not self.layout:
            from supersheet.engine.verify.blocks import top_level_expectation_problems   # deferred: engine.verify.blocks (slow to import)
            self._unchecked = (self.layout, top_level_expectation_problems(self.workbook))
        return self._unchecked[1]

    def failing(self) -> dict[str, list[Outcome]]:
        """Cell key -> its expectations the current values fail; recomputed only when the values change."""
        if self._failing is None or self._failing[0] is not self.workbook or self._failing[1] is not self.scenario:
            self._failing = (self.workbook, self.scenario, failing_expectations(self.workbook, self.scenario))
        return self._failing[2]

    def diagnostic_cell(self, diagnostic: Diagnostic) -> str | None:
        """The cell a diagnostic is about: for E-EXPECT the expected cell, not the `expect:` line."""
        if diagnostic.is_failed_expectation:
            for key, found in self.failing().items():
                if any(o.expectation.span == diagnostic.span for o in found):
                    return key
        return self.cell_at(diagnostic.span)

    def place_of(self, diagnostic: Diagnostic, key: str | None = None) -> Place:
        """Where choosing `diagnostic` goes (places.py): its cell (`key` when the
        caller knows it, as a verdict does), a block entry, or its file and line."""
        cell = key if key is not None and self.has_cell(key) else self.diagnostic_cell(diagnostic)
        return places.place_of(diagnostic, cell, self.workbook.model, self.source.known_text().splitlines(),
                               self.render)

    def text(self) -> str:
        """The sheet as it would be saved (newlines normalised to \\n)."""
        return self.source.text()

    def sources(self, text: str | None = None) -> SourceCache:
        """Source lines for rendering diagnostics against the unsaved text."""
        return SourceCache({self.file: (text if text is not None else self.text()).splitlines()})

    def render(self, diagnostic: Diagnostic) -> str:
        return render(diagnostic, self.sources())

    # cells ----------------------------------------------------------------------
    def cell(self, key: str) -> Cell:
        return self.workbook.model.cells[key]

    def raw_text(self, key: str) -> str:
        """What the editor shows: the value or formula as written."""
        cell = self.cell(key)
        return (cell.set_by or cell.spec).text.strip()

    def value(self, key: str) -> Value:
        return self.scenario.values.get(key)

    # what the UI reads of the sheet, so that it never reaches into the workbook ----------
    @property
    def model(self) -> Model:
        """The sheet as loaded: a new object after every edit (an in-place edit
        copies what holds its cell); `Document.layout` says when the rows changed."""
        return self.workbook.model

    def keys(self) -> list[str]:
        """Every cell's key (`name`, `alias.name` for an imported cell), in the model's order."""
        return list(self.workbook.model.cells)

    def has_cell(self, key: str) -> bool:
        return key in self.workbook.model.cells

    def shown(self, key: str, value: Value) -> Shown:
        """`value` as `key` shows it: in its display unit, to its digits. Remembered per
        `layout` (which the display units and digits are part of) for a number, a truth
        value or an error: after an edit the grid asks for each changed value's old and
        new text, and the old one was the new one of the edit before."""
        memo = self._shown_memo
        if memo is None or memo[0] is not self.layout or len(memo[1]) > 4096:
            memo = self._shown_memo = (self.layout, {})
        kind = type(value)
        if kind is not float and kind is not bool and kind is not ErrorValue:
            return show(self.workbook.checked, key, value)
        tag = (key, kind, cast(float, value).hex() if kind is float else value)   # (-0.0 == 0.0; nan != nan)
        found = memo[1].get(tag)
        if found is None:
            found = memo[1][tag] = show(self.workbook.checked, key, value)
        return found

    def exact_text(self, key: str) -> str:
        """The value at full precision in its display unit (`470.18726912 GB`): the
        shortest text that reads back as the very same float, not the digits shown."""
        shown = self.shown(key, self.value(key))

        def exact(number: object) -> str:
            if isinstance(number, float) and not isinstance(number, bool):
                return repr(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)
            return shown.text if not isinstance(number, (str, bool)) else \
                (number if isinstance(number, str) else "true" if number else "false")
        if isinstance(shown.value, list):
            text = "[" + ", ".join(exact(v) for v in shown.value) + "]"
        else:
            text = exact(shown.value)
        return f"{text} {shown.unit}" if shown.unit and not isinstance(shown.value, (bool, str)) else text

    def type_of(self, key: str) -> Type | None:
        """The cell's checked type (None when it does not check)."""
        cell = self.workbook.checked.cells.get(key)
        return cell.type if cell is not None else None

    def is_uncertain(self, key: str) -> bool:
        """Whether the cell depends on random draws (its value has every draw at its mean)."""
        return key in self.workbook.checked.uncertain

    @property
    def has_draws(self) -> bool:
        """Whether the sheet has random draws (the grid shows their ranges)."""
        return bool(self.workbook.checked.distributions)

    def sampler(self, resampler: Resampler) -> Callable[[], Samples | None]:
        """The Monte Carlo of the sheet as it is now, to run off the UI thread: in
        the editor's resample process, from this text, or on this document's
        workbook, which no edit changes (an edit makes a new one): resampler.py."""
        return resampler.sampler(self.workbook, self.path, self.text())

    def precedents(self, key: str) -> list[str]:
        checked = self.workbook.checked.cells.get(key)
        return list(checked.deps) if checked else []

    def dependents(self, key: str) -> list[str]:
        return [k for k, c in self.workbook.checked.cells.items() if key in c.deps]

    def sections(self) -> list[Section]:
        """The grid's groups (see sections.py)."""
        return grouping.sections(self.workbook.model, self._lines_of, self.file)

    def cell_at(self, span: Span | None) -> str | None:
        """The cell a diagnostic points into."""
        return grouping.cell_at(self.workbook.model, self._lines_of, span)

    def _lines_of(self, file: str) -> list[str]:
        """A file's lines (to read, not to change): this sheet's split once per text (an
        edit asked for them once for each problem it found, splitting the whole text each time)."""
        if file == self.file:
            text = self.source.known_text()
            split = self._split_memo
            if split is None or split[0] is not text:
                split = self._split_memo = (text, text.splitlines())
            return split[1]
        for sheet in self.workbook.model.files.values():
            if sheet.file == file:
                return sheet.text.splitlines()
        return []

    # sweeps -----------------------------------------------------------------------
    def sweep_names(self) -> list[str]:
        return editsweep.sweep_names(self.workbook)

    def suggest_axis(self, key: str) -> str:
        """An ad hoc axis around a cell's current value (see editsweep.py)."""
        return editsweep.suggest_axis(self.workbook, key, self.value(key))

    def run_sweep(self, name: str | None = None, axis: str | None = None,
                  max_rows: int = editsweep.MAX_ROWS) -> SweepRun:
        """A sweep of the sheet, or over `axis`, on the current (unsaved) values."""
        return self.sweeper(name, axis, max_rows)()

    def exporter(self, path: Path, name: str | None = None, axis: str | None = None,
                 chart: tuple[str, str] | None = None) -> Callable[[], int]:
        """Writing the table of a sweep (or ad hoc axis) to `path` — or, for a .svg, .png or .html
        `path`, the chart of `chart` = (x, y) — to run off the UI thread, on the sheet as it is
        now (sweep.py's `export_sweep`, `export_chart`: ExportError says why not, at once for a
        name or a target that cannot be written, `check_export`)."""
        editsweep.check_export(path)
        workbook = self.workbook
        if path.suffix.lstrip(".").lower() in editsweep.CHART_FORMATS:
            if chart is None:
                raise editsweep.ExportError("pick the axis and the cell to plot first")
            return lambda: editsweep.export_chart(workbook, path, name, axis, *chart)
        return lambda: editsweep.export_sweep(workbook, path, name, axis)

    def fit_names(self) -> list[str]:
        return editsweep.fit_names(self.workbook)

    def fitter(self, name: str) -> Callable[[], SweepRun]:
        """The sheet's fit `name` on its current values, to run off the UI thread (as `sweeper`)."""
        workbook = self.workbook
        return lambda: editsweep.run_fit(workbook, name)

    def sweeper(self, name: str | None = None, axis: str | None = None,
                max_rows: int = editsweep.MAX_ROWS) -> Callable[[], SweepRun]:
        """The sweep of the sheet as it is now, to run off the UI thread: like
        `sampler`, it runs this document's workbook, which no edit changes."""
        workbook = self.workbook
        return lambda: editsweep.run_sweep(workbook, name, axis, max_rows)
