"""Paired, interleaved timing for the benchmarks: on a shared machine a figure
is only worth its comparison, so both sides run alternately (A B A B …) in
the same conditions, and each reports min and median of wall and CPU time.
The load average is printed with every table."""
from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable


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
