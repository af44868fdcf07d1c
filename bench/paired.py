"""Paired, interleaved timing for the benchmarks: on a shared machine a figure
is only worth its comparison, so both sides run alternately (A B A B …) in
the same conditions, and each reports min and median of wall and CPU time.
The load average is printed with every table."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator


@dataclass
class Sample:
    wall: float
    cpu: float
    peak_mib: float = 0.0    # child processes only


@dataclass
class Series:
    name: str
    samples: list[Sample] = field(default_factory=list)

    def stat(self, what: str, how: Callable[[list[float]], float]) -> float:
        return how([getattr(s, what) for s in self.samples])


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


class BusyLoad:
    """`processes` busy loops (`while True: pass` in Python, each wanting a whole CPU,
    at the same priority as the benchmark) running beside a measurement: a load that
    anyone can reproduce, unlike whatever else the machine happens to run. `said()`
    tells what they took of the machine so far, with the load average."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self.children: list[subprocess.Popen] = []
        self.started = 0.0
        self.cpu = 0.0

    def start(self, settle: float) -> None:
        self.children = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                         for _ in range(self.processes)]
        time.sleep(settle if self.children else 0)   # running, not still starting
        self.started = time.perf_counter()
        self.cpu = self.children_cpu()

    def children_cpu(self) -> float:
        """CPU seconds the busy loops used so far (from /proc: they still run)."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for child in self.children:
            with open(f"/proc/{child.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])    # utime, stime
        return total / ticks

    def said(self) -> str:
        if not self.children:
            return f"no synthetic load; {load_average()}"
        wall = time.perf_counter() - self.started
        if wall < 1:
            return f"{self.processes} busy processes running; {load_average()}"
        share = (self.children_cpu() - self.cpu) / wall if wall > 0 else 0.0
        return (f"{self.processes} busy processes using {share:.2f} of {os.cpu_count()} CPUs "
                f"over {wall:.0f} s; {load_average()}")

    def stop(self) -> None:
        for child in self.children:
            child.kill()
            child.wait()
        self.children = []


@contextmanager
def busy_load(processes: int, settle: float = 2.0) -> Iterator[BusyLoad]:
    """`processes` busy loops for the block (none: the machine as found), always stopped after it."""
    load = BusyLoad(processes)
    try:
        load.start(settle)
        yield load
    finally:
        load.stop()


def wake_and_work(cpu_ms: float, times: int = 40, sleep_ms: float = 30.0) -> list[float]:
    """Wall milliseconds, each time, from waking after `sleep_ms` to having spent `cpu_ms` of CPU
    in a pure Python loop: what the machine's load alone makes of a task that needs that much
    CPU when an event comes (a keystroke's echo, an edit's repaint), with no other thread in
    the way: the floor under which no change to the editor's own work can bring its figure."""
    out = []
    for _ in range(times):
        time.sleep(sleep_ms / 1000)
        start, cpu = time.perf_counter(), time.thread_time()
        while (time.thread_time() - cpu) * 1000 < cpu_ms:
            pass
        out.append((time.perf_counter() - start) * 1000)
    return out


def in_process(fn: Callable[[], object]) -> Sample:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return Sample(time.perf_counter() - wall, time.process_time() - cpu)


# Children run as an installed program does, from byte code (pip writes it at install time): a
# shell with PYTHONDONTWRITEBYTECODE set would otherwise have every child compile every module
# of the project again (~60 ms of CPU), which no user pays and no baseline script pays either.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def child(cmd: list[str], ok: tuple[int, ...] = (0,), **kwargs) -> Sample:
    """Wall, CPU (user + system) and peak RSS of one child process (an exit code outside `ok` raises)."""
    start = time.perf_counter()
    kwargs.setdefault("env", CHILD_ENV)
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        raise RuntimeError(f"{cmd} failed: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
    process.stderr.close()  # type: ignore[union-attr]
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def interleave(sides: dict[str, Callable[[], Sample]], rounds: int, warm: int = 1) -> dict[str, Series]:
    """Run every side once per round, alternating (the order flips each round)."""
    names = list(sides)
    for _ in range(warm):
        for name in names:
            sides[name]()
    out = {name: Series(name) for name in names}
    for i in range(rounds):
        for name in (names if i % 2 == 0 else list(reversed(names))):
            out[name].samples.append(sides[name]())
    return out


def table(series: dict[str, Series], baseline: str | None = None, memory: bool = False) -> str:
    """min / median of wall and CPU per side; with `baseline`, each side's ratio of medians to it."""
    header = f"{'(ms)':44} {'wall min':>9} {'wall med':>9} {'CPU min':>9} {'CPU med':>9}"
    if memory:
        header += f" {'peak MiB':>9}"
    if baseline:
        header += f" {'× wall':>7} {'× CPU':>7}"
    lines = [header]
    for name, s in series.items():
        line = (f"{name[:44]:44} {s.stat('wall', min) * 1e3:9.1f} {s.stat('wall', statistics.median) * 1e3:9.1f} "
                f"{s.stat('cpu', min) * 1e3:9.1f} {s.stat('cpu', statistics.median) * 1e3:9.1f}")
        if memory:
            line += f" {s.stat('peak_mib', max):9.0f}"
        if baseline:
            base = series[baseline]
            line += (f" {s.stat('wall', statistics.median) / base.stat('wall', statistics.median):7.2f}"
                     f" {s.stat('cpu', statistics.median) / base.stat('cpu', statistics.median):7.2f}")
        lines.append(line)
    return "\n".join(lines)
