"""Benchmark of `supersheet edit` (issue 5). Prints figures; not a test.

1. Edit latency on a generated 300-cell sheet, driven with Pilot: from the key
   press that commits an edit (Enter in the editor) to the first screen update
   that shows the recomputed values (one that left no line of the grid to draw),
   over 50 edits (target: median <= 50 ms).
   The moment of the screen update is taken from the app's display hook; the
   Pilot round trip (press + pause, which also waits for the process to go
   idle) is printed too, and the CPU time the UI thread spent from the key
   press to that update (the cost of an edit, apart from the machine's load).
2. The same on a generated sheet with random draws (5 uncertain inputs,
   10,000 samples): the deterministic values must show as fast, and the
   samples follow in a worker; the time from the key press to the new ranges
   on screen is printed too.
3. The same on the largest sheet of the library (most cells, imports included).
4. A keystroke in the cell editor while a Monte Carlo resample runs in a
   worker: from the key to the first screen update showing it (target: <= 30 ms),
   and the UI thread's CPU time in between (its own work apart from the load),
   on the generated sheet with draws and on the library's Monte Carlo sheet.
   `--only-echo ROUNDS` measures this part alone; `--floor` adds the echo with
   no resample running under the same load (what no change to the resample can beat).
5. With --load 0,2,4: all of that under each synthetic load in turn: that many
   busy-loop processes (bench/paired.py's busy_load) started before and killed
   after, with the share of the CPUs they took and the load average printed,
   so that "under load" is a figure anyone can rerun.
6. Opening the running example: from starting `supersheet edit` (no argument) in a
   pseudo-terminal of 120x36 to the first full screen (the grid with values
   and the footer drawn), median of 5 runs (target: <= 1.5 s), as the machine is.

Run: .venv/bin/python bench/bench_tui.py [--edits 50] [--cells 300] [--draw-cells 50] [--opens 5]
                                         [--keys 30] [--load 0,2,4] [--only-echo ROUNDS [--floor]]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from paired import busy_load, load_average, wake_and_work  # noqa: E402
from pty_screen import first_screen  # noqa: E402

MONTE_CARLO_SHEET = REPO / "sheets" / "questions" / "q4-ep-skew-monte-carlo.yaml"   # the library's draws


def generate_sheet(cells: int = 300, draws: int = 0, samples: int = 10_000) -> str:
    """A sheet of `cells` cells: a few inputs feeding chains of formulas
    (sections of 25, each opened by a comment), like a large scenario; with
    `draws`, that many of the inputs after x0 are uniform random draws."""
    lines = ["title: Generated sheet for the editor benchmark"] + ([f"samples: {samples}"] if draws else [])
    lines.append("cells:")
    inputs = 12
    for i in range(inputs):
        if i == 0:
            lines.append("  # inputs")
        unit = ["GB", "token", "ms", ""][i % 4]
        suffix = (" " + unit) if unit else ""
        if 1 <= i <= draws:
            lines.append(f"  x{i}: = uniform({90 + i}{suffix}, {110 + i}{suffix})")
        else:
            lines.append(f"  x{i}: {100 + i}{suffix}")
    units = ["GB", "token", "ms", ""]
    for i in range(cells - inputs):
        if i % 25 == 0:
            lines.append("")
            lines.append(f"  # block {i // 25}")
        base = i % inputs
        unit = units[base % 4]
        name = f"c{i}"
        if i < inputs:
            formula = f"= x{base} * 2"
        else:
            a = f"c{i - inputs}"
            b = f"x{base}"
            formula = f"= {a} + {b} / 4" if i % 3 else f"= max({a}, {b}) * 1.01"
        if unit and i % 7 == 0:
            formula += f" -> {unit}"
        lines.append(f"  {name}: {formula}")
    lines.append("checks:")
    lines.append("  small: c0 < 1000 GB")
    return "\n".join(lines) + "\n"


async def edit_latency(path: Path, edits: int, key: str = "x0", texts=None) -> dict[str, float]:
    from supersheet.tui.app import SupersheetApp

    texts = texts or (lambda i: f"{100 + (i + 1) * 3} GB")
    fresh_state()
    app = SupersheetApp(path, watch_seconds=0)
    paints: list[float] = []
    applied: list[float] = []
    display = app._display

    cpu_at: dict[float, float] = {}

    def timed_display(screen, renderable):
        now = time.perf_counter()
        grid = app.grid
        # a paint shows the new values only if it left none of the grid's lines to draw
        if not grid._repaint_regions and not grid._styles_cache._dirty_lines:
            paints.append(now)
            cpu_at[now] = time.thread_time()
        return display(screen, renderable)

    app._display = timed_display  # type: ignore[method-assign]
    after_edit = app.after_edit

    def timed_after_edit(result, verb):
        applied.append(time.perf_counter())
        return after_edit(result, verb)

    app.after_edit = timed_after_edit  # type: ignore[method-assign]
    sampled_at: list[float] = []
    # the samples' controller (before it, 61fcbb8, the app itself: bench_tui_edit_ab.py compares across it)
    sampling = getattr(app, "sampling", app)
    show_samples = sampling.show_samples

    def timed_show_samples(samples):
        sampled_at.append(time.perf_counter())
        return show_samples(samples)

    sampling.show_samples = timed_show_samples  # type: ignore[method-assign]
    latencies: list[float] = []
    cpu: list[float] = []
    sampling: list[float] = []
    round_trips: list[float] = []
    recomputed: list[int] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.go_to(key)
        await pilot.pause()
        for i in range(edits):
            # the grid takes the focus back after the last edit's values are painted (app.py's
            # commit_edit): under load that can come after the pause; Enter must open the editor
            waited = time.perf_counter()
            while app.focused is not app.grid and time.perf_counter() - waited < 5:
                await pilot.pause(0.01)
            await pilot.press("enter")
            await pilot.pause()
            assert app.editor.editing, "Enter did not open the editor"
            text = texts(i)
            app.query_one("#editor-input").value = text
            await pilot.pause()                 # the text is on screen, as typed text would be
            paints.clear()
            applied.clear()
            sampled_at.clear()
            cpu_at.clear()
            start, start_cpu = time.perf_counter(), time.thread_time()
            await pilot.press("enter")
            await pilot.pause()
            end = time.perf_counter()
            if app.document.workbook.checked.distributions:
                await app.workers.wait_for_complete()
                await pilot.pause()
                assert sampled_at, "no samples after the edit"
                sampling.append((sampled_at[-1] - start) * 1000)
            assert applied, "the edit was not applied"
            shown = [p for p in paints if p >= applied[0]]
            assert shown, "no screen update with the grid drawn after the edit"
            assert app.document.raw_text(key) == text, (app.document.raw_text(key), text)
            latencies.append((shown[0] - start) * 1000)
            cpu.append((cpu_at[shown[0]] - start_cpu) * 1000)
            round_trips.append((end - start) * 1000)
            recomputed.append(len(app.document.scenario.values))
        changed = len(app.grid.changes)
    return {
        "median": statistics.median(latencies),
        "p90": sorted(latencies)[int(len(latencies) * 0.9) - 1],
        "p95": sorted(latencies)[max(int(len(latencies) * 0.95) - 1, 0)],
        "max": max(latencies),
        "cpu_median": statistics.median(cpu),
        "cpu_p95": sorted(cpu)[max(int(len(cpu) * 0.95) - 1, 0)],
        "roundtrip_median": statistics.median(round_trips),
        "changed_per_edit": changed,
        "sampled_median": statistics.median(sampling) if sampling else None,
    }


def fresh_state() -> None:
    """A state folder of its own for each editor the bench opens: an editor leaves its
    unsaved edits there as a recovery file, and the next one opened on the same sheet
    would offer them in a dialog that takes the Enter meant to open the cell editor."""
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="bench-tui-state-")


def largest_library_sheet() -> tuple[Path, str, int]:
    """The library sheet with the most cells (imports included), and one of its
    own numeric inputs to edit."""
    from supersheet.editor.document import Document

    best = None
    for path in sorted((REPO / "sheets").rglob("*.yaml")):
        try:
            document = Document(path)
        except Exception:  # noqa: BLE001 - a sheet the editor cannot open is not a candidate
            continue
        if document.diagnostics:
            continue
        cells = document.workbook.model.cells
        inputs = [k for k, c in cells.items() if c.kind == "input" and not c.scope.prefix
                  and isinstance(document.value(k), float) and not document.workbook.checked.cells[k].type.dims]
        if inputs and (best is None or len(cells) > best[2]):
            best = (path, inputs[0], len(cells))
    assert best is not None
    return best


async def echo_latency(path: Path, keys: int, key: str = "x0", resampling: bool = True) -> dict[str, float]:
    """A key typed into the editor while a Monte Carlo resample runs in a worker:
    from sending the key to the first screen update after it was typed. Without
    `resampling`, the same keys with nothing else running in the editor: the
    floor of the echo under the machine's load."""
    from supersheet.tui.app import SupersheetApp   # (first: it sets TEXTUAL_FPS, which Textual reads at import)
    from textual import events                      # noqa: I001

    fresh_state()
    app = SupersheetApp(path, watch_seconds=0)
    assert_frame_rate_as_shipped()
    paints: list[tuple[float, int, float]] = []   # (when, how long the editor's text was, UI thread's CPU):
    display = app._display                         # a paint shows the key only if it came after it was typed

    def timed_display(screen, renderable):
        paints.append((time.perf_counter(), len(app.editor.text), time.thread_time()))
        return display(screen, renderable)

    app._display = timed_display  # type: ignore[method-assign]
    echoes: list[float] = []
    cpu: list[float] = []
    busy = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        app.go_to(key)
        app.start_edit(key)
        for i in range(keys):
            if resampling:
                getattr(app, "sampling", app).resample()    # a fresh resample in a worker thread
            await asyncio.sleep(0.005)          # ... and under way
            running = any(w.is_running for w in app.workers)
            busy += running
            paints.clear()
            typed = len(app.editor.text)
            start, start_cpu = time.perf_counter(), time.thread_time()
            app._driver.send_message(events.Key(str(i % 10), str(i % 10)))
            while not [p for p in paints if p[0] > start and p[1] > typed]:
                await asyncio.sleep(0.0005)
                if time.perf_counter() - start > 2:
                    raise RuntimeError("no echo within 2 s")
            shown, _, shown_cpu = [p for p in paints if p[0] > start and p[1] > typed][0]
            echoes.append((shown - start) * 1000)
            cpu.append((shown_cpu - start_cpu) * 1000)
            await app.workers.wait_for_complete()
    return {"median": statistics.median(echoes), "p95": sorted(echoes)[max(int(len(echoes) * 0.95) - 1, 0)],
            "max": max(echoes), "busy": busy / keys,
            "cpu_median": statistics.median(cpu), "cpu_p95": sorted(cpu)[max(int(len(cpu) * 0.95) - 1, 0)]}


def assert_frame_rate_as_shipped() -> None:
    """The editor draws at the frame rate `supersheet edit` has (tui/__init__.py
    sets it before Textual is imported): a bench that imported Textual first would
    time keys drawn at Textual's default 60 frames a second instead (--only-echo
    did: echo medians of 20-25 ms instead of 4-10)."""
    import textual.constants
    wanted = int(os.environ["TEXTUAL_FPS"])       # (the user's, or the editor's own: tui/__init__.py)
    assert textual.constants.MAX_FPS == wanted, (textual.constants.MAX_FPS, wanted)


def open_time(runs: int) -> list[float]:
    """Seconds from spawning `supersheet edit` (no argument: the bundled running
    example) in a 120x36 pty to the first full screen: the footer drawn and the grid
    showing its values."""
    exe = REPO / ".venv" / "bin" / "supersheet"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "supersheet.cli.main"]
    return [first_screen(command + ["edit"], (b"max_sessions", b"47"), REPO, timeout=20)[0] for _ in range(runs)]

def report(sheet: str, edits: int, figures: dict) -> None:
    print(f"{sheet}: edit -> grid shows new values, {edits} edits (Pilot): median {figures['median']:.1f} ms, "
          f"p90 {figures['p90']:.1f} ms, p95 {figures['p95']:.1f} ms, max {figures['max']:.1f} ms  "
          f"(target: median <= 50 ms, p95 <= 100 ms)")
    print(f"  CPU time of the UI thread from the key to that update: median {figures['cpu_median']:.1f} ms, "
          f"p95 {figures['cpu_p95']:.1f} ms (what the edit costs, whatever else the machine runs; "
          f"target: <= 5 ms, issue 31)")
    print(f"  Pilot round trip (press + pause until idle): median {figures['roundtrip_median']:.1f} ms; "
          f"{figures['changed_per_edit']} values changed per edit")
    if figures["sampled_median"] is not None:
        print(f"  edit -> new sampled ranges shown (worker): median {figures['sampled_median']:.1f} ms")
    floor_report(figures["cpu_median"])


def floor_report(cpu_ms: float) -> None:
    """The same CPU, spent by a thread that does nothing else, under the same load."""
    floor = sorted(wake_and_work(cpu_ms))
    print(f"  floor under this load: {cpu_ms:.1f} ms of CPU right after a wake-up, in a thread doing nothing else, "
          f"takes median {statistics.median(floor):.1f} ms, p95 {floor[max(int(len(floor) * 0.95) - 1, 0)]:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--draw-cells", type=int, default=50)
    parser.add_argument("--opens", type=int, default=5)
    parser.add_argument("--keys", type=int, default=30, help="keystrokes for the echo measurement")
    parser.add_argument("--load", default="0", metavar="N,N,...",
                        help="measure under each of these synthetic loads in turn: that many busy-loop "
                             "processes running (0: the machine as found)")
    parser.add_argument("--only-echo", type=int, default=0, metavar="ROUNDS",
                        help="only the keystroke echo during a resample, this many rounds of the loads "
                             "in turn (each --keys keys)")
    parser.add_argument("--floor", action="store_true",
                        help="with --only-echo: also the echo with no resample running, under the same load")
    args = parser.parse_args()
    os.environ.pop("NO_COLOR", None)
    # the editors it starts keep their unsaved edits as recovery files: not in the user's state folder
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="bench-tui-state-")
    loads = [int(n) for n in args.load.split(",")]
    print(f"cpus {os.cpu_count()}, {load_average()} at start")
    if args.only_echo:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "draws.yaml"
            path.write_text(generate_sheet(args.draw_cells, draws=5), encoding="utf-8")
            for _ in range(args.only_echo):
                for processes in loads:
                    with busy_load(processes) as load:
                        print(f"-- {args.draw_cells} cells, 5 of them random draws, 10,000 samples")
                        echo_report(path, args.keys)
                        if args.floor:
                            echo_report(path, args.keys, resampling=False)
                        print(f"   {load.said()}")
        return
    largest, key, count = largest_library_sheet()
    for processes in loads:
        with busy_load(processes) as load:
            print(f"== {load.said()} at the start")
            run_all(args, largest, key, count)
            print(f"== {load.said()} at the end")
    times = open_time(args.opens)
    print(f"open the running example -> first full screen ({args.opens} runs, pty 120x36): "
          f"median {statistics.median(times):.2f} s, max {max(times):.2f} s  (target: <= 1.5 s); {load_average()}")


def run_all(args, largest: Path, key: str, count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.yaml"
        path.write_text(generate_sheet(args.cells), encoding="utf-8")
        from supersheet.editor.document import Document
        started = time.perf_counter()
        document = Document(path)
        assert not document.diagnostics, document.diagnostics
        load = time.perf_counter() - started
        started = time.perf_counter()
        result = document.apply("x0", "150 GB")
        engine_edit = (time.perf_counter() - started) * 1000
        print(f"generated sheet: {len(document.workbook.model.cells)} cells; Document load {load * 1000:.0f} ms; "
              f"engine edit of x0 {engine_edit:.1f} ms ({len(result.recomputed)} cells recomputed)")
        figures = asyncio.run(edit_latency(path, args.edits))
        report(f"{args.cells} cells", args.edits, figures)
        figures = asyncio.run(edit_latency(largest, args.edits, key, lambda i: str(2 + i % 7)))
        report(f"largest library sheet {largest.relative_to(REPO)} ({count} cells, editing {key})", args.edits,
               figures)
        path.write_text(generate_sheet(args.draw_cells, draws=5), encoding="utf-8")
        figures = asyncio.run(edit_latency(path, args.edits))
        report(f"{args.draw_cells} cells, 5 of them random draws, 10,000 samples", args.edits, figures)
        echo_report(path, args.keys)
        if args.cells != args.draw_cells:
            path.write_text(generate_sheet(args.cells, draws=5), encoding="utf-8")
            print(f"{args.cells} cells, 5 of them random draws, 10,000 samples:")
            echo_report(path, args.keys)
        print(f"library Monte Carlo sheet {MONTE_CARLO_SHEET.relative_to(REPO)}:")
        echo_report(MONTE_CARLO_SHEET, args.keys, "batch")


def echo_report(path: Path, keys: int, key: str = "x0", resampling: bool = True) -> None:
    echo = asyncio.run(echo_latency(path, keys, key, resampling))
    during = "while a Monte Carlo resample runs" if resampling else "with nothing else running (the floor)"
    print(f"  keystroke in the editor -> echoed on screen {during} ({keys} keys, "
          f"a resample running for {echo['busy']:.0%} of them): median {echo['median']:.1f} ms, "
          f"p95 {echo['p95']:.1f} ms, max {echo['max']:.1f} ms  (target: <= 30 ms)")
    print(f"  CPU time of the UI thread from the key to that echo: median {echo['cpu_median']:.1f} ms, "
          f"p95 {echo['cpu_p95']:.1f} ms (its own work, whatever else the machine runs)")
    floor_report(echo["cpu_median"])


if __name__ == "__main__":
    main()
