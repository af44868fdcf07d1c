"""A cell's unit, digits, doc and source (the long form's keys), edited as
text: only the lines that hold them change. Pure functions from the sheet's
text to the new text; the document (structure.py) checks the result and
records it as one undo step. Pure Python: no UI imports.

* The unit of a formula is its `-> unit` when it has one (it wins over
  `unit:`): that is rewritten in place (or removed), and a short-form formula
  without one gains ` -> unit` — it stays one line.
* Any other property is a key of the long form: replaced on its own line
  (keeping the line's comment), added after the keys the format lists before
  it, or removed when the new text is empty. A short-form cell becomes long
  form only then: `alpha: 3 us  # why` becomes `alpha:` and `  value: 3 us  # why`
  under it, the comment kept on the value's line.

Like cells.py this works on lines, with the round-trip document only to
find them: ruamel would move a comment or blank line that follows the cell
onto an added key.
"""
from __future__ import annotations

import io
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.editor.cells import StructureError, cell_block, value_column
from supersheet.editor.roundtrip import make_yaml
from supersheet.engine.base.vocabulary import is_formula
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula

PROPERTIES = ("unit", "digits", "doc", "source")
ORDER = ("value", "formula", "unit", "digits", "doc", "source")    # as the format lists them


def set_property(text: str, name: str, prop: str, value: str, step: int = 2) -> str:
    """`text` with the `prop` of the cell `name` (in `cells:`) set to `value`
    ("" removes it). `step` is the file's mapping indentation."""
    if prop not in PROPERTIES:
        raise StructureError(f"{prop!r} is not one of {', '.join(PROPERTIES)}")
    value = value.strip()
    document = make_yaml(2, 0).load(text)
    cells = document.get("cells") if isinstance(document, CommentedMap) else None
    if not isinstance(cells, CommentedMap) or name not in cells:
        raise StructureError(f"{name!r} is not a cell of this sheet's cells:")
    if cells.fa.flow_style():
        raise StructureError(f"cells: is written as a flow mapping {{…}}; give {name} its {prop} by hand")
    lines = text.split("\n")
    node = cells[name]
    if prop == "unit":
        changed = _display_unit(lines, cells, name, value)
        if changed is not None:
            return "\n".join(changed)
    if isinstance(node, CommentedMap):
        if node.fa.flow_style():
            raise StructureError(f"{name} is written as a flow mapping {{…}}; edit its {prop} by hand")
        return "\n".join(_long(lines, node, prop, value))
    if not value:
        return text     # a short-form cell has none of these keys: nothing to remove
    return "\n".join(_to_long(lines, cells, name, step, prop, value))


def _line(prop: str, value: str, indent: int) -> str:
    """`prop: value` as one YAML line (quoted when YAML needs it); digits are a number."""
    item: Any = value
    if prop == "digits":
        try:
            item = int(value)
        except ValueError:
            raise StructureError(f"digits must be a whole number from 1 to 17, not {value!r}") from None
        if not 1 <= item <= 17:
            raise StructureError(f"digits must be a whole number from 1 to 17, not {item}")
    if "\n" in value:
        raise StructureError(f"the {prop} must be one line")
    out = io.StringIO()
    make_yaml(2, 0).dump({prop: item}, out)
    return " " * indent + out.getvalue().rstrip("\n")


def _display_unit(lines: list[str], cells: CommentedMap, name: str, unit: str) -> list[str] | None:
    """The lines with the formula's `-> unit` set; None when the unit is not written there
    (an input, or a long-form formula without `->`)."""
    node = cells[name]
    if is_formula(node):
        formula, (line, col) = node, cells.lc.value(name)
    elif isinstance(node, CommentedMap) and isinstance(node.get("formula"), str):
        formula, (line, col) = node["formula"], node.lc.value("formula")
    else:
        return None
    body, skip = formula_body(formula)
    try:
        parsed = parse_formula(body)
    except ParseError:
        raise StructureError(f"{name}'s formula does not parse; fix it before changing its unit") from None
    if parsed.display_span is None and isinstance(node, CommentedMap):
        return None     # a long form without `->`: its `unit:` key
    written = lines[line]
    base = value_column(lines, formula, (line, col))
    if base is None:
        raise StructureError(f"line {line + 1}: {name}'s formula is written over several lines or with "
                             "escapes; change its unit by hand")
    out = lines[:]
    if parsed.display_span is None:
        if unit:
            end = base + len(formula)
            out[line] = written[:end] + f" -> {unit}" + written[end:]
        return out
    start, end = (base + skip + i for i in parsed.display_span)
    if unit:
        out[line] = written[:start] + unit + written[end:]
    else:
        arrow = written.rfind("->", base, start)
        out[line] = written[:arrow].rstrip() + written[end:]
    return out


def _long(lines: list[str], node: CommentedMap, prop: str, value: str) -> list[str]:
    """Set, add or remove the key `prop` of a long-form cell."""
    indent = node.lc.key(next(iter(node)))[1]
    if prop in node:
        line = node.lc.key(prop)[0]
        start, end = cell_block(lines, line + 1)
        if not value:
            return lines[:start] + [ln for ln in lines[start + 1:end] if ln.strip().startswith("#")] + lines[end:]
        new = _line(prop, value, indent)
        comment = node.ca.items.get(prop, [None] * 4)[2]
        if comment is not None and end - start == 1 and comment.start_mark.line == line:
            column = comment.start_mark.column
            new = new.ljust(column - 1) + " " + lines[line][column:]
        return lines[:start] + [new] + lines[end:]
    if not value:
        return lines
    earlier = [k for k in node if k in ORDER[:ORDER.index(prop)]]
    after = earlier[-1] if earlier else list(node)[-1]
    _, end = cell_block(lines, node.lc.key(after)[0] + 1)
    return lines[:end] + [_line(prop, value, indent)] + lines[end:]


def _to_long(lines: list[str], cells: CommentedMap, name: str, step: int, prop: str, value: str) -> list[str]:
    """A one-line short-form cell rewritten as the long form with `prop` added."""
    line, key_col = cells.lc.key(name)
    start, end = cell_block(lines, line + 1)
    node = cells[name]
    if end - start != 1 or (isinstance(node, CommentedSeq) and not node.fa.flow_style()):
        raise StructureError(f"line {line + 1}: {name} is written over several lines; "
                             f"write it in the long form by hand to give it a {prop}")
    written = lines[line]
    value_col = cells.lc.value(name)[1]
    rest = written[value_col:]
    key = "value"
    if is_formula(node):
        key = "formula"
        bare = rest[1:].lstrip() if is_formula(rest) else ""
        if bare and _loads_as(bare, formula_body(node)[0]):
            rest = bare     # `formula: 2 * x` as the format writes it, when YAML reads it the same
    inner = key_col + step
    return (lines[:line] + [written[:value_col].rstrip(), " " * inner + f"{key}: {rest}",
                            _line(prop, value, inner)] + lines[line + 1:])


def _loads_as(text: str, expected: str) -> bool:
    try:
        loaded = make_yaml(2, 0).load(f"formula: {text}\n")
    except Exception:  # noqa: BLE001 - not YAML on its own: keep the '='
        return False
    return isinstance(loaded, CommentedMap) and loaded.get("formula") == expected
