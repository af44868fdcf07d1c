"""What the editor marks beyond the deterministic values it shows: the
expectations inside sweeps, solves and choices (which only running them can
check), and, for a sheet with random draws, the expectations and assumptions
of the cells that depend on them (checked over the samples, as `supersheet
test` checks them). Each is a `Verdict` on one cell: the grid marks the cell,
the inspector says what failed, the diagnostics panel lists it (Enter jumps).

Computed off the UI thread: the blocks from the unsaved text after opening and
after each edit, the samples' verdicts with the samples. Pure engine: no UI
imports.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from supersheet.editor.baselines import workbook_from_text
from supersheet.engine.base.diagnostics import Diagnostic
from supersheet.engine.expect.assume import holds, violation_diagnostic, violations
from supersheet.engine.load.model import Model
from supersheet.engine.verify.failing import failing_in_blocks, failing_over_samples

if TYPE_CHECKING:
    from supersheet.engine.scenarios.uncertainty import Sampled


@dataclass(frozen=True)
class Verdict:
    key: str | None           # the cell it is about (None: the sheet's, as a solve without an answer)
    diagnostic: Diagnostic    # E-EXPECT, E-ASSUME or the block's problem, for the diagnostics panel
    stale: bool = False       # found on the values before the last edit: being checked again

    @property
    def summary(self) -> str:
        return self.diagnostic.message

    def outdated(self) -> Verdict:
        """The same verdict, said to be from before the last edit (never shown as current)."""
        return replace(self, stale=True)


def has_block_expectations(model: Model) -> bool:
    """Whether a sweep, solve or choice of the sheet itself has an `expect`."""
    root = model.root
    if root is None:
        return False
    return any(block.expect is not None and block.span.file == root.file.file
               for blocks in (root.sweeps, root.solve, root.choose) for block in blocks.values())


def block_verdicts(path: Path, text: str, imported: Mapping[Path, str] | None = None) -> list[Verdict]:
    """The failing expectations of the sheet's sweeps, solves and choices on
    the unsaved `text` (and the unsaved texts of imported files edited here,
    `imported`), and what stopped a block from being checked."""
    workbook = workbook_from_text(Path(path), text, imported)
    if not workbook.ok or not has_block_expectations(workbook.model):
        return []
    try:
        failing, problems = failing_in_blocks(workbook)
    except Exception as e:  # noqa: BLE001 - said in the diagnostics panel, never fatal to the editor
        return [Verdict(None, Diagnostic("E-EXPECT", "the expectations of the sweeps, solves and choices could not "
                                         f"be checked: {type(e).__name__}: {e}", None))]
    return [Verdict(key, o.diagnostic()) for key, found in failing.items() for o in found] + \
        [Verdict(None, d) for d in problems]


def sample_verdicts(sampled: "Sampled") -> list[Verdict]:
    """Over the samples: the failing expectations of cells that depend on random
    draws (their mean, or `p95(cell)` …), and the assumptions that do not hold in
    every sample."""
    workbook = sampled.workbook
    found = [Verdict(key, o.diagnostic()) for key, outcomes in failing_over_samples(workbook, sampled).items()
             for o in outcomes]
    for violation in violations(workbook, sampled.deterministic, sampled):
        if violation.share is not None and holds(sampled.deterministic.values.get(violation.key)):
            # (one that fails at the means is in the document's diagnostics already)
            found.append(Verdict(violation.key, violation_diagnostic(workbook, violation)))
    return found


def by_cell(verdicts: list[Verdict]) -> dict[str, list[Verdict]]:
    out: dict[str, list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.key is not None:
            out.setdefault(verdict.key, []).append(verdict)
    return out
