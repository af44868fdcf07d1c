"""YAML tags: a sheet is plain data, so any tag beyond the core ones (str,
int, float, bool, null, map, seq …) is refused — `!!python/object/apply:…`
above all. Checked on the composed node graph, where no object is built."""
from __future__ import annotations

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

_CORE_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in
                       ("str", "int", "float", "bool", "null", "map", "seq", "omap", "merge", "timestamp"))


def find_tag(text: str) -> tuple[str, int, int] | None:
    """The first tag that is not a core YAML tag, with its 1-based line and column.

    Checked on the composed node graph (no object is built), so tags on keys,
    which the round-trip constructor drops, are seen too. Composing parses the
    text again, so it is skipped when no '!' (which every tag starts with) occurs."""
    if "!" not in text:
        return None
    try:
        root = YAML(typ="rt").compose(text)
    except (YAMLError, ValueError, RecursionError):
        return None
    stack = [root] if root is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        tag = getattr(node.tag, "value", node.tag) if node.tag is not None else None
        if tag and tag not in _CORE_TAGS:
            mark = node.start_mark
            return str(tag), mark.line + 1, mark.column + 1
        value = node.value
        if isinstance(value, list):
            for item in reversed(value):
                stack.extend(reversed(item) if isinstance(item, tuple) else [item])
    return None
