"""The editor's checks that run off the UI thread after opening and after each edit:
the samples of the sheet's random draws (in the resample process, editor/resampler.py)
and the expectations that only running its sweeps, solves and choices can check. What
they find is shown stale (dimmed, `…`) from the next edit until they have run again.
A controller the app holds (tui/app.py: `app.sampling`)."""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.resampler import Resampler
from supersheet.editor.sample import Samples
from supersheet.editor.verdicts import Verdict, block_verdicts, by_cell, has_block_expectations

from .host import Editor


class SamplingController:
    def __init__(self, app: Editor) -> None:
        self.app = app
        self.samples: Samples | None = None    # of the text on screen, or of the one before it (stale)
        self.resampler = Resampler()           # its process starts with the first sheet that has draws
        self.sampling_note = ""                # the last thing the status line said about how samples run
        self.block_verdicts: list[Verdict] = []
        self.blocks_stale = False              # an edit came after them: being checked again
        self.samples_stale = False

    def clear(self) -> None:
        """Another document (or the same, reloaded): nothing found of it yet."""
        self.samples = None
        self.block_verdicts = []
        self.blocks_stale = self.samples_stale = False

    def close(self) -> None:
        """The app exits (or failed): its resample process stops with it."""
        self.resampler.close()

    # samples of the random draws ---------------------------------------------------------
    def resample(self) -> None:
        """Sample the sheet's random draws (after opening and after each edit) in the
        editor's resample process (editor/resampler.py), waited for off the UI thread;
        the grid's ranges are dimmed until the new ones arrive."""
        app = self.app
        document = app.document
        if document is None:
            return
        if not document.has_draws:
            if self.samples is not None or self.samples_stale:
                self.show_samples(None)
            return
        app.grid.set_samples(self.samples, pending=True)
        sampler = document.sampler(self.resampler)

        def sample() -> Samples | None:
            try:
                return sampler()
            except Exception as e:  # noqa: BLE001 - a sheet that cannot be sampled keeps its exact values
                return Samples(None, f"cannot sample: {type(e).__name__}: {e}")
        app.background.run("samples", sample, self.show_samples)

    def show_samples(self, samples: Samples | None) -> None:
        app = self.app
        document = app.document
        self.samples = samples
        self.samples_stale = False
        app.grid.set_samples(samples)
        if document is not None and app.inspector.display:
            app.inspector.show_samples(document, app.grid.current_key, samples)
        if samples is not None and samples.error:
            app.set_status(Text(f"samples: {samples.error}", style="yellow"))
        elif samples is not None and samples.note and samples.note != self.sampling_note:
            app.set_status(Text(f"samples: {samples.note}", style="yellow"))   # said once
        self.sampling_note = samples.note if samples is not None and samples.note else self.sampling_note
        self.show_verdicts()

    # expectations that only running the blocks (or sampling) can check ---------------------
    def recheck_blocks(self) -> None:
        """Check the expectations of the sheet's sweeps, solves and choices on the
        unsaved text (after opening and after each edit), off the UI thread."""
        document = self.app.document
        if document is None:
            return
        if not has_block_expectations(document.model):
            if self.block_verdicts or self.blocks_stale:
                self.show_block_verdicts([])
            return
        path, text, imported = document.path, document.text(), document.shared.texts()
        self.app.background.run("blocks", lambda: block_verdicts(path, text, imported), self.show_block_verdicts)

    def show_block_verdicts(self, verdicts: list[Verdict]) -> None:
        self.block_verdicts = verdicts
        self.blocks_stale = False
        self.show_verdicts()

    def verdicts_outdated(self) -> None:
        """An edit changed the inputs: what the blocks and the samples found before it
        is shown as stale (dimmed, `…`) until they are checked again, never as current."""
        self.blocks_stale = self.samples_stale = True
        if self.verdicts:
            self.show_verdicts()

    @property
    def verdicts(self) -> list[Verdict]:
        """What fails in the sweeps, solves and choices, and over the samples
        (`stale` while they are checked again after an edit)."""
        blocks = [v.outdated() for v in self.block_verdicts] if self.blocks_stale else self.block_verdicts
        sampled = self.samples.verdicts if self.samples is not None else []
        return blocks + ([v.outdated() for v in sampled] if self.samples_stale else sampled)

    def show_verdicts(self) -> None:
        """Mark the cells of the verdicts in the grid, say them in the inspector, list them as diagnostics."""
        app = self.app
        document = app.document
        if document is None:
            return
        verdicts = self.verdicts
        cells = by_cell(verdicts)
        app.grid.set_verdicts(cells)
        app.inspector.verdicts = cells
        if app.inspector.display:
            app.inspector.show_cell(document, app.grid.current_key, self.samples)
        app.load_problems(document, verdicts)
