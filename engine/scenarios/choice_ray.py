"""`supersheet choose … --on ray`: a choice's grid reduced by Ray tasks.

Each task compiles the sheet from its text (the plan a sweep part would),
classifies its row range chunk by chunk and keeps the best `top` rows and the
count of excluded rows per reason (choice_tally.py): only that reduced
ranking travels back; the driver merges the tallies in grid order.
"""
from __future__ import annotations

from dataclasses import dataclass

from supersheet.engine.scenarios.choice_tally import Tally, merge, tally_rows
from supersheet.engine.scenarios.sheetbundle import SheetBundle
from supersheet.engine.scenarios.choice import Choice, bind_choice, choice_block, choice_entry
from supersheet.engine.scenarios.sweep_parts import Part, SweepJob, compiled_plan, split
from supersheet.engine.workbook import Workbook
from supersheet.engine.scenarios import on_ray

DEFAULT_TOP = 10
CHUNK_ROWS = 1_000_000


@dataclass(frozen=True)
class ChoiceJob:
    sweep: SweepJob     # the bundle, the driver's grid and display units, the cells shown beside the axes
    name: str
    minimize: bool
    top: int | None


def tally_part(job: ChoiceJob, part: Part) -> Tally:
    """One row range of the choice, reduced (a Ray task)."""
    plan = compiled_plan(job.sweep, part.plan)
    block = choice_block(plan.workbook, job.name)
    assert block.objective is not None
    requirements, goal = bind_choice(plan.workbook, block.require, block.objective)
    chunks = [tally_rows(plan, part.plan, requirements, goal, job.sweep.grid, start,
                         min(start + job.sweep.chunk_rows, part.stop), job.minimize, job.top)
              for start in range(part.start, part.stop, job.sweep.chunk_rows)]
    return merge(chunks, job.minimize, job.top)


def choose_on_ray(workbook: Workbook, name: str, top: int | None = DEFAULT_TOP, *, address: str | None = None,
                  part_rows: int | None = None, chunk_rows: int = CHUNK_ROWS, show: list[str] | None = None) -> Choice:
    """choice_entry, with the rows reduced by Ray tasks (the sheet and choice are checked here first)."""
    from supersheet.engine.scenarios.sweep_ray import rows_per_part   # deferred: engine.scenarios.sweep_ray (slow to import)

    def tallies(plans, units, grid, minimize, top_) -> list[Tally]:
        on_ray.connect(address)
        sweep = SweepJob(SheetBundle.of([p.workbook for p in plans]), grid, list(show or []), None, None, None,
                         dict(units), {}, {}, chunk_rows)   # a task shows what the driver's plans show
        per_part = part_rows or rows_per_part(grid.value_size(), len(plans), 1, on_ray.cluster_cpus())
        return on_ray.run(tally_part, ChoiceJob(sweep, name, minimize, top_), split(len(plans), grid.value_size(),
                                                                                    per_part))

    return choice_entry(workbook, name, top, tallies, show=show)[0]
