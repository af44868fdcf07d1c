"""Reads a loaded YAML document into a `SheetFile`: top-level keys, cells, checks,
assumptions, imports and bases, each value at its position, shape errors as diagnostics;
the blocks (sweeps, solves, ...) through specs.py."""
from __future__ import annotations

import re
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.compat import ordereddict

from supersheet.engine.base.diagnostics import Diagnostic, did_you_mean, excerpt
from supersheet.engine.base.limits import MAX_SAMPLES
from supersheet.engine.base.span import Origin, Span
from supersheet.engine.formula.ast import Formula, is_literal
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula
from supersheet.engine.load.positions import Positions, scalar_text
from supersheet.engine.load.sheetfile import CellSpec, ImportSpec, SheetFile
from supersheet.engine.base.vocabulary import CELL_KEYS, NAME_RE, RESERVED, TOP_LEVEL_KEYS, is_formula
from supersheet.engine.load.yamltags import find_tag

if TYPE_CHECKING:
    from supersheet.engine.load.specs import SpecReader




SPEC_BLOCKS = ("samples", "sweeps", "solve", "choose", "expect", "tables", "fit")   # read by specs.py


def _spec_reader(reader: SheetReader) -> SpecReader:
    from supersheet.engine.load.specs import SpecReader   # deferred: specs.py, 16 dataclasses (~5 ms of every start)
    return SpecReader(reader)


def read_inline_values(sheet: SheetFile, mapping: CommentedMap,
                       lines: list[str] | None = None) -> tuple[dict[str, CellSpec], list[Diagnostic]]:
    """Name -> value or formula written inline (an import's `set:`, a `--set`), each read as a
    cell's value is; the problems are returned, not added to the sheet's."""
    reader = SheetReader(sheet, sheet.text.splitlines() if lines is None else lines)
    before = len(sheet.diagnostics)
    specs: dict[str, CellSpec] = {}
    for name in mapping:
        spec = reader.read_short_value(mapping, name, str(name), mapping[name], reader.key_span(mapping, name))
        if spec is not None:
            specs[str(name)] = spec
    problems = sheet.diagnostics[before:]
    del sheet.diagnostics[before:]
    return specs, problems


class SheetReader(Positions):
    """Reads a sheet's cells, checks and assumptions, reporting into the sheet's diagnostics."""

    def __init__(self, sheet: SheetFile, lines: list[str]) -> None:
        super().__init__(sheet.file, lines)
        self.sheet = sheet

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.sheet.diagnostics.append(Diagnostic(code, message, span, hint=hint))

    # -- structure -------------------------------------------------------
    def read(self, document: Any) -> None:
        if document is None:
            return
        bad_tag = find_tag(self.sheet.text)
        if bad_tag is not None:
            tag, line, col = bad_tag
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            self.error("E-YAML", f"YAML tag {shown} is not allowed in a sheet", Span(self.file, line, col, col + 1),
                       "sheets are plain data: remove the tag")
            return
        if not isinstance(document, CommentedMap) or (document and not any(k in TOP_LEVEL_KEYS for k in document)):
            # Not a sheet (a text, a list, some other YAML or not YAML at all):
            # its name and the first problem, never its lines.
            found = "a mapping with none of the keys title, cells, use, ..." if isinstance(document, CommentedMap) \
                else f"a {_kind(document)}, not a mapping of top-level keys (title, cells, ...)"
            self.sheet.diagnostics.append(Diagnostic("E-SHEET", f"{self.file} is not a sheet: {found}",
                                                     Span(self.file, 1, 1, 2), quote=False))
            return
        for key in document:
            if key not in TOP_LEVEL_KEYS:
                self.error("E-SHEET", f"unknown top-level key {excerpt(key)}", self.key_span(document, key),
                           did_you_mean(str(key), TOP_LEVEL_KEYS))
        sheet = self.sheet
        sheet.title = str(document.get("title") or "")
        sheet.doc = str(document.get("doc") or "")
        if "extends" in document:
            sheet.extends = self.base(document)
        specs = _spec_reader(self) if any(block in document for block in SPEC_BLOCKS) else None
        if specs is not None and "samples" in document:
            sheet.samples = specs.samples(document)
            self.check_samples(document)
        uses = self.block(document, "use") if "use" in document else None
        if uses:
            sheet.use = {str(k): self.import_spec(uses, k) for k in uses}
        if specs is not None:
            for block, read in (("sweeps", specs.sweeps), ("solve", specs.solves), ("choose", specs.choices),
                                ("expect", specs.expectations), ("tables", specs.tables), ("fit", specs.fits)):
                node = self.block(document, block) if block in document else None
                if node:
                    setattr(sheet, block, read(node))
        if "cells" in document:
            self.read_cells(document)
        if "checks" in document:
            self.read_conditions(document, "checks")
        if "assume" in document:
            self.read_conditions(document, "assume")

    def check_samples(self, document: CommentedMap) -> None:
        """`samples: N` or `samples: {count: N, seed: S}`: whole numbers in range, at their position."""
        value = document["samples"]
        if isinstance(value, CommentedMap):
            for key in value:
                if key not in ("count", "seed"):
                    self.error("E-SHEET", f"unknown key {key!r} in samples", self.key_span(value, key),
                               did_you_mean(str(key), ["count", "seed"]))
            fields = [(value, k) for k in ("count", "seed") if k in value]
        else:
            fields = [(document, "samples")]
        for container, key in fields:
            number = container[key]
            low, high = (1, MAX_SAMPLES) if key in ("count", "samples") else (0, 2**63 - 1)
            if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
                line, col = self.value_pos(container, key)
                what = "the number of samples" if key != "seed" else "the seed"
                self.error("E-SHEET", f"{what} must be a whole number from {low:,} to {high:,}, got "
                                      f"{scalar_text(number) or type(number).__name__}",
                           Span(self.file, line + 1, col + 1, col + 1 + max(1, len(str(number)))),
                           "e.g. samples: {count: 10000, seed: 1}")

    def block(self, document: CommentedMap, block: str) -> CommentedMap | None:
        """A top-level block that maps names to entries (None, reported, when it does not)."""
        node = document[block]
        if node is None:
            return None
        if not isinstance(node, CommentedMap):
            self.error("E-SHEET", f"{block!r} must be a mapping", self.key_span(document, block))
            return None
        return node

    def base(self, document: CommentedMap) -> ImportSpec:
        """`extends: path`; anything else is a problem, reported when the sheet is merged with its base."""
        target, span = document["extends"], self.key_span(document, "extends")
        if isinstance(target, str):
            return ImportSpec("extends", span, target)
        return ImportSpec("extends", span, None, problems=(
            Diagnostic("E-SHEET", "'extends' must be the path of a base sheet", span),))

    def import_spec(self, uses: CommentedMap, key: Any) -> ImportSpec:
        """`alias: path` or `alias: {sheet: path, set: {name: value, …}}`."""
        name, value, span = str(key), uses[key], self.key_span(uses, key)
        if isinstance(value, str):
            return ImportSpec(name, span, value)
        if not isinstance(value, CommentedMap) or not isinstance(value.get("sheet"), str):
            return ImportSpec(name, span, None, problems=(Diagnostic(
                "E-SHEET", f"import {name!r} must be a path or {{sheet: path, set: {{...}}}}", span),))
        set_node = value.get("set")
        if isinstance(set_node, CommentedMap):
            sets, set_problems = read_inline_values(self.sheet, set_node, self.lines)
            return ImportSpec(name, span, value["sheet"], MappingProxyType(sets),
                              tuple((str(k), set_node[k]) for k in set_node), tuple(set_problems))
        problems = () if set_node is None else (
            Diagnostic("E-SHEET", "'set' must be a mapping of cell: value", span),)
        return ImportSpec(name, span, value["sheet"], problems=problems)

    def read_cells(self, document: CommentedMap) -> None:
        cells = document["cells"]
        if cells is None:
            return
        if not isinstance(cells, CommentedMap):
            self.error("E-SHEET", "'cells' must be a mapping of name: value", self.key_span(document, "cells"))
            return
        read: dict[str, CellSpec] = {}
        where = cells.lc.data   # (read once: a large sheet has tens of thousands of cells)
        for name, value in ordereddict.items(cells):   # cells[name] for each name, without their Python calls
            span = self.key_span(cells, name, where)
            if not self.valid_name(name, span):
                continue
            name = str(name)
            if type(value) is not str and isinstance(value, CommentedMap):   # (a str, most cells, asks no class)
                spec = self.read_long_cell(value, name, span)
            else:
                spec = self.read_short_value(cells, name, name, value, span, where=where)
            if spec is not None:
                read[name] = spec
        self.sheet.cells = read

    def read_conditions(self, document: CommentedMap, block: str) -> None:
        """`checks:` (findings) or `assume:` (the model's boundaries): name -> condition."""
        kind, what = ("check", "check") if block == "checks" else ("assume", "assumption")
        conditions = document[block]
        if conditions is None:
            return
        if not isinstance(conditions, CommentedMap):
            self.error("E-SHEET", f"{block!r} must be a mapping of name: condition", self.key_span(document, block))
            return
        target: dict[str, CellSpec] = {}
        for name in conditions:
            span = self.key_span(conditions, name)
            if not self.valid_name(name, span):
                continue
            if name in self.sheet.cells:
                self.error("E-SHEET", f"{what} {name!r} has the name of a cell", span, "rename one of them")
                continue
            if kind == "assume" and name in self.sheet.checks:
                self.error("E-SHEET", f"assumption {name!r} has the name of a check", span, "rename one of them")
                continue
            value = conditions[name]
            text = scalar_text(value)
            if text is None:
                self.error("E-SHEET", f"{what} {name!r} must be a condition (a formula)", span)
                continue
            body, offset = formula_body(text)
            origin = self.text_origin(conditions, name, text, shift=offset)
            formula = self.parse(body, origin)
            target[str(name)] = CellSpec(str(name), kind, text, formula, origin, span)
        if kind == "check":
            self.sheet.checks = target
        else:
            self.sheet.assume = target

    def valid_name(self, name: Any, span: Span) -> bool:
        if not isinstance(name, str) or not NAME_RE.match(name):
            self.error("E-SHEET", f"{name!r} is not a valid cell name", span,
                       "names are letters, digits and _, not starting with a digit")
            return False
        if name in RESERVED:
            self.error("E-SHEET", f"{name!r} is a reserved word", span)
            return False
        return True

    def read_short_value(self, container: Any, key: Any, name: str, value: Any, span: Span,
                         formula_key: bool = False, where: dict | None = None) -> CellSpec | None:
        """A value written inline: a formula string, or an input literal (`where`: the container's
        positions, `lc.data`, when the caller read them once)."""
        if type(value) is not str and isinstance(value, CommentedSeq):   # (CommentedSeq is an ABC: ~0.3 µs a test)
            return self.read_list_input(container, key, name, value, span)
        text = scalar_text(value)
        if text is None:
            self.error("E-SHEET", f"cell {name!r} must be a value or a formula", span,
                       "write `name: 80 GB` or `name: = a * b`")
            return None
        written = isinstance(value, str) and is_formula(text)   # `= …` (a `formula:` key's may leave the = out)
        if formula_key or written:
            body, offset = formula_body(text)
            origin = self.text_origin(container, key, text, where, offset)   # where the body starts
            raw = text if written or is_formula(text) else "= " + text
            return CellSpec(name, "formula", raw, self.parse(body, origin), origin, span)
        origin = self.text_origin(container, key, text, where)
        formula = self.parse(text, origin)
        if formula is not None and not is_literal(formula):
            self.error("E-SHEET", f"input {name!r} must be a number or quantity", origin.span(0, len(text)),
                       _input_hint(name, text))
            formula = None
        return CellSpec(name, "input", text, formula, origin, span)

    def read_list_input(self, container: Any, key: Any, name: str, value: CommentedSeq, span: Span) -> CellSpec | None:
        texts = [scalar_text(v) for v in value]
        items = [t for t in texts if t is not None]
        if len(items) < len(texts) or not items:
            self.error("E-SHEET", f"array input {name!r} must be a non-empty list of numbers or quantities", span)
            return None
        line, col = self.value_pos(container, key)
        raw = self.lines[line] if line < len(self.lines) else ""
        if col < len(raw) and raw[col] == "[":
            end = raw.find("]", col)
            text = raw[col:end + 1] if end > 0 else "[" + ", ".join(items) + "]"
            origin = Origin(self.file, line + 1, col + 1, exact=end > 0)
        else:
            text = "[" + ", ".join(items) + "]"
            origin = Origin(self.file, line + 1, col + 1, exact=False)
        formula = self.parse(text, origin)
        if formula is not None and not is_literal(formula):
            self.error("E-SHEET", f"array input {name!r} must hold numbers or quantities", span)
            formula = None
        return CellSpec(name, "input", text, formula, origin, span)

    def read_long_cell(self, node: CommentedMap, name: str, span: Span) -> CellSpec | None:
        for key in node:
            if key not in CELL_KEYS:
                self.error("E-SHEET", f"unknown key {key!r} in cell {name!r}", self.key_span(node, key),
                           did_you_mean(str(key), CELL_KEYS))
        has_value, has_formula = "value" in node, "formula" in node
        if has_value == has_formula:
            self.error("E-SHEET", f"cell {name!r} needs exactly one of 'value' and 'formula'", span)
            return None
        key = "value" if has_value else "formula"
        spec = self.read_short_value(node, key, name, node[key], span, formula_key=has_formula)
        if spec is None:
            return None
        if "unit" in node and node["unit"] is not None:
            spec.unit = str(node["unit"])
            spec.unit_span = self.text_origin(node, "unit", spec.unit).span(0, len(spec.unit))
        if "digits" in node:
            digits = node["digits"]
            if isinstance(digits, int) and not isinstance(digits, bool) and 1 <= digits <= 17:
                spec.digits = digits
            else:
                self.error("E-SHEET", f"digits of {name!r} must be a whole number from 1 to 17",
                           self.key_span(node, "digits"))
        spec.doc = _optional_text(node.get("doc"))
        spec.source = _optional_text(node.get("source"))
        return spec

    def parse(self, text: str, origin: Origin) -> Formula | None:
        try:
            return parse_formula(text)
        except ParseError as e:
            self.sheet.diagnostics.append(Diagnostic("E-PARSE", e.message, origin.span(e.start, e.end), hint=e.hint))
            return None


def _kind(document: Any) -> str:
    if isinstance(document, CommentedSeq):
        return "list"
    if isinstance(document, str):
        return "text"
    return type(document).__name__


def _input_hint(name: str, text: str) -> str:
    """What the user most likely meant by an input that is not a literal."""
    spaced = re.fullmatch(r"\s*([-+]?[\d_.]+(?:[eE][-+]?\d+)?)\s+([A-Za-zµμ%]\w*(?:\s*[/*]\s*[A-Za-zµμ]\w*)+)\s*", text)
    if spaced:   # `3350 GB / s`: with spaces, / divides by a cell named s
        unit = re.sub(r"\s+", "", spaced.group(2))
        return f"write the unit without spaces: {name}: {spaced.group(1)} {unit}"
    word = text.strip().lower()
    if word in ("yes", "no", "on", "off", "y", "n"):   # YAML 1.1's booleans are text in YAML 1.2
        return f"a condition's value is true or false (YAML 1.2 reads {text.strip()} as text): {name}: " \
               f"{'true' if word in ('yes', 'on', 'y') else 'false'}"
    if word.lstrip(".+-") in ("inf", "infinity", "nan"):   # not a value a plan can hold: an overflow is #NUM
        return "a value is a finite number, at most about 1.8e308 (a result that overflows is the error value #NUM)"
    if re.fullmatch(r"\s*[A-Za-z_]\w*\s*", text):   # `fast`: a word is not a value
        return (f"a value is a number, a quantity (80 GB) or true/false; to copy another cell write "
                f"{name}: = {text.strip()}")
    return f"formulas start with '=': {name}: = {text}"


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)

