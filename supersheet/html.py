"""HTML tables for Jupyter (`_repr_html_`): every value escaped, nothing executed."""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from .compare import Diff
    from .sheet import Sheet


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], caption: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape('' if c is None else str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f'<table class="supersheet">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def sheet_html(sheet: Sheet) -> str:
    """Every cell as `supersheet run` lists it: name, value as displayed, formula (or the input set)."""
    from supersheet.engine.present.report import override_note
    rows = [(r["name"], r["display"], override_note(r) or r.get("formula", ""), r.get("error", ""))
            for r in sheet.records()]
    caption = sheet.title or str(sheet.path)
    return table(("cell", "value", "formula", "error"), rows, caption)


def diff_html(diff: Diff) -> str:
    from .compare import SECTIONS, percent_text
    titles = dict(SECTIONS)
    rows = [(titles[section], c.name, c.old, c.new, c.delta, percent_text(c), c.note)
            for section, changes in diff.sections.items() for c in changes]
    result = diff.result
    caption = f"{result.old_label} → {result.new_label}" + ("" if rows else ": no differences")
    return table(("section", "cell", "old", "new", "delta", "change", "note"), rows, caption)
