"""The editor's resample process (editor/sample_process.py, sample_worker.py,
resampler.py): it gives what sampling in a thread gives, is started once and
reused, its answers are shown only for the text they are about, its death
falls back to the thread with a word in the status line, and it never
outlives the editor."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_tui_app import SIZE, edit, settled
from textual.widgets import Static

from supersheet.editor.resampler import Resampler
from supersheet.editor.sample import Samples, sample_workbook
from supersheet.editor.sample_process import SampleProcess, WorkerFailed
from supersheet.tui.app import SupersheetApp
from repo_paths import REPO

MONTE_CARLO = REPO / "sheets" / "questions" / "q4-ep-skew-monte-carlo.yaml"
UNCERTAIN = Path(__file__).parent / "sheets" / "uncertain-step.yaml"


def gone(pid: int) -> bool:
    """Whether the process has exited (a zombie waiting for init counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


def wait_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def shown(samples: Samples, key: str) -> tuple:
    """All the editor shows of a cell's samples."""
    return (samples.record(key), samples.pass_rate(key), samples.reduced_text(key), samples.histogram(key, 20),
            samples.drivers(key), samples.is_draw(key))


def copy(source: Path, tmp_path: Path) -> Path:
    sheet = tmp_path / source.name
    shutil.copy(source, sheet)
    return sheet


async def test_the_process_shows_what_the_thread_shows_and_is_reused(tmp_path: Path) -> None:
    """On the library's Monte Carlo sheet: every range, share, histogram and
    driver ranking from the process equals sampling the same workbook in the
    editor; an edit's samples come from the same process and replace the old."""
    app = SupersheetApp(MONTE_CARLO, watch_seconds=0)   # (its imports resolve beside it; never saved here)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        process = app.sampling.resampler.process
        pid = process.pid
        assert pid is not None and not gone(pid) and process.requests == 1
        samples, document = app.sampling.samples, app.document
        assert samples is not None and samples.note == "" and samples.workbook is document.workbook
        here = sample_workbook(document.workbook)
        assert samples.uncertain == here.uncertain and len(samples.uncertain) > 5
        assert samples.sampled.frame.equals(here.sampled.frame) and samples.verdicts == here.verdicts
        for key in sorted(samples.uncertain):
            assert shown(samples, key) == shown(here, key), key
        assert sum(samples.histogram(key, 20) is not None for key in samples.uncertain) >= 6
        # (its draws are arrays, which no ranking covers: drivers are compared on uncertain-step below)
        ranged = [key for key in samples.uncertain if samples.record(key) is not None]
        before = {key: app.grid.texts(key)[2].plain for key in ranged}
        assert all(text.startswith("≈ ") for text in before.values())
        # an edit: sampled again in the same process, the new ranges replace the old
        await edit(pilot, "drift", "0.25")
        await settled(pilot)
        assert process.pid == pid and process.requests == 2
        assert app.sampling.samples is not samples and app.sampling.samples.workbook is app.document.workbook
        after = sample_workbook(app.document.workbook)
        for key in sorted(after.uncertain):
            assert shown(app.sampling.samples, key) == shown(after, key), key
        now = {key: app.grid.texts(key)[2].plain for key in ranged}
        assert now != before and not app.grid.samples_pending
    assert wait_gone(pid), "the resample process outlived the editor"


async def test_a_result_for_an_older_text_is_never_shown(tmp_path: Path) -> None:
    """The first edit's resample is still running in the process when the second
    edit comes: its answer arrives, and is dropped; the grid shows the second's."""
    app = SupersheetApp(copy(UNCERTAIN, tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        process = app.sampling.resampler.process
        sample, gate, asked = process.sample, threading.Event(), []

        def held(path, text, *imports):
            asked.append(text)
            if len(asked) == 1:
                gate.wait(10)       # the first edit's request: answered only after the second edit
            return sample(path, text, *imports)
        process.sample = held     # type: ignore[method-assign]
        delivered: list[Samples | None] = []
        show = app.sampling.show_samples
        app.sampling.show_samples = lambda samples: (delivered.append(samples), show(samples))[1]  # type: ignore[method-assign]
        await edit(pilot, "efficiency", "= uniform(85 %, 90 %)")
        for _ in range(1000):       # (bounded: a request that never comes fails, never hangs)
            if asked:
                break
            await pilot.pause(0.01)
        assert asked, "the first edit's resample never reached the process"
        await edit(pilot, "weights", "80 GB")
        assert app.grid.samples_pending
        gate.set()
        await settled(pilot)
        assert len(asked) == 2 and "85 %" in asked[0] and "80 GB" in asked[1]
        assert len(delivered) == 1 and delivered[0] is app.sampling.samples
        final = sample_workbook(app.document.workbook)
        assert shown(app.sampling.samples, "step") == shown(final, "step")
        assert [d.draw for d in app.sampling.samples.drivers("step")] == ["allreduce", "efficiency"]
        assert app.grid.texts("step")[2].plain == "≈ 31.29 ms (28.76 … 35.36)" and not app.grid.samples_pending


async def test_a_dead_process_falls_back_to_the_thread_and_says_so(tmp_path: Path) -> None:
    app = SupersheetApp(copy(UNCERTAIN, tmp_path), watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        pid = app.sampling.resampler.process.pid
        os.kill(pid, signal.SIGKILL)
        assert wait_gone(pid)
        await edit(pilot, "efficiency", "= uniform(85 %, 90 %)")
        await settled(pilot)
        status = str(app.query_one("#status", Static).render())
        assert "the resample process stopped (killed by SIGKILL)" in status and "sampling in the editor" in status
        # the ranges are there, sampled in the thread, for the new text
        assert app.grid.texts("step")[2].plain == "≈ 27.88 ms (25.41 … 31.89)" and not app.grid.samples_pending
        assert app.sampling.samples.workbook is app.document.workbook and app.sampling.resampler.process.pid is None
        await edit(pilot, "weights", "80 GB")     # and the next edits too (no new process)
        await settled(pilot)
        assert app.grid.texts("step")[2].plain.startswith("≈ 31.") and app.sampling.resampler.process.pid is None


async def test_a_process_that_cannot_start_falls_back_to_the_thread(tmp_path: Path) -> None:
    app = SupersheetApp(copy(UNCERTAIN, tmp_path), watch_seconds=0)
    app.sampling.resampler = Resampler(SampleProcess([str(tmp_path / "no-such-python")]))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        status = str(app.query_one("#status", Static).render())
        assert "the resample process cannot start" in status and "sampling in the editor" in status
        assert app.grid.texts("step")[2].plain == "≈ 30.21 ms (26.17 … 35.07)"


async def test_the_process_stops_when_the_app_fails(tmp_path: Path) -> None:
    app = SupersheetApp(copy(UNCERTAIN, tmp_path), watch_seconds=0)

    def fail() -> None:
        raise RuntimeError("a bug in the editor")
    with pytest.raises(Exception):
        async with app.run_test(size=SIZE) as pilot:
            await settled(pilot)
            pid = app.sampling.resampler.process.pid
            assert pid is not None and not gone(pid)
            app.call_later(fail)
            await pilot.pause(0.2)
    assert wait_gone(pid)


def test_a_reply_about_another_text_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process answers with a digest of the sheet it sampled; one that does not
    match the request is never used, and the process is not trusted again."""
    import supersheet.editor.sample_process as sample_process
    sheet = copy(UNCERTAIN, tmp_path)
    process = SampleProcess()
    try:
        result, error = process.sample(sheet, sheet.read_text())
        assert error == "" and result is not None and "step" in result.summaries
        monkeypatch.setattr(sample_process, "digest", lambda path, text, imported: "another sheet")
        with pytest.raises(WorkerFailed, match="answered another request"):
            process.sample(sheet, sheet.read_text())
        assert process.pid is None
        with pytest.raises(WorkerFailed):
            process.sample(sheet, sheet.read_text())
    finally:
        process.close()


def test_the_process_stops_when_the_editor_is_killed(tmp_path: Path) -> None:
    """Killed, the editor cannot stop it: the process sees its pipe close and exits."""
    sheet = copy(UNCERTAIN, tmp_path)
    script = ("import os, signal, sys\nfrom pathlib import Path\n"
              "from supersheet.editor.sample_process import SampleProcess\n"
              "process = SampleProcess()\nsheet = Path(sys.argv[1])\nprocess.sample(sheet, sheet.read_text())\n"
              "print(process.pid, flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run([sys.executable, "-c", script, str(sheet)], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert wait_gone(int(done.stdout.split()[0]))


def test_the_process_samples_the_imports_as_the_editor_read_them(tmp_path: Path) -> None:
    """An imported file changed on disk after the editor read it: the process samples
    the texts the editor's workbook was built from (sent with the request), never the
    file as it is now, so the sampled column is always about the values on screen."""
    from supersheet.editor.baselines import workbook_from_text
    base = tmp_path / "base.yaml"
    base.write_text("title: base\ncells:\n  lo: 10 ms\n", encoding="utf-8")
    sheet = tmp_path / "main.yaml"
    sheet.write_text("title: main\nsamples: 2000\nuse:\n  b: base.yaml\ncells:\n"
                     "  x: = uniform(b.lo, b.lo + 1 ms)\n  y: = 2 * x -> ms\n", encoding="utf-8")
    workbook = workbook_from_text(sheet, sheet.read_text())
    base.write_text("title: base\ncells:\n  lo: 1000 ms\n", encoding="utf-8")
    resampler = Resampler()
    try:
        samples = resampler.sample(workbook, sheet, sheet.read_text())
        assert samples is not None and samples.note == "" and resampler.process.requests == 1
        here = sample_workbook(workbook)
        assert shown(samples, "y") == shown(here, "y")
        assert samples.record("y")["mean"] == pytest.approx(21.0, rel=0.01)   # 2 x (10 … 11 ms), not 2 s
    finally:
        resampler.close()


def test_the_process_loads_under_the_editors_limits(tmp_path: Path) -> None:
    """The request carries the editor's load limits: a sheet over a limit the editor
    set is refused in the process too, and within the defaults it is sampled."""
    from supersheet.engine.base.limits import current_limits, set_limits
    sheet = copy(UNCERTAIN, tmp_path)
    process = SampleProcess()
    before = current_limits()
    try:
        set_limits(max_cells=3)        # (the sheet has 10 cells)
        found = process.sample(sheet, sheet.read_text())
        assert found is None or found[0] is None      # not loaded there: nothing sampled
        set_limits()
        result, error = process.sample(sheet, sheet.read_text())
        assert error == "" and result is not None and "step" in result.summaries
    finally:
        set_limits(**{k: getattr(before, k) for k in before.__dataclass_fields__})
        process.close()
