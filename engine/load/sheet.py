"""YAML file -> `SheetFile`: the sheet as written, every cell mapped to its
file, line and column, shape errors as diagnostics (read by
sheet_reader.py into the classes of sheetfile.py).

Loading uses ruamel.yaml's round-trip constructor, which never constructs
Python objects from tags; any explicit tag that is not a core YAML tag is
rejected. Plain documents are parsed by libyaml (fastyaml.py) and constructed
by the same constructor; the editor keeps its own round-trip document
(roundtrip.py) to save edits with comments intact.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from supersheet.engine.base.diagnostics import Diagnostic, escaped, excerpt
from supersheet.engine.base.limits import current_limits
from supersheet.engine.base.sheetroot import UnreadableSheet, read_sheet_text
from supersheet.engine.base.span import Span
from supersheet.engine.load.fastyaml import load_fast, worth_it
from supersheet.engine.load.sheet_reader import SheetReader
from supersheet.engine.load.sheetfile import SheetFile
from supersheet.engine.load.yamlguard import YamlLimitError, guarded_loader, long_line
from supersheet.engine.base.vocabulary import TOP_LEVEL_KEYS
from ruamel.yaml.comments import merge_attrib


def yaml_loader() -> YAML:
    """The round-trip loader (comments kept for saving), bounded by the limits."""
    yaml = guarded_loader(current_limits())
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def load_sheet(path: str | Path, text: str | None = None, keep_document: bool = False) -> SheetFile:
    """Read and shape-check one sheet file. Never raises for bad input.

    A file that is not a sheet (not a regular file, too large, not text, not a
    mapping of sheet keys) is reported by its name and first problem, and its
    diagnostics never quote its lines. The YAML document is kept (`document`) only
    when asked: once read into the sheet's specs nothing reads it, and a large
    sheet's is ~0.3 KiB a cell (a mapping entry, a set entry and a position tuple,
    in three tables of the sheet's size) that every collection of the cycle
    collector would walk again (issue 30)."""
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
        # libyaml when it applies and a small sheet does not make its import the larger cost (fastyaml.py)
        document = load_fast(text, yaml_loader()) if worth_it(text) else None
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
    # a merge key is `<<`, or a tag naming merge (perhaps %-escaped): without either, no walk
    merge = _merge_key(document, text.splitlines(), file) if "<<" in text or "merge" in text or "%" in text else None
    if merge is not None:
        sheet.diagnostics.append(merge)
        return sheet
    if keep_document:
        sheet.document = document
    SheetReader(sheet, text.splitlines()).read(document)
    return sheet


def not_a_sheet(path: str | Path) -> str | None:
    """Why the file at `path` is not a sheet, in one line that never quotes it (it may be a
    secret: git's textconv runs on every `.yaml` of a repository), or None for a sheet - a
    readable YAML mapping with at least one of the sheet's top-level keys, valid or not.
    UnreadableSheet (FileNotFoundError) for a file that cannot be read as text at all: not
    a regular file, over the size limit, no permission."""
    try:
        text = read_sheet_text(Path(path))
    except UnreadableSheet as e:
        if "is not a sheet" in str(e):      # binary: readable, and not a sheet
            return str(e)
        raise
    sheet = load_sheet(path, text, keep_document=True)
    document = sheet.document
    if isinstance(document, CommentedMap) and document and any(k in TOP_LEVEL_KEYS for k in document):
        return None
    first = sheet.diagnostics[0] if sheet.diagnostics else None
    if first is None:
        return f"{path} is not a sheet: " + ("an empty file" if document is None else
                                            "a mapping with none of the keys title, cells, use, ...")
    if first.quote:     # a syntax error in a file named .yaml: its place, never its line
        where = f" (line {first.span.line}, column {first.span.col})" if first.span else ""
        return f"{path} is not a sheet: not valid YAML{where}"
    return first.message if "is not a sheet" in first.message else f"{path} is not a sheet: {first.message}"


def _merge_key(document: Any, lines: list[str], file: str) -> Diagnostic | None:
    """YAML merge keys (`<<: *base`) copy keys that have no position of their own in the file, so
    no diagnostic or edit could point at them: refused, at the `<<`."""
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

