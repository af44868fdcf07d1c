"""Two source trees of supersheet on the same work: whether a change made the
engine slower. Each side is a fresh process per run (load + check + evaluate
of a generated chain or fan-in, as bench_scaling.py), the sides interleaved
(A B B A …), min and median of wall and CPU, the load average printed.

A tree is a folder laid out as the installed package (`supersheet/` with
`engine/`, `units/` … inside it); `--tree` makes one from a git revision:

    .venv/bin/python bench/bench_trees.py main HEAD [--cells 20000] [--shape chain|fan-in|dag] [--rounds 5] [--run]

`--run`: the whole command `supersheet run` of the sheet instead (as bench_scaling.py's
`--run`: start-up, load, check, evaluate, render), the process exiting as the program does.

Each revision is exported with `git archive` into a temporary folder and
imported from there (the editable install of the working tree is bypassed:
the child runs outside the repository with the tree first on PYTHONPATH).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_chain_sheet, write_fanin_sheet, write_random_dag_sheet  # noqa: E402
from paired import CHILD_ENV, child, interleave, load_average, table  # noqa: E402

FOLDERS = ("engine", "cli", "editor", "units", "tui", "sheets")   # pyproject.toml's package-dir
WORK = ("import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"
        "from supersheet.engine.workbook import open_workbook\nfrom supersheet.engine.base.limits import set_limits\n"
        "set_limits(max_file_size=10**8, max_cells=10**6, max_yaml_nodes=10**7)\n"
        "w = open_workbook(sys.argv[1])\nassert w.ok, w.diagnostics[:1]\nw.evaluate()\n")
# the program `supersheet run SHEET` with the load limits raised (bench_scaling.py's --run), stdout discarded
RUN = ("import os, sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"
       "from supersheet.cli.main import main\nsys.stdout = open(os.devnull, 'w')\n"
       "sys.argv = ['supersheet', 'run', sys.argv[1], '--max-cells', '10000000', '--max-file-size', '100000000',"
       " '--max-yaml-nodes', '10000000']\nsys.exit(main())\n")
SHAPES = {"chain": write_chain_sheet, "fan-in": write_fanin_sheet, "dag": write_random_dag_sheet}


def export(revision: str, folder: Path) -> Path:
    """`revision` of the repository as an importable package tree under `folder`."""
    source = folder / "source"
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=HERE.parent, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    package = folder / "site" / "supersheet"
    package.parent.mkdir()
    package.symlink_to(source / "supersheet", target_is_directory=True)
    for name in FOLDERS:
        if not (source / "supersheet" / name).exists():
            (source / "supersheet" / name).symlink_to(source / name, target_is_directory=True)
    return folder / "site"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs=2, help="two git revisions (e.g. main HEAD)")
    parser.add_argument("--cells", type=int, default=20000)
    parser.add_argument("--shape", choices=tuple(SHAPES), default="chain")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--run", action="store_true", help="the whole `supersheet run` command")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    sheet = SHAPES[args.shape](folder, args.cells)
    code = RUN if args.run else WORK
    sides = {}
    for i, revision in enumerate(args.revisions):
        site = export(revision, folder / f"tree{i}")
        env = {**CHILD_ENV, "PYTHONPATH": str(site)}
        sides[f"{revision}: {args.shape} {args.cells}"] = (
            lambda env=env: child([sys.executable, "-c", code, str(sheet)], cwd=folder, env=env))
    what = "supersheet run" if args.run else "load + check + evaluate"
    print(f"{what}, fresh process per run, {args.rounds} rounds interleaved; {load_average()}")
    print(table(interleave(sides, args.rounds), baseline=next(iter(sides)), memory=True))
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
