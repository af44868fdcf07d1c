"""Where the editor's Monte Carlo runs: in its resample process
(sample_process.py) while that works, else in the calling thread, on the
document's own workbook.

Either way the editor gets a `Samples` around the workbook it shows: the
process samples the same text at the same path, with the texts the editor read
of its imports (so the same workbook, whatever has changed on disk since), and
sends back only numbers and texts (sample_wire.py). Its answer is used only
when it is about that workbook (the same uncertain cells); else the thread
samples the editor's workbook itself. When the process stops or cannot
start, every later resample runs in the thread and its result says why
(`note`, for the status line). Pure: no UI imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from supersheet.editor.sample import Samples, has_draws, sample_workbook
from supersheet.editor.sample_process import SampleProcess, WorkerClosed, WorkerFailed
from supersheet.engine.workbook import Workbook


class Resampler:
    def __init__(self, process: SampleProcess | None = None, in_process: bool = True) -> None:
        self.process = process if process is not None else SampleProcess()
        self.in_process = in_process   # False: always in the thread (as before the process)

    def sampler(self, workbook: Workbook, path: Path, text: str) -> Callable[[], Samples | None]:
        """The Monte Carlo of the sheet as it is now (`workbook`, checked from `text`
        at `path`), to run off the UI thread."""
        return lambda: self.sample(workbook, path, text)

    def sample(self, workbook: Workbook, path: Path, text: str) -> Samples | None:
        if not has_draws(workbook):
            return None
        if not workbook.ok or not self.in_process:
            return sample_workbook(workbook)
        try:
            found = self.process.sample(path, text, imported_texts(workbook, path))
        except WorkerClosed:
            return None            # the editor is exiting: nothing will be shown
        except WorkerFailed as e:
            samples = sample_workbook(workbook)
            if samples is not None:
                samples.note = f"{e}; sampling in the editor instead"
            return samples
        if found is None or found[0] is not None and not about(found[0].uncertain, workbook):
            return sample_workbook(workbook)
        return Samples(*found, workbook=workbook)

    def close(self) -> None:
        self.process.close()


def imported_texts(workbook: Workbook, path: Path) -> dict[str, str]:
    """The text of every other file `workbook` was built from (its imports), as
    it read them: the process loads these, not the files as they are on disk by now."""
    sheet_itself = path.resolve()
    return {str(file): sheet.text for file, sheet in workbook.model.files.items() if file != sheet_itself}


def about(uncertain: frozenset[str], workbook: Workbook) -> bool:
    """Whether a result with these uncertain cells can be the samples of `workbook`."""
    return uncertain == workbook.checked.uncertain
