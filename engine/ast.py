"""Formula syntax trees: frozen, slotted dataclasses, each node with its
character span (start, end) in the formula text."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    unit: str | None
    span: tuple[int, int]
    unit_span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Bool:
    value: bool
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Array:
    items: tuple["Node", ...]
    unit: str | None
    span: tuple[int, int]
    unit_span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    alias: str | None
    span: tuple[int, int]

    @property
    def dotted(self) -> str:
        return f"{self.alias}.{self.name}" if self.alias else self.name


@dataclass(frozen=True, slots=True)
class Call:
    func: str
    args: tuple["Node", ...]
    span: tuple[int, int]
    name_span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Unary:
    op: str          # "-" or "not"
    operand: "Node"
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Binary:
    op: str          # + - * / ^ < <= > >= == != and or
    left: "Node"
    right: "Node"
    span: tuple[int, int]


Node = Union[Number, Bool, Array, Name, Call, Unary, Binary]


@dataclass(frozen=True, slots=True)
class Formula:
    expr: Node
    display_unit: str | None = None
    display_span: tuple[int, int] | None = None


def to_text(node: Node) -> str:
    """Fully parenthesised text: the parser's golden form."""
    if isinstance(node, Number):
        num = repr(node.value) if node.value != int(node.value) or abs(node.value) >= 1e16 else str(int(node.value))
        return f"{num} {node.unit}" if node.unit else num
    if isinstance(node, Bool):
        return "true" if node.value else "false"
    if isinstance(node, Array):
        inner = "[" + ", ".join(to_text(i) for i in node.items) + "]"
        return f"{inner} {node.unit}" if node.unit else inner
    if isinstance(node, Name):
        return node.dotted
    if isinstance(node, Call):
        return f"{node.func}(" + ", ".join(to_text(a) for a in node.args) + ")"
    if isinstance(node, Unary):
        return f"(not {to_text(node.operand)})" if node.op == "not" else f"(-{to_text(node.operand)})"
    return f"({to_text(node.left)} {node.op} {to_text(node.right)})"


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Array,)):
        return node.items
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    return ()


def names(node: Node) -> list[Name]:
    """Every cell reference in a tree, in reading order (iterative: trees may be deep)."""
    found: list[Name] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Name):
            found.append(current)
        stack.extend(reversed(children(current)))
    return found


def depth(node: Node) -> int:
    best, stack = 0, [(node, 1)]
    while stack:
        current, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in children(current))
    return best


_NODES = (Number, Bool, Array, Name, Call, Unary, Binary, Formula)


def copy_tree(value):
    """A copy of a formula or node with new objects throughout (later stages key
    facts by node identity); several times faster than copy.deepcopy."""
    if isinstance(value, _NODES):
        return type(value)(*(copy_tree(getattr(value, f)) for f in value.__slots__))
    if isinstance(value, tuple) and value and isinstance(value[0], _NODES):
        return tuple(copy_tree(v) for v in value)
    return value
