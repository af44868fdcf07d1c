"""Text, JSON, CSV and Markdown renderings of one evaluated scenario, and the
`explain` tree. One schema for a cell everywhere (documented in docs/):
`{"name", "value", "unit", "display"}` plus `kind`, `formula` and `error`.
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from typing import Any

from supersheet.engine.base.project import shown_path
from supersheet.engine.compile.errorcodes import NUM
from supersheet.engine.compile.evaluate import Scenario, error_code
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.load.model import CONDITIONS, Cell
from supersheet.engine.present.present import DEFAULT_DIGITS, Shown, digits_of, display_unit, show, show_checked, shown_float
from supersheet.engine.workbook import Workbook, parse_assignment
from supersheet.units import convert, format_number

RUN_SCHEMA = "supersheet-run/1"   # the JSON schema of `run --format json` (supersheet/schemas/)


def cell_record(workbook: Workbook, scenario: Scenario, cell: Cell, sampled: Any = None,
                overrides: dict[str, SetOverride] | None = None) -> dict[str, Any]:
    """One cell as the shared schema: name, value, unit, display (+ kind, formula,
    error; and mean, p5, p50, p95 for a cell that depends on random draws).
    `overrides` are the user's `--set` assignments by cell key (`set_overrides`)."""
    key = cell.key
    summary = sampled.summaries.get(key) if sampled is not None else None
    share = sampled.shares.get(key) if sampled is not None else None
    value = scenario.values.get(key)
    if summary is not None:
        record = uncertain_record(workbook, key, summary)
    elif share is not None:
        record = share_record(workbook, key, share, sampled.samples)
    else:
        shown = show(workbook.checked, key, value)
        record = {"name": key, "value": _json_value(shown), "unit": shown.unit, "display": shown.text}
    record["kind"] = cell.kind
    if cell.kind != "input":
        record["formula"] = formula_text(cell)
    if overrides:
        _mark_override(record, cell, overrides)
    error = error_code(value) if summary is None and type(value) is not float else None   # (a float is none)
    if error:
        record["error"] = error
    return record


def uncertain_record(workbook: Workbook, key: str, summary: Any) -> dict[str, Any]:
    unit = display_unit(workbook.checked, key, abs(summary.mean))
    digits = digits_of(workbook.checked, key)

    def number(x: float) -> float:
        return convert(x, unit) if unit else x

    def finite(x: float) -> float | None:   # a mean of huge samples may overflow: #NUM, never inf
        return number(x) if math.isfinite(x) else None

    def text(x: float | None) -> str:
        return NUM if x is None else format_number(x, digits)

    mean, p5, p50, p95 = (finite(v) for v in (summary.mean, summary.p5, summary.p50, summary.p95))
    suffix = f" {unit}" if unit and mean is not None else ""
    # a statistic over the samples that have a value: say how many did not
    failed = f"; {summary.errors:,} of {summary.count:,} samples are error values" if summary.errors else ""
    display = f"{text(mean)}{suffix} (p5 {text(p5)} … p95 {text(p95)}{failed})"
    record = {"name": key, "value": mean, "unit": unit, "display": display,
              "mean": mean, "p5": p5, "p50": p50, "p95": p95, "samples": summary.count}
    if summary.errors:
        record["error_samples"] = summary.errors
    if mean is None:
        record["error"] = NUM
    return record


@dataclass(frozen=True)
class SetOverride:
    """One `--set NAME=VALUE` as the user wrote it, and the formula it replaced (None: an input)."""

    value: str
    replaced_formula: str | None
    by: str = "--set"           # what set it: `--set`, or `fit NAME` (run --fit)


def set_overrides(workbook: Workbook, sets: list[str]) -> dict[str, SetOverride]:
    """The `--set` assignments by cell key, read against the sheet as written (before a
    reshaping `--set` re-reads it with the value as an input)."""
    found: dict[str, SetOverride] = {}
    for text in sets:
        key, value = parse_assignment(workbook, text)
        cell = workbook.model.cells[key]
        found[key] = SetOverride(value, formula_text(cell) if cell.kind == "formula" else None)
    return found


def _mark_override(record: dict[str, Any], cell: Cell, overrides: dict[str, SetOverride]) -> None:
    """A cell fixed by `--set`: `set` is the value written; a formula cell becomes
    kind "override" and keeps the formula it replaced apart (`replaced_formula`),
    so no output shows a set value as if its formula had computed it."""
    override = overrides.get(cell.key)
    if override is None:
        return
    record["set"] = override.value
    if override.by != "--set":   # text outputs say what set it; JSON keeps its schema (render_run drops it)
        record["_by"] = override.by
    if override.replaced_formula is not None:
        record["kind"] = "override"
        record.pop("formula", None)
        record["replaced_formula"] = override.replaced_formula


def override_note(record: dict[str, Any]) -> str:
    """`set by --set` (+ `, replacing = FORMULA`) for text outputs, or ''."""
    if "set" not in record:
        return ""
    replaced = record.get("replaced_formula")
    return f"set by {record.get('_by', '--set')}" + (f", replacing = {replaced}" if replaced else "")


def share_record(workbook: Workbook, key: str, share: float, samples: int) -> dict[str, Any]:
    """A boolean cell over random draws: the share of samples where it holds
    (`84.1 % true`), never its value at the mean (format 9.6)."""
    percent = share * 100
    return {"name": key, "value": percent, "unit": "%",
            "display": f"{format_number(percent, digits_of(workbook.checked, key))} % true",
            "share_true": share, "samples": samples}


def formula_text(cell: Cell) -> str:
    spec = cell.set_by or cell.spec
    text = spec.text.strip()
    if cell.kind in CONDITIONS:
        return text
    return text[1:].strip() if is_formula(text) else text   # formula_body(text)[0].rstrip() of the stripped text


def _json_value(shown: Shown) -> Any:
    value = shown.value
    if isinstance(value, list):
        return [None if isinstance(v, str) else v for v in value]
    if isinstance(value, str):
        return None
    if isinstance(value, float) and value != value:
        return None
    return value




def ordered_cells(workbook: Workbook) -> list[Cell]:
    """Own cells, then checks, then assumptions, then imported cells grouped by alias."""
    own: list[Cell] = []
    checks: list[Cell] = []
    assumptions: list[Cell] = []
    imported: list[Cell] = []
    for cell in workbook.model.cells.values():   # one pass (run lists every cell of a large sheet)
        (imported if cell.scope.prefix else checks if cell.kind == "check" else assumptions if cell.kind == "assume"
         else own).append(cell)
    return own + checks + assumptions + imported


def render_run(workbook: Workbook, scenario: Scenario, fmt: str, sampled: Any = None,
               overrides: dict[str, SetOverride] | None = None, stable_columns: bool = False) -> str:
    """Every cell in `fmt` (text, json, csv, markdown). `stable_columns`: the text table's columns
    at tab stops that depend on each line's own cell only (git's textconv: a changed value
    changes its own line, never the alignment of the others)."""
    if fmt not in ("json", "csv", "markdown"):   # the text table
        rows = (_plain_rows(workbook, scenario) if sampled is None and not overrides else
                [_record_row(cell_record(workbook, scenario, c, sampled, overrides)) for c in ordered_cells(workbook)])
        return _text_table(workbook, rows, stable_columns)
    records = [cell_record(workbook, scenario, c, sampled, overrides) for c in ordered_cells(workbook)]
    if fmt == "json":
        records = [{k: v for k, v in r.items() if k != "_by"} for r in records]
        extra = {"samples": sampled.samples, "seed": sampled.seed} if sampled is not None else {}
        return json.dumps({"schema": RUN_SCHEMA, "sheet": shown_path(workbook.model.path),
                           "title": workbook.model.title, **extra, "cells": records}, indent=2, ensure_ascii=False)
    if fmt == "csv":
        import csv   # deferred: csv (~1 ms at every start), for this format only
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        spread = ["mean", "p5", "p50", "p95"] if sampled is not None else []
        writer.writerow(["name", "value", "unit", "display", "kind", "formula", "error"] + spread)
        for r in records:
            value = r["value"]
            writer.writerow([r["name"], json.dumps(value) if isinstance(value, list) else _csv(value), r["unit"] or "",
                             r["display"], r["kind"], r.get("formula", r.get("replaced_formula", "")), r.get("error", "")]
                            + [_csv(r.get(k)) for k in spread])
        return out.getvalue().rstrip("\n")
    lines = [f"# {workbook.model.title}" if workbook.model.title else f"# {shown_path(workbook.model.path)}", "",
             "| cell | value | formula |", "|---|---:|---|"]   # markdown
    for r in records:
        mark = _check_mark(r)
        lines.append(f"| {mark}{r['name']} | {_md(r['display'])} | {_md(override_note(r) or r.get('formula', ''))} |")
    return "\n".join(lines)


def _csv(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return csv_float(value) if isinstance(value, float) else str(value)


def csv_float(value: float) -> str:
    """A float as the sweep's CSV files write it (Polars' writer): the shortest text that reads
    back to the same float, `4.0`, `1e+20`, `1.5e-7`, `NaN`, `inf`; so one cell reads alike from
    `run --format csv` and a sweep's CSV."""
    if value != value:
        return "NaN"
    text = repr(value)
    mantissa, sep, exponent = text.partition("e")
    return f"{mantissa}e{exponent[0]}{int(exponent[1:])}" if sep else text


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _check_mark(record: dict[str, Any]) -> str:
    if record["kind"] not in CONDITIONS:
        return ""
    if "share_true" in record:   # over random draws: holds in every sample, in none, or in some
        return {1.0: "✓ ", 0.0: "✗ "}.get(record["share_true"], "~ ")
    return "✓ " if record["value"] is True else "✗ "


_VALUE_TAB = 16   # stable columns: a value fills the next multiple of this many characters


def _value_stop(text: str) -> int:
    return (len(text) + 2 + _VALUE_TAB - 1) // _VALUE_TAB * _VALUE_TAB


_WIDE_ARRAY = 40   # characters: a longer array runs past the value column on its own line


def _overflows(record: dict[str, Any]) -> bool:
    """A long array (a table's column, a formula over one) does not set the value column's width,
    which would push every other line's formula off the screen."""
    return isinstance(record.get("value"), list) and len(record["display"]) > _WIDE_ARRAY


# One line of `run`'s text table: the section it is listed in, the check mark (or two spaces),
# the cell's name, its value as shown, what follows the value (`= formula`, `set by …`), and
# whether the value is a long array that does not set the value column's width.
Row = tuple[str, str, str, str, str, bool]


def _record_row(record: dict[str, Any]) -> Row:
    """The text table's line of a cell as the shared schema has it (over samples, `--set`)."""
    formula = record.get("formula")
    if "set" in record:
        tail = override_note(record)
    elif formula:
        tail = ("= " if record["kind"] == "formula" else "") + formula
    else:
        tail = ""
    return _group(record), _check_mark(record) or "  ", record["name"], record["display"], tail, _overflows(record)


def _plain_rows(workbook: Workbook, scenario: Scenario) -> list[Row]:
    """The text table's lines of a scenario with no samples and no `--set`: `_record_row` of each
    cell's record, without building the record (`run` of a 20,000-cell sheet: a dict, its JSON
    value and error code a cell were ~15 % of rendering; tests/engine/test_run_text_rows.py
    compares both ways on every sheet of the library)."""
    checked, values = workbook.checked, scenario.values
    checked_cells, model_cells = checked.cells, checked.model.cells
    same = model_cells is workbook.model.cells   # (run's case: the digits are the cell's own, digits_of's)
    rows: list[Row] = []
    for cell in ordered_cells(workbook):
        key, kind = cell.key, cell.kind
        written = cell if same else model_cells.get(key)
        digits = (written.spec.digits if written is not None else None) or DEFAULT_DIGITS
        checked_cell, value = checked_cells.get(key), values.get(key)
        if type(value) is float and checked_cell is not None and checked_cell.type is not None:
            shown_value: object = value   # a number: neither true nor a list (show_checked's own case)
            display = shown_float(checked_cell, digits, value)[2]
        else:
            shown = show_checked(checked_cell, digits, value)
            shown_value, display = shown.value, shown.text
        if kind == "input":
            mark, tail = "  ", ""
        else:
            formula = formula_text(cell)
            if kind == "formula":
                mark, tail = "  ", "= " + formula if formula else ""
            else:   # a condition: holds only when it is true (an error value or no value does not)
                mark, tail = ("✓ " if shown_value is True else "✗ ") if kind in CONDITIONS else "  ", formula
        group = key.rsplit(".", 1)[0] if "." in key else _SECTIONS.get(kind, "cells")
        rows.append((group, mark, key, display, tail, type(shown_value) is list and len(display) > _WIDE_ARRAY))
    return rows


_SECTIONS = {"check": "checks", "assume": "assumptions"}   # an own cell's section by its kind (else cells)


def _text_table(workbook: Workbook, rows: list[Row], stable_columns: bool = False) -> str:
    title = workbook.model.title
    lines = [title] if title else []
    width = max((len(row[2]) for row in rows), default=4) + 2
    value_width = max((len(row[3]) for row in rows if not row[5]), default=5) + 2
    if stable_columns:   # each section's names set its name column; a value's own width its value column
        widths: dict[str, int] = {}
        for row in rows:
            widths[row[0]] = max(widths.get(row[0], 0), len(row[2]) + 2)
    section = None
    tables = workbook.model.tables
    for group, mark, name, display, tail, _wide in rows:
        if group != section:
            section = group
            lines.append("")
            lines.append(f"{group}:" if group in ("cells", "checks", "assumptions") else
                         f"{group} (table {tables[group].path.name}):" if group in tables
                         else f"{group} (imported):")
        if stable_columns:
            width, value_width = widths[group], _value_stop(display)
        lines.append(f"{mark}{name.ljust(width)}{display.ljust(value_width)}{tail}".rstrip())   # (ljust: no format spec to parse)
    return "\n".join(lines)


def _group(record: dict[str, Any]) -> str:
    """The section of `run`'s text a cell is listed in: cells, checks, assumptions, or its import."""
    if "." in record["name"]:
        return record["name"].rsplit(".", 1)[0]
    return _SECTIONS.get(record["kind"], "cells")


def render_explain(workbook: Workbook, scenario: Scenario, key: str, max_depth: int = 12,
                   overrides: dict[str, SetOverride] | None = None) -> str:
    """The cell's formula and value, and the tree of its precedents down to the inputs."""
    lines: list[str] = []
    seen: set[str] = set()

    def visit(k: str, prefix: str, last: bool, depth: int) -> None:
        cell = workbook.model.cells[k]
        shown = show(workbook.checked, k, scenario.values.get(k))
        connector = "" if depth == 0 else ("└─ " if last else "├─ ")
        detail = ""
        override = (overrides or {}).get(k)
        overridden = override is not None
        if override is not None:
            replaced = f", replacing = {override.replaced_formula}" if override.replaced_formula else ""
            detail = f"   (set by --set{replaced})"
        elif cell.kind != "input":
            detail = f"   = {formula_text(cell)}"
        elif cell.spec.source:
            detail = f"   (source: {cell.spec.source})"
        repeated = k in seen and workbook.checked.cells[k].deps
        lines.append(f"{prefix}{connector}{k} = {shown.text}{detail}" + ("   (see above)" if repeated else ""))
        if repeated or overridden or depth >= max_depth:
            return   # a set value does not come from its precedents: they are not its explanation
        seen.add(k)
        deps = list(workbook.checked.cells[k].deps)
        child_prefix = prefix + ("" if depth == 0 else ("   " if last else "│  "))
        for i, d in enumerate(deps):
            visit(d, child_prefix, i == len(deps) - 1, depth + 1)

    visit(key, "", True, 0)
    cell = workbook.model.cells[key]
    header = []
    if cell.spec.doc:
        header.append(cell.spec.doc.strip())
    span = cell.spec.span
    header.append(f"defined at {span}")
    return "\n".join(lines + [""] + header)
