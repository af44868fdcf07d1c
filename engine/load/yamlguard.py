"""YAML loading bounded before the work: line length, nesting depth, the
number of nodes after expanding aliases, and the number of cells.

A 546-byte "billion laughs" (`b: [*a, *a, …]`, nine levels) loads as a small
graph of shared nodes, but anything that walks it expands 10⁹ scalars. The
composer counts every node an alias stands for as it meets the alias and
stops with the alias's position when the total passes the limit; ruamel's own
`max_depth` stops deep block nesting at the node that passes it (before
Python's recursion limit), and the scanner stops deep flow nesting (`[[[…`).
The keys of the top-level `cells` mapping are counted as they are read, and
the first one past the cell limit stops the load at its position. The fast
path (fastyaml.py) counts nodes and cells the same way, in document order.
"""
from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, SequenceNode
from ruamel.yaml.scanner import RoundTripScanner

from supersheet.engine.base.limits import Limits


class YamlLimitError(Exception):
    def __init__(self, message: str, line: int, col: int, hint: str, code: str = "E-YAML") -> None:
        super().__init__(message)
        self.message, self.line, self.col, self.hint, self.code = message, line, col, hint, code


def _too_deep(limit: int, line: int, col: int) -> YamlLimitError:
    return YamlLimitError(f"YAML nested deeper than the limit of {limit} levels", line, col,
                          "flatten the structure, or raise the limit with --max-depth N")


def too_many_nodes(limit: int, mark: Any) -> YamlLimitError:
    """The node that passes the limit, counted in document order (both loaders count the same way)."""
    return YamlLimitError(f"the document has more than {limit:,} YAML nodes (the limit)",
                          mark.line + 1, mark.column + 1, "raise the limit with --max-yaml-nodes N")


def too_many_cells(limit: int, mark: Any) -> YamlLimitError:
    """At the first cell past the limit: the sheet is refused before any cell is read."""
    return YamlLimitError(f"the sheet has more than {limit:,} cells (the limit)", mark.line + 1, mark.column + 1,
                          "raise the limit with --max-cells N", code="E-SHEET")


class _DepthScanner(RoundTripScanner):
    """Stops at the `[` or `{` that opens one level too many: the scanner reads
    every opener of a nest before the parser sees the first (quadratic time)."""

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: Any) -> None:
        if self.flow_level >= self.loader.max_depth:
            mark = self.reader.get_mark()
            raise _too_deep(self.loader.max_depth, mark.line + 1, mark.column + 1)
        super().fetch_flow_collection_start(TokenClass, to_push)


class _CountingComposer(Composer):
    """Counts the nodes of the document as if every alias were a copy."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.expanded = 0
        self.sizes: dict[int, int] = {}     # id(node) -> nodes it expands to
        self.cells = -1                     # keys of the top-level `cells` mapping read so far (-1: not in it)

    def compose_node(self, parent: Any, index: Any) -> Any:
        limit = self.loader.max_yaml_nodes
        if self.parser.check_event(AliasEvent):
            mark = self.parser.peek_event().start_mark
            node = super().compose_node(parent, index)
            self.expanded += self.sizes.get(id(node), 1)
            if self.expanded > limit:
                raise YamlLimitError(
                    f"the aliases expand the document past {limit:,} YAML nodes (the limit on expanded nodes)",
                    mark.line + 1, mark.column + 1, "write the values out, or raise the limit with --max-yaml-nodes N")
            return node
        self.expanded += 1              # counted in document order, before its children
        if self.expanded > limit:
            raise too_many_nodes(limit, self.parser.peek_event().start_mark)
        if index is None and self.cells >= 0 and self.depth == 2:   # a key of the top-level `cells`
            self.cells += 1
            if self.cells > self.loader.max_cells:
                raise too_many_cells(self.loader.max_cells, self.parser.peek_event().start_mark)
        is_cells = self.depth == 1 and getattr(index, "value", None) == "cells"
        if is_cells:
            self.cells = 0
        before = self.expanded - 1
        try:
            node = super().compose_node(parent, index)
        except MaxDepthExceededError as e:
            mark = e.problem_mark
            raise _too_deep(self.loader.max_depth, mark.line + 1 if mark else 1,
                            mark.column + 1 if mark else 1) from None
        finally:
            if is_cells:
                self.cells = -1
        if isinstance(node, (MappingNode, SequenceNode)):
            self.sizes[id(node)] = self.expanded - before
        return node


class GuardedYAML(YAML):
    """ruamel's loader carrying the limits its scanner and composer read (`self.loader.max_…`)."""
    max_yaml_nodes: int
    max_cells: int


def guarded_loader(limits: Limits) -> GuardedYAML:
    """A round-trip loader that refuses documents past the limits."""
    yaml = GuardedYAML(typ="rt")
    assert yaml.Scanner is RoundTripScanner, "ruamel's round-trip scanner changed: review _DepthScanner"
    yaml.Scanner = _DepthScanner
    yaml.Composer = _CountingComposer
    yaml.max_depth = limits.max_depth
    yaml.max_yaml_nodes = limits.max_yaml_nodes
    yaml.max_cells = limits.max_cells
    return yaml


def long_line(text: str, limit: int) -> tuple[int, int] | None:
    """The first line longer than `limit` characters (its number and length), or None.

    Checked before parsing: ruamel's scanner slows down more than linearly on a
    very long line (a 400 KB comment takes seconds)."""
    if len(text) <= limit:
        return None
    lines = text.split("\n")
    if max(map(len, lines)) <= limit:
        return None
    number = next(i for i, line in enumerate(lines) if len(line) > limit)
    return number + 1, len(lines[number])
