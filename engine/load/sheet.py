"""YAML file -> `SheetFile`: the sheet as written, every cell mapped to its
file, line and column, shape errors as diagnostics.

Loading uses ruamel.yaml's round-trip constructor, which never constructs
Python objects from tags; any explicit tag that is not a core YAML tag is
rejected. Plain documents are parsed by libyaml (fastyaml.py) and constructed
by the same constructor; the editor keeps its own round-trip document
(roundtrip.py) to save edits with comments intact.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from supersheet.engine.base.diagnostics import Diagnostic, did_you_mean, escaped, excerpt
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_text
from supersheet.engine.base.span import Origin, Span
from supersheet.engine.formula.ast import Formula, is_literal
from supersheet.engine.formula.parser import ParseError, formula_body, parse_formula
from supersheet.engine.load.fastyaml import load_fast
from supersheet.engine.load.positions import Positions, scalar_text
from supersheet.engine.load.specs import ChoiceBlock, Expected, SamplesSpec, SolveBlock, SpecReader, SweepBlock
from supersheet.engine.load.yamlguard import YamlLimitError, guarded_loader, long_line
from supersheet.engine.load.yamltags import find_tag

TOP_LEVEL_KEYS = ("title", "doc", "extends", "use", "cells", "checks", "assume", "sweeps", "solve", "choose", "expect",
                  "samples")
CELL_KEYS = ("value", "formula", "unit", "digits", "doc", "source")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RESERVED = frozenset({"and", "or", "not", "true", "false"})


@dataclass
class CellSpec:
    """One cell as written: an input (a literal) or a formula, or a check."""

    name: str
    kind: str                      # "input" | "formula" | "check" | "assume"
    text: str                      # the raw text as written ("80 GB", "= a / b -> GB")
    formula: Formula | None        # None when it did not parse
    origin: Origin                 # where the formula / value text starts
    span: Span                     # the cell's name in the file
    unit: str | None = None        # display unit from `unit:` (or `-> unit`)
    unit_span: Span | None = None
    digits: int | None = None
    doc: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class ImportSpec:
    """An import (`use: alias`) or a base (`extends`), read once when its file loads.

    `target` is the sheet it names (`use: {a: x.yaml}`, `{sheet: x.yaml, set: …}`,
    `extends: x.yaml`), None when it is not written as a path; `sets` are its
    `set:` values read as cells are, and `written_sets` the same values as YAML
    typed them (the editor copies an inherited import with them). `problems`
    (its shape, its `set:` values) are reported where the import is resolved,
    each time it is, as before: no later stage reads its YAML."""

    name: str
    span: Span
    target: str | None
    sets: Mapping[str, CellSpec] = field(default_factory=lambda: MappingProxyType({}))
    written_sets: tuple[tuple[str, Any], ...] | None = None    # None: no `set:` mapping
    problems: tuple[Diagnostic, ...] = ()


@dataclass
class SheetFile:
    path: Path
    title: str = ""
    doc: str = ""
    extends: ImportSpec | None = None
    use: dict[str, ImportSpec] = field(default_factory=dict)
    cells: dict[str, CellSpec] = field(default_factory=dict)
    checks: dict[str, CellSpec] = field(default_factory=dict)
    assume: dict[str, CellSpec] = field(default_factory=dict)   # assumptions: the model's boundaries (format 9.2)
    sweeps: dict[str, SweepBlock] = field(default_factory=dict)   # these five as typed specs (specs.py)
    solve: dict[str, SolveBlock] = field(default_factory=dict)
    choose: dict[str, ChoiceBlock] = field(default_factory=dict)
    expect: dict[str, Expected] = field(default_factory=dict)
    samples: SamplesSpec | None = None
    document: Any = None
    text: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def file(self) -> str:
        return str(self.path)


def yaml_loader() -> YAML:
    """The round-trip loader (comments kept for saving), bounded by the limits."""
    yaml = guarded_loader(current_limits())
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def load_sheet(path: str | Path, text: str | None = None) -> SheetFile:
    """Read and shape-check one sheet file. Never raises for bad input.

    A file that is not a sheet (not a regular file, too large, not text, not a
    mapping of sheet keys) is reported by its name and first problem, and its
    diagnostics never quote its lines."""
    path = Path(path)
    sheet = SheetFile(path=path)
    file = str(path)
    if text is None:
        try:
            text = read_sheet_text(path)
        except FileNotFoundError:
            sheet.diagnostics.append(Diagnostic("E-IMPORT", f"no such file: {file}", None))
            return sheet
        except UnreadableSheet as e:
            sheet.diagnostics.append(Diagnostic("E-IMPORT", str(e), Span(file, 1, 1, 2), quote=False))
            return sheet
    limits = current_limits()
    if len(text) > limits.max_file_size:     # unsaved text from the editor, or a file read as characters
        sheet.diagnostics.append(Diagnostic(
            "E-IMPORT", f"{file} is larger than the file-size limit ({len(text):,} > {limits.max_file_size:,})",
            Span(file, 1, 1, 2), quote=False, hint="raise it with --max-file-size BYTES"))
        return sheet
    too_long = long_line(text, limits.max_line_length)
    if too_long is not None:
        line, length = too_long
        sheet.diagnostics.append(Diagnostic(
            "E-YAML", f"line {line} is {length:,} characters long, over the limit of {limits.max_line_length:,}",
            Span(file, line, limits.max_line_length + 1, limits.max_line_length + 2), quote=False,
            hint="split the line, or raise the limit with --max-line-length N"))
        return sheet
    sheet.text = text
    try:
        document = load_fast(text, yaml_loader())   # libyaml when it applies (fastyaml.py)
        if document is None:
            document = yaml_loader().load(text)
    except YamlLimitError as e:
        sheet.diagnostics.append(Diagnostic(e.code, e.message, Span(file, e.line, e.col, e.col + 1), quote=False,
                                            hint=e.hint))
        return sheet
    except MarkedYAMLError as e:
        sheet.diagnostics.append(_yaml_diagnostic(e, file, text))
        return sheet
    except (YAMLError, ValueError, RecursionError) as e:
        problem = str(e).split("\n")[0]        # e.g. a NUL byte: the reader names its position, not a line
        sheet.diagnostics.append(_huge_integer(text, file) or Diagnostic(
            "E-YAML", f"{file} is not a sheet: not valid YAML ({escaped(problem)})", Span(file, 1, 1, 2), quote=False))
        return sheet
    merge = _merge_key(document, text.splitlines(), file)
    if merge is not None:
        sheet.diagnostics.append(merge)
        return sheet
    sheet.document = document
    _Reader(sheet, text.splitlines()).read(document)
    return sheet


def read_inline_values(sheet: SheetFile, mapping: CommentedMap,
                       lines: list[str] | None = None) -> tuple[dict[str, CellSpec], list[Diagnostic]]:
    """Name -> value or formula written inline (an import's `set:`, a `--set`), each read as a
    cell's value is; the problems are returned, not added to the sheet's."""
    reader = _Reader(sheet, sheet.text.splitlines() if lines is None else lines)
    before = len(sheet.diagnostics)
    specs: dict[str, CellSpec] = {}
    for name in mapping:
        spec = reader.read_short_value(mapping, name, str(name), mapping[name], reader.key_span(mapping, name))
        if spec is not None:
            specs[str(name)] = spec
    problems = sheet.diagnostics[before:]
    del sheet.diagnostics[before:]
    return specs, problems


def _merge_key(document: Any, lines: list[str], file: str) -> Diagnostic | None:
    """YAML merge keys (`<<: *base`) copy keys that have no position of their own in the file, so
    no diagnostic or edit could point at them: refused, at the `<<`."""
    from ruamel.yaml.comments import merge_attrib
    stack, seen = [document], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, CommentedMap):
            if getattr(node, merge_attrib, None):
                line, col = node.lc.line, node.lc.col
                for number in range(line, len(lines)):
                    found = lines[number].find("<<", col if number == line else 0)
                    if found >= 0:
                        line, col = number, found
                        break
                return Diagnostic("E-SHEET", "YAML merge keys ('<<') are not supported in sheets",
                                  Span(file, line + 1, col + 1, col + 3),
                                  hint="write the keys out; to share values between sheets, import one with 'use:'")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _huge_integer(text: str, file: str) -> Diagnostic | None:
    """Python refuses to read integers of more than 4,300 digits (ValueError without a position): find it."""
    match = re.search(r"\d{4000,}", text)
    if match is None:
        return None
    line = text.count("\n", 0, match.start()) + 1
    col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return Diagnostic("E-SHEET", f"a number of {len(match.group())} digits is out of range (a 64-bit float holds "
                                 "up to about 1.8e308)", Span(file, line, col, col + len(match.group())),
                      hint="write it in a larger unit")


def _yaml_diagnostic(e: MarkedYAMLError, file: str, text: str = "") -> Diagnostic:
    mark = e.problem_mark or e.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    lines = text.splitlines()
    if lines and line > len(lines):  # "at the end of the stream": on the last line, not past the file
        line = len(lines)
        col = len(lines[-1]) + 1
    problem = (e.problem or e.context or "invalid YAML").strip()
    # A syntax error in a file named like a sheet quotes its line (escaped,
    # excerpted); in any other file it is a file that is not a sheet.
    quote = file.endswith((".yaml", ".yml"))
    if "duplicate key" in problem or type(e).__name__ == "DuplicateKeyError":
        key = re.search(r'duplicate key "([^"]*)"', str(e))
        written = _written_key(e, line, col)
        if key and written and (written != key.group(1) or not written.isidentifier()):
            # `1:` and `true:` are one YAML key (1 == True): say that neither is a name
            return Diagnostic("E-SHEET", f"key {written!r} is not a name, and YAML reads it as the same key as an "
                                         f"earlier one ({key.group(1)})", Span(file, line, col, col + len(written)),
                              hint="names start with a letter or '_'; true, false, yes, no, null and numbers are "
                                   "YAML values, not names")
        message = f"duplicate key {excerpt(key.group(1))}" if key else "duplicate key"
        return Diagnostic("E-SHEET", message, Span(file, line, col, col + (len(key.group(1)) if key else 1)),
                          hint="each key may appear only once in a mapping", quote=quote)
    message = f"not valid YAML: {escaped(problem)}" if quote else \
        f"{file} is not a sheet: not valid YAML ({escaped(problem)})"
    return Diagnostic("E-YAML", message, Span(file, line, col, col + 1), quote=quote)


def _written_key(e: MarkedYAMLError, line: int, col: int) -> str | None:
    """The key as the file spells it, at the error's position."""
    buffer = getattr(e.problem_mark, "buffer", None) if e.problem_mark else None
    if not buffer:
        return None
    text = buffer.split("\n")[line - 1] if line - 1 < buffer.count("\n") + 1 else ""
    match = re.match(r"[^:,{}\[\]#]+", text[col - 1:])
    return match.group(0).strip().strip("'\"") if match else None


SAMPLES_LIMIT = 10_000_000


class _Reader(Positions):
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
        specs = SpecReader(self)
        if "samples" in document:
            sheet.samples = specs.samples(document)
            self.check_samples(document)
        uses = self.block(document, "use") if "use" in document else None
        if uses:
            sheet.use = {str(k): self.import_spec(uses, k) for k in uses}
        for block, read in (("sweeps", specs.sweeps), ("solve", specs.solves), ("choose", specs.choices),
                            ("expect", specs.expectations)):
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
            low, high = (1, SAMPLES_LIMIT) if key in ("count", "samples") else (0, 2**63 - 1)
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
            sets, problems = read_inline_values(self.sheet, set_node, self.lines)
            return ImportSpec(name, span, value["sheet"], MappingProxyType(sets),
                              tuple((str(k), set_node[k]) for k in set_node), tuple(problems))
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
        for name in cells:
            span = self.key_span(cells, name)
            if not self.valid_name(name, span):
                continue
            spec = self.read_cell(cells, str(name), span)
            if spec is not None:
                self.sheet.cells[str(name)] = spec

    def read_conditions(self, document: CommentedMap, block: str) -> None:
        """`checks:` (findings) or `assume:` (the model's boundaries): name -> condition."""
        kind, what = ("check", "check") if block == "checks" else ("assume", "assumption")
        conditions = document[block]
        if conditions is None:
            return
        if not isinstance(conditions, CommentedMap):
            self.error("E-SHEET", f"{block!r} must be a mapping of name: condition", self.key_span(document, block))
            return
        target = self.sheet.checks if kind == "check" else self.sheet.assume
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
            origin = self.text_origin(conditions, name, text)
            body, offset = formula_body(text)
            origin = Origin(origin.file, origin.line, origin.col + offset, origin.exact)
            formula = self.parse(body, origin)
            target[str(name)] = CellSpec(str(name), kind, text, formula, origin, span)

    def valid_name(self, name: Any, span: Span) -> bool:
        if not isinstance(name, str) or not NAME_RE.match(name):
            self.error("E-SHEET", f"{name!r} is not a valid cell name", span,
                       "names are letters, digits and _, not starting with a digit")
            return False
        if name in RESERVED:
            self.error("E-SHEET", f"{name!r} is a reserved word", span)
            return False
        return True

    def read_cell(self, cells: CommentedMap, name: str, span: Span) -> CellSpec | None:
        value = cells[name]
        if isinstance(value, CommentedMap):
            return self.read_long_cell(value, name, span)
        return self.read_short_value(cells, name, name, value, span)

    def read_short_value(self, container: Any, key: Any, name: str, value: Any, span: Span,
                         formula_key: bool = False) -> CellSpec | None:
        """A value written inline: a formula string, or an input literal."""
        if isinstance(value, CommentedSeq):
            return self.read_list_input(container, key, name, value, span)
        text = scalar_text(value)
        if text is None:
            self.error("E-SHEET", f"cell {name!r} must be a value or a formula", span,
                       "write `name: 80 GB` or `name: = a * b`")
            return None
        origin = self.text_origin(container, key, text)
        is_formula = formula_key or (isinstance(value, str) and text.lstrip().startswith("="))
        if is_formula:
            body, offset = formula_body(text)
            origin = Origin(origin.file, origin.line, origin.col + offset, origin.exact)
            raw = text if text.lstrip().startswith("=") else "= " + text
            return CellSpec(name, "formula", raw, self.parse(body, origin), origin, span)
        formula = self.parse(text, origin)
        if formula is not None and not is_literal(formula):
            self.error("E-SHEET", f"input {name!r} must be a number or quantity", origin.span(0, len(text)),
                       _input_hint(name, text))
            formula = None
        return CellSpec(name, "input", text, formula, origin, span)

    def read_list_input(self, container: Any, key: Any, name: str, value: CommentedSeq, span: Span) -> CellSpec | None:
        items = [scalar_text(v) for v in value]
        if any(i is None for i in items) or not items:
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
