"""Reading a sheet's YAML fast when nothing will be written back.

ruamel.yaml's round-trip loader scans in pure Python (58 % of loading a
1,000-cell sheet, seconds for 20,000 cells). Sheets are read for `run`,
`check`, `sweep` … far more often than they are edited, and the editor keeps
its own round-trip document (roundtrip.py), so here libyaml (PyYAML's C
parser) composes the node tree — composing builds no Python object from a
tag — and the very same document is built from it: mappings with plain keys
as the CommentedMaps ruamel's round-trip constructor makes, with line/column
positions for diagnostics, and plain text values as the strs it gives them
(`_Direct`); every other node converted to ruamel's nodes and built by that
constructor, so the same YAML 1.2 scalars.

Only plain documents take this path. Whatever could differ goes to the
round-trip loader, which also words every error: no libyaml; explicit tags
('!'), merge keys ('<<'), directives ('%'), anchors ('&': only the bounded
loader counts what aliases expand to, yamlguard.py) and tabs (libyaml takes a
tab the round-trip loader refuses: `a:\tb`); nesting deeper than the
loader's limit; and any exception at all.

The node and cell limits are checked here as in the bounded loader, before any
value is constructed: cells are counted on libyaml's tree, nodes in document
order while it is converted, and the one that passes a limit is reported at
the same position as the bounded loader reports it.
libyaml's own work before that is bounded by the file-size and line-length
limits (checked on the text) and its own nesting limit.

Importing PyYAML costs ~11 ms of CPU, more than the round-trip loader spends on
a small sheet (a 1 kB sheet: 3.4 ms; libyaml saves ~1.9 µs a byte: 2.3 against
0.4 µs over the library's sheets). So a process reads its first sheets with the
round-trip loader until they add up to BREAK_EVEN bytes, and imports libyaml
only then (`worth_it`) — or at once for a sheet that names other sheets
(`use:`, `extends:`), since it will read them too (3 files, 16 kB for the
median library sheet that imports). A `run` or `sweep` of a small sheet never
pays the import; a process reading many small sheets pays at most its cost
once more.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ruamel.yaml import nodes as rnodes
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.compat import ordereddict
from ruamel.yaml.tag import Tag

from supersheet.engine.load.yamlguard import YamlLimitError, too_many_cells, too_many_nodes

BREAK_EVEN = 6_000   # bytes: what the round-trip loader reads in the time importing PyYAML takes

_pyyaml: Any = None     # PyYAML, imported on first use (_libyaml)
_CLoader: Any = None
_tried = False
_read_round_trip = 0    # bytes of sheets `worth_it` sent to the round-trip loader so far


def _libyaml() -> Any:
    """PyYAML's C loader, or None without one (every sheet is then read by the round-trip loader)."""
    global _pyyaml, _CLoader, _tried
    if not _tried:
        _tried = True
        try:
            import yaml   # deferred: yaml
            from yaml.cyaml import CParser   # deferred: yaml (libyaml's parser, absent without libyaml)
            _pyyaml = yaml
            _CLoader = _composer(CParser)
        except (ImportError, AttributeError):   # pragma: no cover - depends on the installation
            _pyyaml, _CLoader = None, None
    return _CLoader


def _composer(parser: Any) -> Any:
    """libyaml's parser composing untagged nodes. PyYAML's loaders resolve every node's tag by
    YAML 1.1's rules in Python as libyaml composes it (two calls per node, and a regex per
    scalar: ~40 % of composing a 20,000-cell sheet); the tags are never read here, since
    every scalar is resolved again by ruamel's YAML 1.2 rules (`_Converter`), and explicit
    tags never take this path (`_unlike`)."""

    class Composer(parser):
        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            return ""

    return Composer


_TAG = re.compile(r"!(?!=)")   # an explicit tag: '!' not in '!='


def _unlike(text: str) -> bool:
    """Whether `text` holds what only the round-trip loader reads right: an explicit tag, a
    merge key, a directive line, an anchor, or a tab anywhere (libyaml takes a tab in a plain
    scalar or after a key's colon, which the round-trip loader refuses with E-YAML: read here,
    the same file was refused or checked by what the process had read before it). Each is
    looked for as a substring, at C speed (a tag by its own regex, from its '!'): one regex of
    these alternatives, which share no first character, is tried at every character (~10 ms
    CPU on the 1 MB of a 20,000-cell sheet). tests/engine/test_fastyaml.py keeps that regex
    as the oracle this answers as."""
    return ("&" in text or "<<" in text or "\t" in text
            or text.startswith("%") or "\n%" in text   # a directive starts a line
            or ("!" in text and _TAG.search(text) is not None))


# a top-level `use:` or `extends:`: the sheet's imports will be read next
_NAMES_SHEETS = re.compile(r"^(?:use|extends)[ \t]*:", re.MULTILINE)


def available() -> bool:
    return _libyaml() is not None


def worth_it(text: str) -> bool:
    """Whether to try libyaml on `text`: once it is imported, once the sheets this process read
    (this one included) reach BREAK_EVEN bytes, or when this sheet names others; otherwise the
    round-trip loader is quicker than the import, and the bytes it reads are counted."""
    global _read_round_trip
    if _CLoader is not None or _read_round_trip + len(text) >= BREAK_EVEN or _NAMES_SHEETS.search(text):
        return True
    _read_round_trip += len(text)
    return False


def load_fast(text: str, yaml: Any) -> Any | None:
    """The document `yaml` (a ruamel round-trip YAML) would load from `text`, or
    None when this path does not apply or fails (the caller then loads it with `yaml`)."""
    if not text.strip() or _unlike(text) or _libyaml() is None:
        return None
    try:
        loader = _CLoader(text)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
        if root is None:
            return None
        converter = _Converter(yaml.resolver, getattr(yaml, "max_depth", 0), getattr(yaml, "max_yaml_nodes", 0))
        _count_cells(root, getattr(yaml, "max_cells", 0))
        if isinstance(root, _pyyaml.MappingNode) and converter.table is not None:
            try:
                return _Direct(converter, yaml).mapping(root, 1)
            except _Declined:   # a key it does not take: every node converted, as below
                converter = _Converter(yaml.resolver, converter.max_depth, converter.max_nodes)
        return yaml.constructor.construct_document(converter.convert(root))
    except YamlLimitError:
        raise
    except Exception:  # noqa: BLE001 - the round-trip loader reads it again and words the error
        return None


def _count_cells(root: Any, limit: int) -> None:
    """Refuse, at the first cell past the limit, a top-level `cells` mapping with too many cells."""
    if not limit or not isinstance(root, _pyyaml.MappingNode):
        return
    for key, value in root.value:
        if isinstance(key, _pyyaml.ScalarNode) and key.value == "cells" and isinstance(value, _pyyaml.MappingNode) \
                and len(value.value) > limit:
            raise too_many_cells(limit, value.value[limit][0].start_mark)


class _Converter:
    """libyaml nodes -> ruamel nodes, scalars resolved by ruamel's YAML 1.2 rules
    (libyaml's loader resolved them as YAML 1.1, where `yes` is a boolean)."""

    def __init__(self, resolver: Any, max_depth: int = 0, max_nodes: int = 0) -> None:
        self.resolver = resolver
        # ruamel's resolve() looks the version and its table up again for every scalar (a
        # third of this path's time); the table is the same for the whole document
        self.table = resolver.versioned_resolver if not resolver.yaml_path_resolvers else None
        self.anywhere = list(self.table.get(None, [])) if self.table is not None else []
        self.max_depth = max_depth       # 0: no limit; deeper is left to the bounded loader, which words it
        self.max_nodes = max_nodes       # 0: no limit
        self.nodes = 0                   # nodes met so far, in document order
        self.done: dict[int, Any] = {}   # an alias is the same node object: keep it one
        self.by_first: dict[str, list[Callable[[str], object]]] = {}   # plain_text's resolvers by a scalar's first character

    def convert(self, root: Any, depth: int = 1) -> Any:
        out = self._shallow(root)
        stack = [(root, out, depth)]
        while stack:   # iterative (documents may nest deeply), in document order: children pushed last-first
            node, target, depth = stack.pop()
            if self.max_depth and depth > self.max_depth:
                raise ValueError("nested deeper than the limit")
            self.nodes += 1
            if self.max_nodes and self.nodes > self.max_nodes:
                raise too_many_nodes(self.max_nodes, node.start_mark)
            if isinstance(node, _pyyaml.ScalarNode):
                continue
            children = [part for pair in node.value for part in pair] \
                if isinstance(node, _pyyaml.MappingNode) else node.value
            fresh: list[tuple[Any, Any, int]] = []   # (libyaml node, its converted node, depth) to fill in
            converted = [self._child(child, depth, fresh) for child in children]
            if isinstance(node, _pyyaml.MappingNode):
                target.value.extend(zip(converted[::2], converted[1::2]))
            else:
                target.value.extend(converted)
            stack.extend(reversed(fresh))
        return out

    def _child(self, node: Any, depth: int, fresh: list[tuple[Any, Any, int]]) -> Any:
        """The converted node, made (and queued in `fresh` to fill in) the first time it is met."""
        known = self.done.get(id(node))
        if known is not None:
            return known
        converted = self._shallow(node)
        fresh.append((node, converted, depth + 1))
        return converted

    def _shallow(self, node: Any) -> Any:
        if isinstance(node, _pyyaml.ScalarNode):
            plain = node.style in (None, "")
            tag = self._scalar_tag(node.value, plain)
            out: Any = rnodes.ScalarNode(tag, node.value, node.start_mark, node.end_mark, node.style or None)
        elif isinstance(node, _pyyaml.SequenceNode):
            tag = self.resolver.resolve(rnodes.SequenceNode, None, (True, False))
            out = rnodes.SequenceNode(tag, [], node.start_mark, node.end_mark, node.flow_style)
        else:
            tag = self.resolver.resolve(rnodes.MappingNode, None, (True, False))
            out = rnodes.MappingNode(tag, [], node.start_mark, node.end_mark, node.flow_style)
        self.done[id(node)] = out
        return out

    def count(self, node: Any, depth: int) -> None:
        """`convert`'s limits, for a node `_Direct` takes itself."""
        if self.max_depth and depth > self.max_depth:
            raise ValueError("nested deeper than the limit")
        self.nodes += 1
        if self.max_nodes and self.nodes > self.max_nodes:
            raise too_many_nodes(self.max_nodes, node.start_mark)

    def plain_text(self, value: str) -> bool:
        """Whether a plain scalar is a string by YAML 1.2's rules (no implicit resolver takes it)."""
        first = value[0] if value else ""
        resolvers = self.by_first.get(first)
        if resolvers is None:   # the resolvers a first character can meet, listed once
            assert self.table is not None, "only _Direct asks, and load_fast gives it a converter with a table"
            # each pattern's own match (ruamel's table holds them behind a lazy proxy: a Python call a look)
            resolvers = self.by_first[first] = [regexp.match for _tag, regexp in self.table.get(first, []) + self.anywhere]
        for match in resolvers:
            if match(value):
                return False
        return True

    def _scalar_tag(self, value: str, plain: bool) -> Any:
        """What ruamel's VersionedResolver.resolve gives a scalar (its loop, with the table looked up once)."""
        if self.table is None:
            return self.resolver.resolve(rnodes.ScalarNode, value, (plain, not plain))
        if plain:
            for tag, regexp in self.table.get(value[0] if value else "", []) + self.anywhere:
                if regexp.match(value):
                    return Tag(suffix=tag)
        return self.resolver.DEFAULT_SCALAR_TAG


class _Declined(Exception):
    """A mapping `_Direct` leaves to the converter (a key that is not plain text, a duplicate)."""


class _Direct:
    """libyaml's mappings straight into the CommentedMaps ruamel's round-trip constructor
    builds (positions, flow style), their plain keys and plain text values as the `str`s it
    gives them; any other value (a number, a quoted or block string, a list) goes through
    the converter and that constructor. Converting and constructing every node was 60 % of
    this path on a 20,000-cell sheet, whose keys and formulas are nearly all plain text.
    Nodes are counted in document order, as `_Converter.convert` counts them. A key that
    is not plain text, or a duplicate, declines: the whole document is then converted (and
    a duplicate is left to the round-trip loader, which words it)."""

    def __init__(self, converter: _Converter, yaml: Any) -> None:
        self.converter = converter
        self.yaml = yaml   # ruamel's round-trip YAML: its constructor builds what this does not

    def mapping(self, node: Any, depth: int) -> CommentedMap:
        converter, scalar_node, mapping_node = self.converter, _pyyaml.ScalarNode, _pyyaml.MappingNode
        # the keys are new and plain text: CommentedMap.__setitem__ (Python, per key) only adds them to `_ok`
        set_item = ordereddict.__setitem__
        converter.count(node, depth)
        data = CommentedMap()
        lc = data.lc
        lc.line, lc.col = node.start_mark.line, node.start_mark.column
        # ruamel keeps a list a key; a tuple reads the same (nothing writes into one) and the
        # cycle collector stops walking it (a list it walks to the end): one object less a cell
        positions: dict[str, tuple[int, int, int, int]] = {}
        # converter.count(child, depth + 1) for a key and a plain value, inline (two calls a cell)
        too_deep, max_nodes = bool(converter.max_depth and depth + 1 > converter.max_depth), converter.max_nodes
        for key_node, value_node in node.value:
            if type(key_node) is not scalar_node or key_node.style or \
                    not converter.plain_text(key_node.value):
                raise _Declined
            key = key_node.value
            if key in positions:
                raise _Declined
            if too_deep:
                raise ValueError("nested deeper than the limit")
            converter.nodes += 1
            if max_nodes and converter.nodes > max_nodes:
                raise too_many_nodes(max_nodes, key_node.start_mark)
            kind = type(value_node)
            if kind is scalar_node and not value_node.style and converter.plain_text(value_node.value):
                converter.nodes += 1
                if max_nodes and converter.nodes > max_nodes:
                    raise too_many_nodes(max_nodes, value_node.start_mark)
                value: Any = value_node.value
            elif kind is mapping_node:
                value = self.mapping(value_node, depth + 1)
            else:
                value = self.yaml.constructor.construct_document(converter.convert(value_node, depth + 1))
            key_mark, value_mark = key_node.start_mark, value_node.start_mark
            positions[key] = (key_mark.line, key_mark.column, value_mark.line, value_mark.column)
            set_item(data, key, value)
        # own keys, as __setitem__ records them (`_ok` is a set, typed MutableSet)
        data._ok.update(positions)   # type: ignore[attr-defined]  # ruamel's private set, not in its types
        if positions:
            lc.data = positions
            if node.flow_style is True:
                data.fa.set_flow_style()
            elif node.flow_style is False:
                data.fa.set_block_style()
        return data
