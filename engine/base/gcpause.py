"""Loading, checking and evaluating a sheet allocate a few objects per cell and
free almost none until the end: Python's cyclic garbage collector, triggered
by allocation counts, then walks an ever larger heap again and again. For a
20,000-cell sheet that was ~40 % of load + check + evaluate (bench/
bench_scaling.py). These phases run with the collector paused; reference
counting still frees everything that is not a cycle. Each pause ends with one
collection walking what it allocated, so loading and checking are one pause
(`open_workbook`), not two: ~15 % of a 20,000-cell chain's load + check +
evaluate.

A pause does end with a walk, though: the first collection after it finds the
whole of what the pause allocated in its youngest generation (0.15 s after
loading a 20,000-cell sheet, and the next generation's walk as much again). A
process that ends with its command (the CLI, `freeze_after_pauses`) keeps
what it loaded until it exits: its pauses end with `gc.freeze()` instead, which
takes what they allocated out of every collection (~20 % of `run` of a
20,000-cell random DAG; bench/bench_scaling.py)."""
from __future__ import annotations

import functools
import gc
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_freeze = False


def freeze_after_pauses(on: bool) -> None:
    """Whether a pause ends by freezing the heap (for a process that exits when its command returns)."""
    global _freeze
    _freeze = on


def without_cycle_collection(fn: F) -> F:
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():   # nested, or paused by the caller
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if _freeze:
                gc.freeze()
            gc.enable()
    return paused  # type: ignore[return-value]  # fn's own signature (functools.wraps), which F cannot say
