"""Formula syntax trees: frozen, slotted dataclasses, each node with its
character span (start, end) in the formula text.

Nodes compare and hash by identity (`eq=False`): the checker's tables key
facts by node (check/checked.py), and `= a + b` written in two cells is two
nodes with two bindings. Compare trees by their text (`to_text`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, TypeGuard, TypeVar, Union

from supersheet.engine.base.slots import install_init, slot_setters

T = TypeVar("T")


@dataclass(frozen=True, slots=True, eq=False)
class Number:
    """A number literal, with its unit as written."""
    value: float
    unit: str | None
    span: tuple[int, int]
    unit_span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Bool:
    """`true` or `false`."""
    value: bool
    span: tuple[int, int]


@dataclass(frozen=True, slots=True, eq=False)
class Array:
    """An array literal `[a, b, ...]`, with a unit applying to every element."""
    items: tuple["Node", ...]
    unit: str | None
    span: tuple[int, int]
    unit_span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Name:
    """A cell name, `alias.name` for an imported cell."""
    name: str
    alias: str | None
    span: tuple[int, int]

    @property
    def dotted(self) -> str:
        return f"{self.alias}.{self.name}" if self.alias else self.name


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    """A call of a built-in function."""
    func: str
    args: tuple["Node", ...]
    span: tuple[int, int]
    name_span: tuple[int, int]


@dataclass(frozen=True, slots=True, eq=False)
class Unary:
    """`-x` or `not x`."""
    op: str          # "-" or "not"
    operand: "Node"
    span: tuple[int, int]


@dataclass(frozen=True, slots=True, eq=False)
class Binary:
    """An operator between two operands (arithmetic, comparison, `and`/`or`)."""
    op: str          # + - * / ^ < <= > >= == != and or
    left: "Node"
    right: "Node"
    span: tuple[int, int]


Node = Union[Number, Bool, Array, Name, Call, Unary, Binary]


# The classes most made (~7 nodes a cell) set their slots directly (engine/base/slots.py).
_number_value, _number_unit, _number_span, _number_unit_span = slot_setters(Number, "value", "unit", "span", "unit_span")
_name_name, _name_alias, _name_span = slot_setters(Name, "name", "alias", "span")
_call_func, _call_args, _call_span, _call_name_span = slot_setters(Call, "func", "args", "span", "name_span")
_unary_op, _unary_operand, _unary_span = slot_setters(Unary, "op", "operand", "span")
_binary_op, _binary_left, _binary_right, _binary_span = slot_setters(Binary, "op", "left", "right", "span")


def _number_init(self: Number, value: float, unit: str | None, span: tuple[int, int],
                 unit_span: tuple[int, int] | None = None) -> None:
    _number_value(self, value)
    _number_unit(self, unit)
    _number_span(self, span)
    _number_unit_span(self, unit_span)


def _name_init(self: Name, name: str, alias: str | None, span: tuple[int, int]) -> None:
    _name_name(self, name)
    _name_alias(self, alias)
    _name_span(self, span)


def _call_init(self: Call, func: str, args: tuple[Node, ...], span: tuple[int, int], name_span: tuple[int, int]) -> None:
    _call_func(self, func)
    _call_args(self, args)
    _call_span(self, span)
    _call_name_span(self, name_span)


def _unary_init(self: Unary, op: str, operand: Node, span: tuple[int, int]) -> None:
    _unary_op(self, op)
    _unary_operand(self, operand)
    _unary_span(self, span)


def _binary_init(self: Binary, op: str, left: Node, right: Node, span: tuple[int, int]) -> None:
    _binary_op(self, op)
    _binary_left(self, left)
    _binary_right(self, right)
    _binary_span(self, span)


for _cls, _init in ((Number, _number_init), (Name, _name_init), (Call, _call_init), (Unary, _unary_init),
                    (Binary, _binary_init)):
    install_init(_cls, _init)   # the dataclass's __init__ replaced by the faster one above


@dataclass(frozen=True, slots=True, eq=False)
class Formula:
    """A whole formula: its expression and the display unit after `->`."""
    expr: Node
    display_unit: str | None = None
    display_span: tuple[int, int] | None = None


_formula_expr, _formula_display_unit, _formula_display_span = slot_setters(Formula, "expr", "display_unit",
                                                                           "display_span")


def _formula_init(self: Formula, expr: Node, display_unit: str | None = None,
                  display_span: tuple[int, int] | None = None) -> None:
    _formula_expr(self, expr)
    _formula_display_unit(self, display_unit)
    _formula_display_span(self, display_span)


install_init(Formula, _formula_init)   # one a cell, as its nodes (above)


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
    return fold_run(node, to_text, lambda link, left, right: f"({left} {link.op} {right})")


def children(node: Node) -> tuple[Node, ...]:
    # one dict lookup on the exact class (the node classes are final): several passes walk
    # every formula of a sheet, and an isinstance chain was ~15 % of checking a 20,000-cell one
    get = _CHILDREN.get(type(node))
    return get(node) if get is not None else ()


_CHILDREN: dict[type, Callable[[Any], tuple[Node, ...]]] = {
    Array: lambda n: n.items,
    Call: lambda n: n.args,
    Unary: lambda n: (n.operand,),
    Binary: lambda n: (n.left, n.right),
}


def names(node: Node) -> list[Name]:
    """Every cell reference in a tree, in reading order (iterative: trees may be deep)."""
    found: list[Name] = []
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:   # by exact class (the node classes are final): every cell's formula is walked so
        current = pop()
        cls = type(current)
        if cls is Name:
            found.append(current)   # type: ignore[arg-type]  # cls is Name: `cls is` narrows nothing for mypy
        elif cls is Binary:
            push(current.right)   # type: ignore[union-attr]  # cls is Binary (as below)
            push(current.left)   # type: ignore[union-attr]  # cls is Binary: isinstance would cost a call per node
        elif cls is Call or cls is Array or cls is Unary:
            stack.extend(reversed(children(current)))
    return found


CHAINS = ({"+", "-"}, {"*", "/"}, {"and"}, {"or"})   # operators that parse as one flat, left-to-right run
_CHAIN_OF = {op: i for i, ops in enumerate(CHAINS) for op in ops}


def same_chain(node: Node, op: str) -> TypeGuard[Binary]:
    """Whether `node` continues a flat run of `op` (`a + b - c` is one run, left-deep in the tree)."""
    chain = _CHAIN_OF.get(op)
    return chain is not None and type(node) is Binary and _CHAIN_OF.get(node.op) == chain


def unroll(node: Binary) -> tuple[Node, list[Binary]]:
    """A flat run as a loop instead of a recursion: its leftmost operand and its
    operators from the first (innermost) to `node`. `a - b + c` gives (a, [a - b, … + c]);
    an operator outside CHAINS (`^`, comparisons) is a run of one."""
    links = [node]
    while same_chain(links[-1].left, links[-1].op):
        links.append(links[-1].left)
    links.reverse()
    return links[0].left, links


def fold_run(node: Binary, value_of: Callable[[Node], T], combine: Callable[[Binary, T, T], T]) -> T:
    """`combine` over a flat run from left to right, `value_of` on its operands:
    a run of any length takes a loop, only real nesting recurses."""
    first, links = unroll(node)
    result = value_of(first)
    for link in links:
        result = combine(link, result, value_of(link.right))
    return result


def copy_tree(node):
    """A copy of a formula or node with new objects throughout (later stages key
    facts by node identity); iterative, so a long flat run copies like any other
    tree, and several times faster than copy.deepcopy."""
    if isinstance(node, Formula):
        return Formula(copy_tree(node.expr), node.display_unit, node.display_span)
    done: dict[Node, Node] = {}   # old node -> its copy (nodes hash by identity)
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, ready = stack.pop()
        kids = children(current)
        if not ready and kids:
            stack.append((current, True))
            stack.extend((k, False) for k in kids)
            continue
        new = [done[k] for k in kids]
        if isinstance(current, Binary):
            done[current] = Binary(current.op, new[0], new[1], current.span)
        elif isinstance(current, Unary):
            done[current] = Unary(current.op, new[0], current.span)
        elif isinstance(current, Call):
            done[current] = Call(current.func, tuple(new), current.span, current.name_span)
        elif isinstance(current, Array):
            done[current] = Array(tuple(new), current.unit, current.span, current.unit_span)
        else:
            done[current] = replace(current)
    return done[node]


def depth(node: Node) -> int:
    """Real nesting: parentheses, calls, unary operators and operands of other precedence levels.
    A flat run (`a + b + … + z`) counts as one level however long it is."""
    best, stack = 0, [(node, 1)]
    while stack:
        current, d = stack.pop()
        best = max(best, d)
        if isinstance(current, Binary) and same_chain(current.left, current.op):
            stack.extend([(current.left, d), (current.right, d + 1)])
        else:
            stack.extend((c, d + 1) for c in children(current))
    return best


def operators(node: Node) -> int:
    """How many binary operators a tree has (iterative)."""
    count, stack = 0, [node]
    while stack:
        current = stack.pop()
        count += isinstance(current, Binary)
        stack.extend(children(current))
    return count


def is_literal(formula: Formula) -> bool:
    """A value as an input holds it: a number or quantity (negated), a boolean, or an array of them."""
    if formula.display_unit is not None:
        return False
    return _literal_node(formula.expr)


def _literal_node(node: Node) -> bool:
    if isinstance(node, (Number, Bool)):
        return True
    if isinstance(node, Unary) and node.op == "-":
        return isinstance(node.operand, Number)
    if isinstance(node, Array):
        return all(isinstance(i, Number) or (isinstance(i, Unary) and isinstance(i.operand, Number))
                   or isinstance(i, Bool) for i in node.items)
    return False
