"""Properties that hold at any input, each compared only where the sheet has
the cells it compares, and counted.

A property moves one input - the sheet's own or an imported hardware or
model cell (`hgx.gpu.hbm_bandwidth`, `model.kv_heads`, `lat.nvlink_latency`),
where the silent defects of issue 27 lived - and compares every cell that
depends on it (the checker's dependency graph) before and after, at the
book's point and at one randomized point inside the sheet's assumptions
(fixed seed). Each property is parametrised over the sheets that have both
cells, every parameter asserts that at least one comparison ran, and the
session prints how many sheets and comparisons each property covered
(tests/conftest.py). `test_coverage_does_not_shrink` keeps those counts from
falling silently when sheets change.

A sheet counts only for a result a scenario sheet computes - its own, or one
of a scenario it imports (`tp2.*` of 6.4.2 TP doubling). The derived cells of
a hardware or model sheet (a server's aggregate NIC rate, a model's KV bytes
per token) are compared in every sheet that imports them too, but count for
none: a sheet that only imports `hgx` has made no comparison of its own.
`test_no_other_sheet_has_a_time_a_bandwidth_moves` proves from the
dependency graph that the bandwidth property misses no sheet.
"""
from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from supersheet.engine.formula import ast as A
from supersheet.engine.workbook import Workbook
from supersheet.units import DIMENSIONLESS, parse_unit

from test_perturbed_inputs import SCENARIOS, is_number, outside, perturb, scalar_inputs, shown, workbook_of
import property_coverage as coverage
from repo_paths import SHEETS as ROOT

TIME = parse_unit("s").dimensions
BYTES = parse_unit("B").dimensions
BYTE_RATE = parse_unit("B/s").dimensions
# Results that are differences, savings or slack: a faster or larger side may move them either way.
DIFFERENCE = re.compile(r"sav|slack|added|slower|faster|_than|margin|diff|gap|extra|window|hidden|overlap|"
                        r"left|free|room|spare|headroom|overhead|break_even|crossover|budget")
COLLECTIVE = re.compile(r"allreduce|all_reduce|ring|tree|a2a|all_to_all|dispatch|combine|comm|reduction|"
                        r"gather|scatter|collective|transfer|exchange|send|latency_term|nic_time|nvlink_time")
CARDS = re.compile(r"(^|_)(cards|supernode|gpus|nodes)$")
SESSIONS = re.compile(r"sessions(_per_(card|node|instance))?$")


def numeric_input(cell) -> bool:
    return cell.kind == "input" and cell.formula is not None and isinstance(cell.formula.expr, A.Number) \
        and cell.formula.expr.value > 0


def dims(workbook: Workbook, key: str):
    typ = workbook.checked.cells[key].type
    return None if typ is None or typ.is_bool or typ.is_array else typ.dims


# Sheets of sourced numbers: their derived cells are compared wherever they are imported, but count for no sheet.
DATA_SHEETS = (ROOT / "hardware", ROOT / "models")


def computed_by_a_scenario(workbook: Workbook, key: str) -> bool:
    """A result of the sheet or of a scenario it imports, not a hardware or model sheet's derived cell."""
    return workbook.model.cells[key].scope.path.parent not in DATA_SHEETS


def dependents(workbook: Workbook, key: str) -> set[str]:
    users, seen, stack = workbook.checked.users, set(), [key]
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in seen:
                seen.add(user)
                stack.append(user)
    return seen


@dataclass(frozen=True)
class Property:
    name: str
    doc: str
    inputs: Callable[[Workbook], list[str]]              # the cells a point moves
    compared: Callable[[Workbook, str], bool]            # a result the property speaks about
    factor: float                                        # how the input moves
    may_not: Callable[[Workbook, str, float, float], bool]   # (sheet, result, before, after) that breaks it

    def pairs(self, workbook: Workbook) -> dict[str, list[str]]:
        """Each moved input and the compared results that depend on it."""
        out = {}
        for key in self.inputs(workbook):
            results = sorted(k for k in dependents(workbook, key)
                             if workbook.model.cells[k].kind == "formula" and self.compared(workbook, k))
            if results:
                out[key] = results
        return out

    def counts_for(self, workbook: Workbook) -> bool:
        """Whether a moved input reaches a result a scenario sheet computes."""
        return any(computed_by_a_scenario(workbook, k) for results in self.pairs(workbook).values() for k in results)


def inputs_of_dims(target, name: re.Pattern | None = None, exclude: re.Pattern | None = None):
    def inputs(workbook: Workbook) -> list[str]:
        return sorted(k for k, c in workbook.model.cells.items()
                      if numeric_input(c) and dims(workbook, k) == target
                      and (name is None or name.search(k.split(".")[-1]))
                      and (exclude is None or not exclude.search(k.split(".")[-1])))
    return inputs


def duration(workbook: Workbook, key: str) -> bool:
    return dims(workbook, key) == TIME and not DIFFERENCE.search(key.split(".")[-1])


def speed(workbook: Workbook, key: str) -> bool:
    """A duration, or a byte rate (a usable bandwidth, a per-chip share of a cut)."""
    return dims(workbook, key) in (TIME, BYTE_RATE) and not DIFFERENCE.search(key.split(".")[-1])


def longer(before: float, after: float) -> bool:
    return after > before * (1 + 1e-9) + 1e-15


def slower(workbook: Workbook, key: str, before: float, after: float) -> bool:
    """A longer duration or a lower byte rate."""
    return longer(before, after) if dims(workbook, key) == TIME else fewer(before, after)


def fewer(before: float, after: float) -> bool:
    return after < before - 1e-9 * abs(before) - 1e-12


def link_inputs(workbook: Workbook) -> list[str]:
    """Link bandwidths (any B/s input that is not HBM) and per-round latencies."""
    rates = inputs_of_dims(BYTE_RATE, exclude=re.compile("hbm"))(workbook)
    alphas = inputs_of_dims(TIME, name=re.compile(r"latency|alpha|round_trip"))(workbook)
    return rates + alphas


def own_card_counts(workbook: Workbook) -> list[str]:
    return sorted(k for k, c in workbook.model.cells.items() if not c.scope.prefix and CARDS.search(k)
                  and c.kind in ("input", "formula") and dims(workbook, k) == DIMENSIONLESS
                  and k not in workbook.checked.structural_inputs)


PROPERTIES = {p.name: p for p in [
    Property("more_bandwidth_is_never_slower",
             "every duration at 1.5x any bandwidth (B/s) input, the sheet's or an import's, is at most what it "
             "was, and every byte rate at least what it was",
             inputs_of_dims(BYTE_RATE), speed, 1.5, slower),
    Property("more_hbm_bandwidth_is_never_slower",
             "the same for the HBM bandwidth of the imported card",
             inputs_of_dims(BYTE_RATE, name=re.compile("hbm")), duration, 1.5, lambda wb, k, a, b: longer(a, b)),
    Property("faster_link_is_never_a_slower_collective",
             "every collective's time at 1.5x a link bandwidth or at 1/1.5 of its per-round latency is at most "
             "what it was",
             link_inputs, lambda wb, k: duration(wb, k) and bool(COLLECTIVE.search(k.split(".")[-1])), 1.5,
             lambda wb, k, a, b: longer(a, b)),
    Property("more_kv_heads_never_fewer_bytes",
             "every byte count (stored, read or sent, not what is left) with twice the model's KV heads is at "
             "least what it was",
             inputs_of_dims(DIMENSIONLESS, name=re.compile(r"^kv_heads$")),
             lambda wb, k: dims(wb, k) == BYTES and not DIFFERENCE.search(k.split(".")[-1]), 2.0,
             lambda wb, k, a, b: fewer(a, b)),
    Property("more_cards_never_fewer_sessions",
             "sessions that fit with twice the cards are at least as many",
             own_card_counts, lambda wb, k: bool(SESSIONS.search(k)) and dims(wb, k) == DIMENSIONLESS, 2.0,
             lambda wb, k, a, b: fewer(a, b)),
]}


@cache
def start_points(path: Path) -> tuple[tuple[dict, dict], ...]:
    """The book's point and one randomized point inside the assumptions (several
    of the sheet's own inputs moved together, fixed seed)."""
    workbook = workbook_of(path)
    rng = random.Random(str(path.relative_to(ROOT)))
    inputs = scalar_inputs(workbook)
    found = [({}, workbook.evaluate().values)]
    for _ in range(4):
        chosen = rng.sample(sorted(inputs), k=min(len(inputs), rng.randint(1, 3))) if inputs else []
        fixed = {key: perturb(inputs[key], rng) for key in chosen}
        values = workbook.evaluate(fixed).values
        if fixed and not outside(workbook, values):
            found.append((fixed, values))
            break
    return tuple(found)


# Every sheet of the library; hardware and model sheets hold no scenario result, so no property counts them.
LIBRARY = SCENARIOS + sorted(p for folder in DATA_SHEETS for p in folder.glob("*.yaml"))


def cases(name: str) -> list:
    out = []
    for path in SCENARIOS:
        workbook = workbook_of(path)
        if workbook.diagnostics or workbook.checked.uncertain:
            continue
        if PROPERTIES[name].counts_for(workbook):
            out.append(pytest.param(name, path, id=f"{name}-{path.relative_to(ROOT)}"))
    return out


def moved(literal: A.Node, factor: float) -> A.Node:
    return dataclasses.replace(literal, value=literal.value * factor)


@pytest.mark.parametrize("name,path", [case for name in PROPERTIES for case in cases(name)])
def test_property(name: str, path: Path) -> None:
    prop = PROPERTIES[name]
    workbook = workbook_of(path)
    pairs = prop.pairs(workbook)
    comparisons = 0
    for fixed, values in start_points(path):
        for key, results in pairs.items():
            current = fixed.get(key, workbook.model.cells[key].formula.expr)
            literal = current if isinstance(current, A.Number) else workbook.model.cells[key].formula.expr
            if not isinstance(literal, A.Number):   # a card count written as a formula: take its value
                literal = A.Number(value=values[key], unit=None, span=None) if is_number(values[key]) else None
            if literal is None:
                continue
            factor = 1 / prop.factor if prop.name.startswith("faster_link") and dims(workbook, key) == TIME \
                else prop.factor
            after = workbook.evaluate({**fixed, key: moved(literal, factor)}).values
            if outside(workbook, after):
                continue
            broken = {k: (values[k], after[k]) for k in results if is_number(values[k]) and is_number(after[k])
                      and prop.may_not(workbook, k, values[k], after[k])}
            assert not broken, f"{prop.name} at {shown(fixed) or 'the book point'}, {key} x{factor:g}: {broken}"
            comparisons += sum(1 for k in results if is_number(values[k]) and is_number(after[k])
                               and computed_by_a_scenario(workbook, k))
    assert comparisons >= 1, f"{prop.name}: no comparison of a scenario's result ran on {path.name} " \
                             f"(every moved point left the model)"
    coverage.record(prop.name, path, comparisons)


# The sheets each property covers today: a floor, so a sheet losing its cells (or a
# property losing its sheets) is seen, not silently skipped.
FLOORS = {"more_bandwidth_is_never_slower": 41, "more_hbm_bandwidth_is_never_slower": 32,
          "faster_link_is_never_a_slower_collective": 26, "more_kv_heads_never_fewer_bytes": 19,
          "more_cards_never_fewer_sessions": 6}


@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_coverage_does_not_shrink(name: str) -> None:
    covered = len(cases(name))
    assert covered >= FLOORS[name], f"{name} covers {covered} sheets, fewer than {FLOORS[name]}"


def any_dims(workbook: Workbook, key: str):
    """A cell's dimensions, scalar or array (None for booleans and untyped cells)."""
    typ = workbook.checked.cells[key].type
    return None if typ is None or typ.is_bool else typ.dims


def bandwidth_moves_a_time(workbook: Workbook) -> bool:
    """Whether any bandwidth input (the sheet's or an import's, whatever its formula,
    scalar or array) reaches a duration or a byte rate a scenario sheet computes
    (any name, differences included) - read off the dependency graph, not evaluated."""
    rates = [k for k, c in workbook.model.cells.items()
             if c.kind == "input" and k in workbook.checked.cells and any_dims(workbook, k) == BYTE_RATE]
    return any(workbook.model.cells[k].kind == "formula" and computed_by_a_scenario(workbook, k)
               and any_dims(workbook, k) in (TIME, BYTE_RATE)
               for key in rates for k in dependents(workbook, key))


# The library's sheets in which no bandwidth moves any time or byte rate, and why; with the
# bandwidth property's sheets they make up the whole library.
NO_TIME_A_BANDWIDTH_MOVES = {
    "datasheets and model shapes: sourced numbers and their derived cells, no scenario result":
        [str(p.relative_to(ROOT)) for p in LIBRARY if p.parent in DATA_SHEETS],
    "no bandwidth at all - counts, shapes, given stage times, set-up and read latencies": [
        "supernodes/6.2.2-row-vs-column-split.yaml", "supernodes/6.2.3-sequence-parallel-activation.yaml",
        "supernodes/6.2.4-causal-balance.yaml", "supernodes/6.2.5-pipeline-uneven.yaml",
        "supernodes/6.2.5-pipeline-utilisation.yaml", "supernodes/6.2.6-expert-parallelism.yaml",
        "supernodes/6.3.1-device-coordinates.yaml", "supernodes/6.3.2-batch-reuse-hotspots-spread.yaml",
        "supernodes/6.3.2-batch-reuse.yaml", "supernodes/6.4.2-ring-trace.yaml",
        "supernodes/6.4.3-algbw-busbw.yaml", "supernodes/6.4.3-overlap-and-tuning.yaml",
        "supernodes/6.5.1-numa-placement.yaml", "supernodes/6.5.1-swing-vs-recursive-rounds.yaml",
        "supernodes/6.5.5-ub-connection-setup-fast-oob.yaml", "supernodes/6.5.5-ub-connection-setup.yaml",
        "supernodes/6.5.5-ub-connection-state.yaml", "supernodes/6.5.5-ub-read-latency.yaml",
        "supernodes/6.7.4-rom-wafer.yaml"],
    "imports a card or server whose bandwidths no time of the sheet uses - capacity, power, placement, "
    "memory": [
        "questions/q3-mla-tp-replication.yaml", "supernodes/6.2.2-long-context-capacity.yaml",
        "supernodes/6.3.1-tp2-ep4-placement.yaml", "supernodes/6.3.3-trillion-scale.yaml",
        "supernodes/6.5.2-power-cooling.yaml", "supernodes/6.6.1-memory-borrowing.yaml",
        "supernodes/6.7.4-engram-and-kv-placement.yaml", "supernodes/6.7.4-supernode-size.yaml",
        "supernodes/6.7.4-supernode-throughput.yaml"],
}
# A sheet whose bandwidth-dependent times are another sheet's, covered there.
ELSEWHERE = {"questions/q4-ep-skew-monte-carlo.yaml":
             "Monte Carlo over routing; its only bandwidth-dependent times are q4-ep-skew's (closed.*), "
             "which the property covers in that sheet"}


def test_no_other_sheet_has_a_time_a_bandwidth_moves() -> None:
    """The bandwidth property covers every sheet where a bandwidth can move a time
    or a byte rate, and the library has no other: the sheets outside it are
    named, with the reason, and the dependency graph confirms each."""
    covered = {str(case.values[1].relative_to(ROOT)) for case in cases("more_bandwidth_is_never_slower")}
    moved = {str(p.relative_to(ROOT)) for p in LIBRARY if bandwidth_moves_a_time(workbook_of(p))}
    assert moved - set(ELSEWHERE) == covered, (sorted(moved - set(ELSEWHERE) - covered), sorted(covered - moved))
    named = {path for paths in NO_TIME_A_BANDWIDTH_MOVES.values() for path in paths}
    assert named == {str(p.relative_to(ROOT)) for p in LIBRARY} - moved, \
        (sorted(named - ({str(p.relative_to(ROOT)) for p in LIBRARY} - moved)),
         sorted({str(p.relative_to(ROOT)) for p in LIBRARY} - moved - named))
    assert len(covered) + len(named) + len(ELSEWHERE) == len(LIBRARY)
