"""HTML tables for Jupyter (`_repr_html_`): every value escaped, nothing executed.

Rendering imports down, never up: these functions take the values they show (records,
a diff's result, a frame), and the classes that show them (`Sheet`, `Diff`, `Choice`,
`Solution`) call down into this module."""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from supersheet.engine.diff.diffview import SECTIONS, percent_text
from supersheet.engine.present.report import override_note
from supersheet.units import format_number

if TYPE_CHECKING:
    import polars as pl

    from supersheet.engine.diff.diff import SheetDiff

Row = Sequence[object]


def table(headers: Sequence[str], rows: Iterable[Row], caption: str = "",
          sections: Sequence[tuple[str, Iterable[Row]]] = ()) -> str:
    """A table of `rows`, then of each titled section's rows (a row across the table titles it)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)

    def body(items: Iterable[Row]) -> str:
        return "".join("<tr>" + "".join(f"<td>{escape('' if c is None else str(c))}</td>" for c in row) + "</tr>"
                       for row in items)

    titled = "".join(f'<tbody><tr><th colspan="{len(headers)}">{escape(title)}</th></tr>{body(items)}</tbody>'
                     for title, items in sections)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f'<table class="supersheet">{cap}<thead><tr>{head}</tr></thead><tbody>{body(rows)}</tbody>{titled}</table>'


def sheet_html(records: Iterable[dict[str, Any]], title: str, path: Path) -> str:
    """Every cell as `supersheet run` lists it (`records`: `Sheet.records()`): the sheet's own
    cells, then its checks, its assumptions and each import in sections of their own; name,
    value as displayed, formula (or the input set), error."""
    groups: dict[str, list[Row]] = {}
    for r in records:
        if "." in r["name"]:
            group = f"{r['name'].rsplit('.', 1)[0]} (imported)"
        else:
            group = {"check": "checks", "assume": "assumptions"}.get(r["kind"], "")
        groups.setdefault(group, []).append((r["name"], r["display"], override_note(r) or r.get("formula", ""),
                                             r.get("error", "")))
    own = groups.pop("", [])
    caption = title or str(path)
    return table(("cell", "value", "formula", "error"), own, caption, list(groups.items()))


def diff_html(result: SheetDiff) -> str:
    """A diff (`Diff.result`): every change in `supersheet diff`'s sections and order."""
    rows = [(title, c.name, c.old, c.new, c.delta, percent_text(c), c.note)
            for section, title in SECTIONS for c in getattr(result, section) or ()]
    caption = f"{result.old_label} → {result.new_label}" + ("" if rows else ": no differences")
    return table(("section", "cell", "old", "new", "delta", "change", "note"), rows, caption)


def solution_html(name: str, goal: str, cell: str, shown: str) -> str:
    """A solve's answer: the goal, the cell and the value it takes (`shown`, as displayed)."""
    return table(("solve", name), [("goal", goal), ("when", f"{cell} = {shown}")])


def choice_html(name: str, objective: str, minimize: bool, feasible: int, ranked: pl.DataFrame,
                reasons: Mapping[str, int]) -> str:
    """A choice: the feasible rows ranked (the answer first), then why the others were excluded."""
    direction = "minimize" if minimize else "maximize"
    caption = f"{name}: {direction} {objective} ({feasible:,} feasible)"
    headers, rows = frame_rows(ranked)   # headed `name [unit]`, as the files and `choose` show them
    reasons_rows = [(f"{count:,} excluded: {reason}",) + ("",) * (len(headers) - 1) for reason, count in reasons.items()]
    sections = [("excluded", reasons_rows)] if reasons_rows and headers else []
    return table(headers or ["no feasible row"], rows, caption, sections)


def frame_rows(frame: pl.DataFrame) -> tuple[list[str], list[tuple[Any, ...]]]:
    """A result frame's headers and rows, numbers to 4 significant digits (as tables show them)."""
    rows = [tuple(format_number(v, 4) if isinstance(v, float) else v for v in row) for row in frame.iter_rows()]
    return list(frame.columns), rows
