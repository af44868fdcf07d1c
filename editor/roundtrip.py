"""Round-trip YAML for the editor: a sheet's text loaded into a ruamel
document and written back so that an unchanged sheet is byte-identical and
changing one value changes one line.

ruamel is set up with the file's own indentation (the first setting that
reproduces the file wins); what ruamel would still write differently is kept
as the file has it by a three-way line merge (`merge`). New values are
written as the user typed them (`scalar_for`). `SheetText` holds one file's
text, its round-trip document and what is on disk, and saves atomically
(temporary file, fsync, rename). Before every save the file's content hash is
compared with what was read (a same-size rewrite with its modification time
restored is still seen); a deleted file is said to be deleted and recreated
with the mode it had; a read-only file and a file with several hard links
(which the rename would break) are refused with the reason; temporary files
of ours left by a killed save are removed when the sheet is next opened or
saved. Pure Python: no UI imports.
"""
from __future__ import annotations

import functools
import hashlib
import io
import os
import re
import threading
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from supersheet.engine.base.vocabulary import is_formula
from supersheet.editor.safesave import (
    ExternalChange,
    FileDeleted,
    Written,
    atomic_write,
    fingerprint,
    read_regular,
    refuse_unsafe,
    remove_stale_temporaries,
    save_lock,
    stat_key,
)

BOM = "\ufeff"


class Unmergeable(Exception):
    """An edit that cannot be written without reformatting other lines of the file."""


class SheetText:
    """One sheet file as the editor holds it: the text as read (BOM and CRLF
    remembered), the round-trip document (loaded on the first edit or save,
    not to slow opening), the text as it would be saved, and what is on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loading = threading.Lock()
        self.read()

    def read(self) -> None:
        remove_stale_temporaries(self.path)
        data, st = read_regular(self.path)
        self._disk = fingerprint(self.path, data, st)
        text = data.decode("utf-8")
        self._bom = text.startswith(BOM)
        text, self._endings = split_endings(text.removeprefix(BOM))
        self.original = text
        self._rt: tuple[YAML, Any, str] | None = None
        self._text: str | None = text
        self._split: tuple[str, list[str]] | None = None   # a text and its lines (`_lines`)
        self._pending: list[str] | None = None   # lines edited in place, the text not joined yet (`_settle`)
        self._last_line: tuple[str, Any, str | None] | None = None   # the last `_one_line`: key, value, line

    def _round_trip(self) -> tuple[YAML, Any, str]:
        with self._loading:     # `warm` may be loading it in another thread
            if self._rt is None:
                self._rt = yaml_for(self.original)
            return self._rt

    def warm(self) -> None:
        """Load the round-trip document now (from a worker thread: the first edit then need not wait)."""
        self._round_trip()

    @property
    def yaml(self) -> YAML:
        return self._round_trip()[0]

    @property
    def doc(self) -> Any:
        """The round-trip document (None when the file is not YAML ruamel can write back)."""
        return self._round_trip()[1]

    def text(self) -> str:
        """The sheet as it would be saved (newlines normalised to \\n)."""
        self._settle()
        if self._text is None:
            self._text = self.merged()
        return self._text

    def known_text(self) -> str:
        """The text as last known, without writing the document out."""
        self._settle()
        return self._text if self._text is not None else self.original

    def _settle(self) -> None:
        """The lines `replace_scalar` edited, joined into the text when it is read (not at each
        edit: a join of a 20,000-cell sheet cost as much as the rest of an edit no cell reads)."""
        if self._pending is not None:
            self._text = "\n".join(self._pending)
            self._split, self._pending = (self._text, self._pending), None

    def merged(self) -> str:
        """The document as it now is, merged into the text as read."""
        return merge(self.original, self._round_trip()[2], self.dump())

    def dump(self) -> str:
        out = io.StringIO()
        self.yaml.dump(self.doc, out)
        return out.getvalue()

    def changed(self, text: str | None = None) -> None:
        """The document was changed in place (`text`: and this is how it reads)."""
        self._text, self._pending = text, None

    def replace_scalar(self, line: int, key: str, old: Any, new: Any, nested: bool = False) -> bool:
        """The value of `key` changed from `old` to `new` in the document; write it
        into the text on its line (1-based; `nested`: `key` is a key of the
        mapping under line `line`, as `value:` of a cell in the long form)
        without writing the whole document out, which takes as long as the file
        is big. Done only when the line reads exactly `key: OLD` as ruamel
        writes it, so the result is the line the whole document would give;
        False otherwise (the caller then calls `changed()` and the text is
        merged from the document)."""
        lines = self._lines()
        if not 0 < line <= len(lines) or not isinstance(key, str):
            return False
        was, now = self._one_line(key, old), self._one_line(key, new)
        if was is None or now is None:
            return False
        at = _child_line(lines, line - 1, was) if nested else line - 1
        current = lines[at] if at is not None else ""
        indent = current[:len(current) - len(current.lstrip(" "))]
        if at is None or current != indent + was:
            return False
        lines[at] = indent + now
        self._pending, self._split = lines, None   # the list is no longer the lines of the split text
        return True

    def _lines(self) -> list[str]:
        """The known text's lines, split once for a run of edits (a split of a 20,000-cell sheet
        was a third of an edit no cell depends on): kept with the text they are of, and used only
        while that is still the text, whatever changed it since."""
        if self._pending is not None:
            return self._pending
        text = self.known_text()
        split = self._split
        if split is None or split[0] is not text:
            split = (text, text.split("\n"))
            self._split = split
        return split[1]

    def _one_line(self, key: str, value: Any) -> str | None:
        """`key: value` as this document's YAML writes it, if that is one line. The last
        one is remembered: an edit's old value is the value the edit before wrote."""
        last = self._last_line
        if last is not None and last[0] == key and last[1] is value:
            return last[2]
        line = self._write_one_line(key, value)
        self._last_line = (key, value, line)
        return line

    def _write_one_line(self, key: str, value: Any) -> str | None:
        plain = _plain_line(key, value, self.yaml)
        if plain is not None:
            return plain
        if isinstance(value, (CommentedMap, dict)) or (isinstance(value, CommentedSeq)
                                                         and not value.fa.flow_style()):
            return None
        out = io.StringIO()
        try:
            self.yaml.dump({key: value}, out)
        except Exception:  # noqa: BLE001 - not writable on its own: the whole document is written
            return None
        text = out.getvalue()
        return text[:-1] if text.count("\n") == 1 and text.endswith("\n") else None

    def restore(self, text: str) -> None:
        """Make the document the one `text` loads to."""
        yaml, _, base = self._round_trip()
        self._rt = (yaml, load_yaml(yaml, text), base)
        self._text, self._pending = text, None

    def deleted(self) -> bool:
        return not os.path.lexists(self.path)

    def disk_changed(self, thorough: bool = False) -> bool:
        """Whether the file on disk differs from what was read or last saved.

        Cheap by default (for watching): the content is hashed only when the
        inode, size, modification or change time moved (a program can restore
        the modification time, not the change time). `thorough` always hashes."""
        try:
            st = self.path.stat()
        except OSError:
            return True
        if not thorough and stat_key(st) == self._disk.stat_key:
            return False
        try:
            data, st = read_regular(self.path)
        except OSError:
            return True
        if hashlib.sha256(data).hexdigest() == self._disk.digest:
            self._disk = fingerprint(self.path, data, st)
            return False
        return True

    def save(self, force: bool = False) -> Written | None:
        """Write the text back; None when the file already holds it, else what
        the write did besides (`Written`: another program's version kept
        beside the sheet when one slipped in during the save; what of the
        owner and attributes could not be kept).

        Raises `FileDeleted` when the file was deleted and `ExternalChange` when
        its content changed on disk since it was read (both unless `force`: the
        user chose to recreate or overwrite), `SaveRefused` for a read-only
        file or one with several hard links, `Unmergeable` for an edit that
        would reformat other lines. The check and the write happen under the
        folder's save lock (safesave.save_lock)."""
        remove_stale_temporaries(self.path)
        text = self.text()
        out, endings = with_endings(text, self.original, self._endings)
        data = ((BOM if self._bom else "") + out).encode("utf-8")
        with save_lock(self.path) as directory_fd:
            if not force and self.deleted():
                raise FileDeleted(f"{self.path} was deleted since it was opened")
            if not force and self.disk_changed(thorough=True):
                raise ExternalChange(f"{self.path} changed on disk since it was opened")
            refuse_unsafe(self.path)
            st: os.stat_result | None = None      # of the file as it is now; fingerprint() stats it when None
            try:
                on_disk, st = read_regular(self.path)
                same = on_disk == data
            except OSError:
                same = False
            written = None
            if not same:
                written = atomic_write(self.path, data, self._disk.mode, None if force else self._disk,
                                       directory_fd)
                st = written.stat
            self._disk = fingerprint(self.path, data, st)     # of what was written, not of a write after it
        yaml, doc, _ = self._round_trip()
        self.original, self._endings = text, endings
        self._rt, self._text, self._pending = (yaml, doc, self.dump()), text, None
        return written


def split_endings(text: str) -> tuple[str, list[str]]:
    """The text with its line endings made \\n, and each line's own ending
    ("\\r\\n" or "\\n"; the last line has none), so that a file that mixes
    them is written back with each line's."""
    lines = text.split("\n")
    endings = []
    for i, line in enumerate(lines[:-1]):
        crlf = line.endswith("\r")
        endings.append("\r\n" if crlf else "\n")
        if crlf:
            lines[i] = line[:-1]
    return "\n".join(lines), endings


def with_endings(text: str, original: str, endings: list[str]) -> tuple[str, list[str]]:
    """`text` (\\n endings) with the line endings of `original`, the text as
    read, whose lines ended with `endings`: a line kept from it keeps its
    ending, a new or changed line takes the ending of the line it replaces
    (or of the line before it). Returns the text to write and its endings."""
    if len(set(endings)) <= 1:
        ending = endings[0] if endings else "\n"
        return (text.replace("\n", ending) if ending != "\n" else text), [ending] * text.count("\n")
    old, new = original.split("\n"), text.split("\n")
    chosen: list[str] = []
    for tag, a1, a2, b1, b2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        for k in range(b2 - b1):
            at = a1 + k if tag == "equal" or a1 + k < a2 else max(a2 - 1, a1 - 1)
            chosen.append(endings[min(max(at, 0), len(endings) - 1)])
    chosen = chosen[:len(new) - 1]
    return "".join(line + ending for line, ending in zip(new, chosen)) + new[-1], chosen


def _child_line(lines: list[str], parent: int, wanted: str) -> int | None:
    """The line of the mapping under line `parent` that reads `wanted` (indentation aside)."""
    def indent(text: str) -> int:
        return len(text) - len(text.lstrip(" "))
    child = None
    for at in range(parent + 1, len(lines)):
        text = lines[at]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if indent(text) <= indent(lines[parent]):
            return None              # the mapping ended
        child = indent(text) if child is None else child
        if indent(text) == child and text.lstrip(" ") == wanted:
            return at                # (a deeper line belongs to another key's value)
    return None


# -- YAML ----------------------------------------------------------------------------
def yaml_for(text: str) -> tuple[YAML, Any, str]:
    """A round-trip YAML set up with the file's own indentation, the loaded
    document, and how that YAML writes it back. The detected indentation is
    tried first; the first setting that reproduces the file exactly wins."""
    detected = detect_indent(text)
    candidates = [detected] + [c for c in ((2, 0), (2, 2), (4, 0), (4, 2), (4, 4), (3, 0)) if c != detected]
    first: tuple[YAML, Any, str] | None = None
    for mapping, offset in candidates:
        yaml = make_yaml(mapping, offset)
        doc = load_yaml(yaml, text)
        if doc is None:
            return yaml, None, text
        out = io.StringIO()
        try:
            yaml.dump(doc, out)
        except Exception:  # noqa: BLE001 - a document ruamel cannot write back: edits are refused
            return yaml, None, text
        if out.getvalue() == text:
            return yaml, doc, text
        first = first or (yaml, doc, out.getvalue())
    assert first is not None
    return first


def make_yaml(mapping: int, offset: int) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    return yaml


def load_yaml(yaml: YAML, text: str) -> Any:
    try:
        return yaml.load(text)
    except Exception:  # noqa: BLE001 - the sheet's diagnostics already say what is wrong
        return None


_BLOCK_SCALAR = re.compile(r"^(?:- )?[^#]*:\s+[|>][-+0-9]*\s*(?:#.*)?$")
_NESTED_KEY = re.compile(r"^[^\s#\-\[{][^#]*:\s*(?:#.*)?$")


def detect_indent(text: str) -> tuple[int, int]:
    """(mapping indent, block-sequence dash offset) as the file writes them."""
    lines = text.splitlines()
    maps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    skip_deeper_than: int | None = None
    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if skip_deeper_than is not None:
            if indent > skip_deeper_than:
                continue
            skip_deeper_than = None
        if _BLOCK_SCALAR.match(stripped):
            skip_deeper_than = indent
            continue
        if not _NESTED_KEY.match(stripped):
            continue
        following = next((l for l in lines[i + 1:] if l.strip() and not l.lstrip().startswith("#")), None)
        if following is None:
            continue
        deeper = len(following) - len(following.lstrip(" "))
        if following.lstrip(" ").startswith("- ") or following.strip() == "-":
            offsets[deeper - indent] += 1
        elif deeper > indent:
            maps[deeper - indent] += 1
    mapping = maps.most_common(1)[0][0] if maps else 2
    offset = offsets.most_common(1)[0][0] if offsets else 0
    return mapping, max(offset, 0)


def scalar_for(text: str, old: Any, yaml: YAML) -> Any:
    """The YAML value for a cell's new raw text, written as the user typed it:
    numbers and booleans as YAML numbers, lists as flow sequences, the rest as
    strings (quoted the way the old value was, when it was quoted)."""
    if not is_formula(text):
        value = _yaml_value(text)
        if value is not None:
            return value
    return string_like(text, old)


@functools.cache
def _scalar_yaml() -> YAML:
    """One round-trip YAML for reading and writing a typed scalar (building one per edit
    cost more than the rest of an edit that changes no other cell)."""
    return make_yaml(2, 0)


# the two commonest typed values, read without YAML's parser (its load and dump were most
# of an edit's own time): a plain decimal integer is that int, and a number with a one-word
# unit (`103 GB`, `1.5 GiB/s`) a plain string (tests/editor/test_typed_scalars.py: the same
# as the parser's answer)
_PLAIN_INT = re.compile(r"-?[1-9][0-9]*\Z")
_NUMBER_AND_UNIT = re.compile(r"-?[0-9][0-9.eE+-]* [A-Za-z%][A-Za-z0-9%/*^.]*\Z")


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
_STR_TAG = "tag:yaml.org,2002:str"


def _plain_line(key: Any, value: Any, yaml: YAML) -> str | None:
    """`key: value` as YAML writes it, without its emitter, for the values `_yaml_value`
    reads without the parser (a plain integer, a number with a one-word unit) under a
    name that YAML reads as a string unquoted: setting up the emitter for one line cost
    as much as the rest of an edit's own work (tests/editor/test_typed_scalars.py: the
    same line). None for anything else."""
    if not (type(value) is int or (type(value) is str and _NUMBER_AND_UNIT.match(value))):
        return None
    if type(key) is not str or not _PLAIN_KEY.match(key) \
            or yaml.resolver.resolve(ScalarNode, key, (True, False)) != _STR_TAG:
        return None
    return f"{key}: {value}"


def _yaml_value(text: str) -> Any:
    if _PLAIN_INT.match(text):
        return int(text)
    if _NUMBER_AND_UNIT.match(text):
        return None
    return _parsed_yaml_value(text)


def _parsed_yaml_value(text: str) -> Any:
    yaml = _scalar_yaml()
    try:
        value = yaml.load(text)
    except Exception:  # noqa: BLE001 - not YAML on its own: a string
        return None
    if isinstance(value, CommentedSeq):
        if not all(isinstance(v, (int, float, str)) for v in value):
            return None
        value.fa.set_flow_style()
    elif not isinstance(value, (int, float, bool)):
        return None
    out = io.StringIO()
    yaml.dump({"a": value}, out)
    return value if out.getvalue() == f"a: {text}\n" else None


def string_like(text: str, old: Any) -> Any:
    if isinstance(old, SingleQuotedScalarString) and "\n" not in text:
        return SingleQuotedScalarString(text)
    if isinstance(old, DoubleQuotedScalarString):
        return DoubleQuotedScalarString(text)
    return text


def flow(items: dict) -> CommentedMap:
    node = CommentedMap(items)
    node.fa.set_flow_style()
    return node


def merge(original: str, base: str, edited: str) -> str:
    """Apply the line changes base -> edited to original (base is how ruamel
    writes original): lines ruamel would reformat stay as the file has them."""
    if original == base or base == edited:
        return edited if original == base else original
    a = original.splitlines(keepends=True)
    b = base.splitlines(keepends=True)
    c = edited.splitlines(keepends=True)
    # Lines are matched by their non-blank characters: ruamel drops trailing
    # spaces and respaces flow lists and comments, which must not stop a line
    # from being recognised (and the whole file from being kept as written).
    where: dict[int, int] = {}
    for a0, b0, n in SequenceMatcher(None, _shapes(a), _shapes(b), autojunk=False).get_matching_blocks():
        for k in range(n):
            where[b0 + k] = a0 + k
    pieces: list[tuple[int, int, list[str]]] = []
    for tag, b1, b2, c1, c2 in SequenceMatcher(None, b, c, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if b1 < b2:
            if any(k not in where for k in range(b1, b2)) or where[b2 - 1] - where[b1] != b2 - 1 - b1:
                raise Unmergeable("the edit cannot be written without reformatting other lines of the file")
            a1, a2 = where[b1], where[b2 - 1] + 1
        elif b1 in where:
            a1 = a2 = where[b1]
        elif b1 - 1 in where:
            a1 = a2 = where[b1 - 1] + 1
        elif b1 == 0:
            a1 = a2 = 0
        else:
            raise Unmergeable("the edit cannot be written without reformatting other lines of the file")
        pieces.append((a1, a2, c[c1:c2]))
    for a1, a2, new in reversed(pieces):
        a[a1:a2] = new
    return "".join(a)


def _shapes(lines: list[str]) -> list[str]:
    return ["".join(line.split()) for line in lines]
