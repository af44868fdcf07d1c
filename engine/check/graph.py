"""The dependency graph: deterministic topological order and cycles as paths.

Pure structure: cell keys and their dependencies in, an order and E-CYCLE
diagnostics out. Ties are broken by the cells' order in the model (file order),
so evaluation order and messages never depend on hashing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from supersheet.engine.base.diagnostics import Diagnostic

if TYPE_CHECKING:
    from supersheet.engine.load.model import Model


def order_cells(model: "Model", deps: dict[str, tuple[str, ...]]) -> tuple[list[str], list[Diagnostic]]:
    walked, has_cycle = _post_order(list(model.cells), deps)
    if not has_cycle:   # the common case: one walk gives the order, and no cycle needs finding
        return walked, []
    position = {key: i for i, key in enumerate(model.cells)}
    components = _strongly_connected(list(model.cells), deps)
    cyclic: set[str] = set()
    diagnostics: list[Diagnostic] = []
    for component in components:
        members = set(component)
        if len(component) == 1 and component[0] not in deps.get(component[0], ()):
            continue
        cyclic |= members
        first = min(component, key=position.__getitem__)
        path = _cycle_path(first, members, deps)
        cell = model.cells[first]
        names = [_short(model, key) for key in path]
        diagnostics.append(Diagnostic("E-CYCLE", "cells depend on themselves: " + " -> ".join(names),
                                      cell.spec.span, hint="break the cycle by making one of them an input"))
    # cells that depend on a cycle cannot be ordered either; they simply get no type
    order: list[str] = []
    done: set[str] = set()
    blocked = set(cyclic)
    for key in topological(list(model.cells), deps):
        if key in blocked or any(d in blocked for d in deps.get(key, ())):
            blocked.add(key)
            continue
        order.append(key)
        done.add(key)
    return order, diagnostics


def topological(keys: list[str], deps: dict[str, tuple[str, ...]]) -> list[str]:
    """Depth-first post-order from each key in turn (iterative); cycles are skipped."""
    return _post_order(keys, deps)[0]


def _post_order(keys: list[str], deps: dict[str, tuple[str, ...]]) -> tuple[list[str], bool]:
    """`topological`'s order, and whether the walk met a cycle (an edge back to a cell
    still being walked): without one, the order is the evaluation order as it is."""
    order: list[str] = []
    state: dict[str, bool] = {}   # False while a cell's precedents are walked, True once it is done
    cyclic = False
    for root in keys:
        if root in state:
            continue
        state[root] = False
        stack = [(root, iter(deps.get(root, ())))]
        while stack:
            key, children = stack[-1]
            for child in children:
                done = state.get(child)
                if done is None:
                    if child in deps:
                        state[child] = False
                        stack.append((child, iter(deps[child])))
                        break
                elif not done:
                    cyclic = True
            else:
                stack.pop()
                state[key] = True
                order.append(key)
    return order, cyclic


def dependents(keys: set[str], deps: dict[str, tuple[str, ...]], order: Sequence[str]) -> list[str]:
    """Every cell downstream of `keys`, in evaluation order."""
    dirty = set(keys)
    result = []
    for key in order:
        if key in dirty:
            continue
        if any(d in dirty for d in deps.get(key, ())):
            dirty.add(key)
            result.append(key)
    return result


def _strongly_connected(keys: list[str], deps: dict[str, tuple[str, ...]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (sheets can be long chains). Each key's
    children are listed once, so the cost is linear in cells plus references."""
    children_of = {key: [c for c in children if c in deps] for key, children in deps.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for root in keys:
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            key, i = work[-1]
            children = children_of.get(key, ())
            if i < len(children):
                work[-1] = (key, i + 1)
                child = children[i]
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, 0))
                elif child in on_stack:
                    low[key] = min(low[key], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[key])
                if low[key] == index[key]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == key:
                            break
                    result.append(component)
    return result


def _cycle_path(start: str, members: set[str], deps: dict[str, tuple[str, ...]]) -> list[str]:
    """The shortest path start -> ... -> start inside one strongly connected
    component, in the direction values flow (a -> b: b is computed from a)."""
    users: dict[str, list[str]] = {m: [] for m in members}
    for m in sorted(members):
        for d in deps.get(m, ()):
            if d in members:
                users[d].append(m)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for user in users[node]:
                if user == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return list(reversed(path)) + [start]
                if user not in previous:
                    previous[user] = node
                    following.append(user)
        frontier = following
    return [start, start]


def _short(model: "Model", key: str) -> str:
    return key
