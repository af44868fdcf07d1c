"""Cold start of the `supersheet` command at two git revisions, paired and interleaved.

Each revision is built into a wheel and installed into its own folder (as a
user gets it); then `python -m supersheet ARGS` runs in fresh processes,
alternating A B B A ... (bench/paired.py), and the wall and CPU times (min
and median, and the new revision's ratio of medians to the old) are printed
with the load average. Usage:

    .venv/bin/python bench/bench_cli_start.py OLD_REV NEW_REV --rounds 12 -- --help
    .venv/bin/python bench/bench_cli_start.py 8e4fbdc HEAD --rounds 10 -- calc "470.2 GB -> GiB"
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from paired import CHILD_ENV, child, interleave, load_average, table  # noqa: E402


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
        command = [sys.executable, "-m", "supersheet", *args]
        # each revision keeps its own disk cache, as an installation does: the resolved unit names
        # are fingerprinted by the code that resolves them, so one shared folder would have each
        # side discard the other's and import Pint again on alternate runs
        sides = {rev: (lambda site=site, rev=rev: child(
                     command, ok=(0, 1), cwd=tempfile.gettempdir(),
                     env={**CHILD_ENV, "PYTHONPATH": str(site), "SUPERSHEET_CACHE_DIR": str(Path(folder) / f"cache-{rev}")}))
                 for rev, site in sites.items()}
        print(f"supersheet {' '.join(args)}; {options.rounds} rounds each, interleaved; {load_average()}")
        print(table(interleave(sides, options.rounds), baseline=options.old))

if __name__ == "__main__":
    main()
