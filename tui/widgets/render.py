"""Rich text for values, changes and diagnostics: how the widgets show engine results.

Presentation only: the numbers come from `Document.shown` (the engine's display units and
digits); this module picks colours and arrows.
"""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.document import Change, Document, error_code
from supersheet.units import format_number

ERROR_STYLE = "bold red"
CHANGED_STYLE = "bold yellow"
UP_STYLE = "green"
DOWN_STYLE = "red"
PASS_STYLE = "bold green"
FAIL_STYLE = "bold red"


def value_text(document: Document, key: str, changed: bool = False) -> Text:
    """A cell's value in its display unit; errors and changes stand out, and a
    value that fails its `expect` is red (its name gets a ✗; the inspector says what was expected)."""
    text = _plain_value_text(document, key, changed)
    if key in document.failing():
        return Text(text.plain, style=FAIL_STYLE)
    return text


def _plain_value_text(document: Document, key: str, changed: bool) -> Text:
    value = document.value(key)
    cell = document.cell(key)
    shown = document.shown(key, value)
    if cell.kind == "check" and isinstance(value, bool):
        return Text("✓ pass" if value else "✗ FAIL", style=PASS_STYLE if value else FAIL_STYLE)
    if cell.kind == "assume" and not error_code(value):   # format 9.2: false means outside the model
        holds = value is True or (isinstance(value, list) and all(v is True for v in value))
        return Text("✓ holds" if holds else "✗ OUTSIDE", style=PASS_STYLE if holds else FAIL_STYLE)
    if error_code(value):
        return Text(shown.text, style=ERROR_STYLE)
    return Text(shown.text, style=CHANGED_STYLE if changed else "")


def visible_changes(document: Document, changes: dict[str, Change]) -> dict[str, Change]:
    """The changes that show: a value whose new and old texts are the same at
    its displayed precision (a rounding difference, `↓ 2.12e-14%`) did not change."""
    return {key: change for key, change in changes.items() if not document.has_cell(key)
            or document.shown(key, change.old).text != document.shown(key, change.new).text}


def change_text(document: Document, change: Change | None) -> Text:
    """`↑ 300% was 1.577 GB`: the direction, the relative change and the old value."""
    if change is None:
        return Text("")
    old = document.shown(change.key, change.old).text
    ratio = change.ratio
    if change.direction > 0:
        arrow, style = "↑", UP_STYLE
    elif change.direction < 0:
        arrow, style = "↓", DOWN_STYLE
    else:
        arrow, style = "•", CHANGED_STYLE
    text = Text(arrow + " ", style=style)
    if ratio is not None:
        text.append(f"{format_number(abs(ratio) * 100, 3)}% ", style=style)
    text.append(f"was {old}", style="dim")
    return text


def diagnostic_text(rendered: str) -> Text:
    """The CLI rendering of diagnostics with the headline in red and the
    underlined span of the source line marked."""
    out = Text()
    lines = rendered.splitlines()
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if " | " in line and line.split(" | ", 1)[0].strip().isdigit() and "|" in nxt and ("^" in nxt or "~" in nxt):
            gutter, source = line.split(" | ", 1)
            marks = nxt.split("| ", 1)[1] if "| " in nxt else ""
            out.append(gutter + " | ", style="dim")
            for col, ch in enumerate(source):
                mark = marks[col] if col < len(marks) else " "
                style = "bold red underline" if mark == "^" else ("yellow underline" if mark == "~" else "")
                out.append(ch, style=style)
        elif line.lstrip().startswith("|"):
            out.append(line, style="bold red")
        elif line.startswith("hint:"):
            out.append(line, style="cyan")
        elif ": E-" in line or line.startswith("E-"):
            out.append(line, style="bold red")
        else:
            out.append(line)
    return out
