"""Two evaluated versions of a sheet -> what changed: inputs, formulas, cells
added, removed or renamed, results (old -> new, delta, delta %), checks that
flipped, expectations that now fail. Pure data; rendering lives in diffview.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from supersheet.engine.base.diagnostics import Diagnostic, sheet_problems
from supersheet.engine.compile.evaluate import Scenario, Value
from supersheet.engine.present.present import show
from supersheet.engine.present.report import formula_text
from supersheet.engine.workbook import Workbook
from supersheet.units import format_number

RELATIVE_NOISE = 1e-12


@dataclass
class Change:
    name: str
    old: str | None = None          # shown in display units
    new: str | None = None
    delta: str | None = None        # new - old in the display unit
    relative: float | None = None   # (new - old) / |old|; inf from zero
    note: str = ""

    def size(self) -> float:
        if self.relative is None:
            return math.inf   # error values and booleans first: they changed in kind
        return abs(self.relative)


@dataclass
class SheetDiff:
    name: str                                    # the sheet, as the user named it
    old_label: str
    new_label: str
    inputs: list[Change] = field(default_factory=list)
    formulas: list[Change] = field(default_factory=list)
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    renamed: list[Change] = field(default_factory=list)
    imports: list[Change] = field(default_factory=list)     # aliases added, removed or pointed elsewhere
    results: list[Change] = field(default_factory=list)
    checks: list[Change] = field(default_factory=list)
    expectations: list[Change] = field(default_factory=list)
    unchanged: int = 0
    old_problems: list[Diagnostic] = field(default_factory=list)
    new_problems: list[Diagnostic] = field(default_factory=list)
    status: str = "compared"     # "added" (no old version), "removed" (no new version) or "compared"
    note: str = ""               # how a side was evaluated, when it is not what it seems (difftool's old copy)

    @property
    def differs(self) -> bool:
        """A difference in results: a sheet added or removed, a value, a check, a cell added or removed,
        a sheet that stopped checking."""
        return bool(self.status != "compared" or self.inputs or self.added or self.removed or self.renamed
                    or self.imports or self.results or self.checks or self.expectations
                    or (bool(self.old_problems) != bool(self.new_problems)))

    @property
    def invalid(self) -> bool:
        """The new version does not check: an error, whatever the old one was."""
        return bool(self.new_problems)


def diff_workbooks(name: str, old: Workbook | None, new: Workbook | None, old_label: str = "old",
                   new_label: str = "new") -> SheetDiff:
    result = SheetDiff(name, old_label, new_label)
    result.status = "added" if old is None and new is not None else "removed" if new is None else "compared"
    old_scenario = _evaluate(old, result.old_problems)
    new_scenario = _evaluate(new, result.new_problems)
    if result.status == "added" and new is not None and new_scenario is not None:
        result.added = [Change(k, new=_shown(new, new_scenario, k)) for k in new.model.cells
                        if not new.model.cells[k].scope.prefix]
    if result.status == "removed" and old is not None and old_scenario is not None:
        result.removed = [Change(k, old=_shown(old, old_scenario, k)) for k in old.model.cells
                          if not old.model.cells[k].scope.prefix]
    if old_scenario is None or new_scenario is None:
        return result
    assert old is not None and new is not None
    old_cells, new_cells = old.model.cells, new.model.cells
    result.imports = _import_changes(old, new)
    # cells of an import that came or went are summed up by the import's own line
    removed = [k for k in old_cells if k not in new_cells and not old_cells[k].scope.prefix]
    added = [k for k in new_cells if k not in old_cells and not new_cells[k].scope.prefix]
    renames = _renames(old, new, removed, added)
    for old_key, new_key in renames.items():
        result.renamed.append(Change(f"{old_key} -> {new_key}", old_key, new_key))
    result.removed = [Change(k, old=_shown(old, old_scenario, k)) for k in removed if k not in renames]
    result.added = [Change(k, new=_shown(new, new_scenario, k)) for k in added if k not in renames.values()]
    pairs = [(k, k) for k in new_cells if k in old_cells] + list(renames.items())
    for old_key, new_key in pairs:
        old_cell, new_cell = old_cells[old_key], new_cells[new_key]
        old_value, new_value = old_scenario.values.get(old_key), new_scenario.values.get(new_key)
        same_value = _same(old_value, new_value)
        if old_cell.kind == "input" and new_cell.kind == "input":
            if not same_value or _text(old_cell) != _text(new_cell):
                result.inputs.append(_change(new_key, old, old_scenario, old_key, new, new_scenario, new_key))
            else:
                result.unchanged += not new_cell.scope.prefix
            continue
        if _text(old_cell) != _text(new_cell) or old_cell.kind != new_cell.kind:
            result.formulas.append(Change(new_key, _text(old_cell), _text(new_cell)))
        if new_cell.scope.prefix:
            continue  # an import's results show in the import's own diff
        if same_value:
            result.unchanged += 1
        elif new_cell.kind in ("check", "assume"):
            result.checks.append(_change(new_key, old, old_scenario, old_key, new, new_scenario, new_key))
        else:
            result.results.append(_change(new_key, old, old_scenario, old_key, new, new_scenario, new_key))
    result.inputs.sort(key=Change.size, reverse=True)
    result.results.sort(key=Change.size, reverse=True)
    result.expectations = _expectations(old, new)
    return result


def _import_changes(old: Workbook, new: Workbook) -> list[Change]:
    def targets(workbook: Workbook) -> dict[str, str]:
        scopes = workbook.model.scope.aliases
        return {alias: str(scope.path) if scope.path else "" for alias, scope in scopes.items()}
    before, after = targets(old), targets(new)
    changes = [Change(a, old=before[a], note="import removed") for a in before if a not in after]
    changes += [Change(a, new=after[a], note="import added") for a in after if a not in before]
    changes += [Change(a, before[a], after[a], note="import points elsewhere") for a in after
                if a in before and Path(before[a]).name != Path(after[a]).name]
    return changes


def _evaluate(workbook: Workbook | None, problems: list[Diagnostic]) -> Scenario | None:
    if workbook is None:
        return None
    broken = sheet_problems(workbook.diagnostics)
    if broken:
        problems.extend(broken)
        return None
    return workbook.evaluate()


def _text(cell) -> str:
    return formula_text(cell) if cell.kind != "input" else (cell.set_by or cell.spec).text.strip()


def _shown(workbook: Workbook, scenario: Scenario, key: str) -> str:
    return show(workbook.checked, key, scenario.values.get(key)).text


def _same(a: Value, b: Value) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float) and not isinstance(a, bool) and not isinstance(b, bool):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b or abs(a - b) <= RELATIVE_NOISE * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def _change(name: str, old: Workbook, old_s: Scenario, old_key: str, new: Workbook, new_s: Scenario,
            new_key: str) -> Change:
    old_value, new_value = old_s.values.get(old_key), new_s.values.get(new_key)
    new_shown = show(new.checked, new_key, new_value)
    unit = new_shown.unit
    old_type, new_type = old.checked.cells[old_key].type, new.checked.cells[new_key].type
    same_dims = old_type is not None and new_type is not None and old_type.dims == new_type.dims
    old_shown = show(old.checked, old_key, old_value, unit if same_dims else None)
    change = Change(name, old_shown.text, new_shown.text)
    if isinstance(old_shown.value, list) and isinstance(new_shown.value, list) and same_dims \
            and len(old_shown.value) == len(new_shown.value):
        ratios = [(n - o) / abs(o) for o, n in zip(old_shown.value, new_shown.value)
                  if isinstance(o, float) and isinstance(n, float) and o and not isinstance(o, bool)]
        if ratios:
            change.relative = max(ratios, key=abs)   # the element that moved most
        return change
    if isinstance(old_shown.value, float) and isinstance(new_shown.value, float) and same_dims:
        delta = new_shown.value - old_shown.value
        # a change of a percentage is in points, not a relative change
        change.delta = format_number(delta) + (" percentage points" if unit == "%" else f" {unit}" if unit else "")
        change.relative = (delta / abs(old_shown.value)) if old_shown.value else (math.inf if delta else 0.0)
    return change


def _renames(old: Workbook, new: Workbook, removed: list[str], added: list[str]) -> dict[str, str]:
    """A removed and an added cell with the same text (and no other candidate) are one cell renamed."""
    by_text: dict[str, list[str]] = {}
    for key in added:
        by_text.setdefault(_text(new.model.cells[key]), []).append(key)
    renames: dict[str, str] = {}
    for key in removed:
        candidates = by_text.get(_text(old.model.cells[key]), [])
        if len(candidates) == 1 and candidates[0] not in renames.values():
            renames[key] = candidates[0]
    return renames


def _expectations(old: Workbook, new: Workbook) -> list[Change]:
    """Expectations that fail in the new version but held (or did not exist) in the old one."""
    from supersheet.engine.verify.testing import test_workbook   # deferred: engine.verify.testing (slow to import)
    new_report = test_workbook(new)
    failing = [o for o in new_report.outcomes if not o.passed]
    if not failing:
        return []
    before = {o.target: o.passed for o in test_workbook(old).outcomes}
    return [Change(o.target, old="held before" if o.target in before else "a new expectation", new=o.actual,
                   note=f"expected {o.expectation.text}") for o in failing if before.get(o.target, True)]

