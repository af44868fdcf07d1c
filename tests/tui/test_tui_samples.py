"""Random draws in the editor: the sampled range beside each uncertain value,
the histogram and sensitivity ranking in the inspector, resampling after edits."""
from __future__ import annotations

import shutil
from pathlib import Path

from test_tui_app import SIZE, edit, value
from textual.widgets import Static

from supersheet.tui.app import SupersheetApp

UNCERTAIN = Path(__file__).parent / "sheets" / "uncertain-step.yaml"


def sampled(app: SupersheetApp, key: str) -> str:
    return app.grid.texts(key)[2].plain


async def settled(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_uncertain_cells_show_their_range_histogram_and_drivers(tmp_path: Path) -> None:
    sheet = tmp_path / UNCERTAIN.name
    shutil.copy(UNCERTAIN, sheet)
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert [c.title for c in app.grid.columns][2] == "sampled: mean (p5 … p95)"
        # the value stays the deterministic one (every draw at its mean); the range is beside it
        assert value(app, "step") == "30.15 ms" and sampled(app, "step") == "≈ 30.21 ms (26.17 … 35.07)"
        assert sampled(app, "weights") == "" and sampled(app, "fast_enough") == "pass in 63.9% of samples"
        app.go_to("step")
        await pilot.press("f2")
        part = str(app.query_one("#inspector-samples", Static).render())
        assert "samples  2,000 (seed 1)" in part and "p5 … p95 26.17 … 35.07 ms" in part
        bars = [line for line in part.splitlines() if set(line.strip()) <= set(" ▁▂▃▄▅▆▇█") and line.strip()]
        assert len(bars) == 3 and "█" in bars[-1]
        assert "●" in part and "p1 25.38" in part and "p99 37.89 ms" in part
        drivers = part[part.index("driven by"):].splitlines()
        assert drivers[1].startswith("  efficiency −0.73 █") and drivers[2].startswith("  allreduce  +0.65 █")
        # an exact cell has no samples part
        app.go_to("weights")
        assert not app.query_one("#inspector-samples", Static).display
        # an edit resamples: a narrower efficiency narrows the step's range
        await edit(pilot, "efficiency", "= uniform(85 %, 90 %)")
        await settled(pilot)
        assert value(app, "step") == "27.91 ms" and sampled(app, "step") == "≈ 27.88 ms (25.41 … 31.89)"
        assert app.grid.samples is app.sampling.samples and not app.grid.samples_pending
        app.go_to("step")
        part = str(app.query_one("#inspector-samples", Static).render())
        assert "efficiency" in part and "p5 … p95 25.41 … 31.89 ms" in part
        await edit(pilot, "weights", "80 GB")   # an input's literal: edited in place, resampled too
        await settled(pilot)
        assert value(app, "step") == "31.32 ms" and sampled(app, "step").startswith("≈ 31.")


async def test_a_sheet_without_draws_has_no_range_column(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert [c.id for c in app.grid.columns] == ["name", "value", "change", "formula"] and app.sampling.samples is None


async def test_a_cell_that_is_an_error_in_every_sample_shows_num_and_the_editor_keeps_running(tmp_path: Path) -> None:
    """Issue 28: a sampled cell with no finite sample (all #NUM) crashed the
    samples widget (a TypeError formatting None) and the editor quit, losing
    the unsaved edits."""
    sheet = tmp_path / "num.yaml"
    sheet.write_text("title: all NUM\nsamples: {count: 200, seed: 1}\ncells:\n"
                     "  x: = uniform(1, 2)\n  bad: = sqrt(0 - x)\n  fine: = x * 2\n")
    app = SupersheetApp(sheet, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert sampled(app, "bad") == "≈ #NUM (#NUM … #NUM) 200 errors"
        assert sampled(app, "fine").startswith("≈ 2.9")
        app.go_to("bad")
        await pilot.press("f2")
        await settled(pilot)
        part = str(app.query_one("#inspector-samples", Static).render())
        assert "mean     #NUM" in part and "p5 … p95 #NUM … #NUM  (p50 #NUM)" in part and "200 samples" in part
        await edit(pilot, "x", "= uniform(2, 3)")     # still running: edits and resamples
        await settled(pilot)
        assert sampled(app, "fine").startswith("≈ 4.9") and app.is_running
