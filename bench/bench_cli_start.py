"""Cold start of the `supersheet` command at two git revisions, paired and interleaved.

Each revision is built into a wheel and installed into its own folder (as a
user gets it); then `python -m supersheet ARGS` runs in fresh processes,
alternating A B B A ..., and the wall and CPU times (min and median) are
printed with the load average. Usage:

    .venv/bin/python bench/bench_cli_start.py OLD_REV NEW_REV --rounds 12 -- --help
    .venv/bin/python bench/bench_cli_start.py 8e4fbdc HEAD --rounds 10 -- calc "470.2 GB -> GiB"
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def install(revision: str, work: Path) -> Path:
    """The revision's wheel installed (no dependencies) into a folder of its own."""
    source, target = work / f"src-{revision}", work / f"site-{revision}"
    archive = subprocess.run(["git", "archive", revision], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    dist = work / f"dist-{revision}"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)],
                   check=True, capture_output=True)
    wheel = next(dist.glob("supersheet-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    return target


def one_run(site: Path, args: list[str]) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "supersheet", *args], env=env, capture_output=True,
                            cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in (0, 1):
        raise SystemExit(f"exit {result.returncode}: {result.stderr.decode()[:500]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=10)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)   # the command's arguments follow --
    options, args = parser.parse_args(argv[:split]), argv[split + 1:]
    with tempfile.TemporaryDirectory() as folder:
        sites = {rev: install(rev, Path(folder)) for rev in (options.old, options.new)}
        times: dict[str, list[tuple[float, float]]] = {rev: [] for rev in sites}
        for i in range(options.rounds):
            order = (options.old, options.new) if i % 2 == 0 else (options.new, options.old)
            for rev in order:
                times[rev].append(one_run(sites[rev], args))
    print(f"supersheet {' '.join(args)}; {options.rounds} rounds each, interleaved; load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    for rev, runs in times.items():
        wall, cpu = [w for w, _ in runs], [c for _, c in runs]
        print(f"{rev:>12}: wall min {min(wall) * 1000:.0f} ms, median {statistics.median(wall) * 1000:.0f} ms; "
              f"CPU min {min(cpu) * 1000:.0f} ms, median {statistics.median(cpu) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
