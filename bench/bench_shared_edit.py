"""An edit of a shared instance's cell in the editor's document (editor/shared.py: the
imported file is edited in the session and the open sheet rebuilt from the texts) beside an
ordinary input edit of the same sheet, interleaved ABAB, CPU and wall, min and median:

    .venv/bin/python bench/bench_shared_edit.py --edits 30

On 6.5.3 (TP16 in one NVLink domain), whose `lat` is shared with its TP8 comparator: the
shared edit is `lat.nvlink_latency`, the ordinary one the sheet's first numeric input of its
own (printed). Each edit toggles between two values."""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from paired import load_average  # noqa: E402

from supersheet.editor.document import Document  # noqa: E402

SHEET = "supernodes/6.5.3-tp16-nvlink-domain.yaml"
SHARED = ("lat.nvlink_latency", ["0.65 us", "0.822 us"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=30)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp()) / "sheets"
    shutil.copytree(REPO / "sheets", folder)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)   # the copy is its own project
    document = Document(folder / SHEET)
    own = next(key for key, cell in document.workbook.model.cells.items()
               if "." not in key and cell.kind == "input" and document.raw_text(key)[:1].isdigit())
    base = document.raw_text(own)
    cases = {f"shared instance's cell {SHARED[0]}": (SHARED[0], SHARED[1]),
             f"the sheet's own input {own}": (own, [base, base.replace(base.split()[0], str(2 * float(base.split()[0])), 1)])}
    print(f"{SHEET}: {len(document.workbook.model.cells)} cells; {args.edits} edits each, interleaved; "
          f"{load_average()}")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for i in range(args.edits):
        for name, (key, values) in cases.items():
            cpu, wall = time.process_time(), time.perf_counter()
            result = document.apply(key, values[(i + 1) % 2])
            times[name].append((time.process_time() - cpu, time.perf_counter() - wall))
            assert result.ok, result.message
    print(f"{'(ms)':44s} {'CPU min':>8s} {'CPU med':>8s} {'wall min':>9s} {'wall med':>9s}")
    for name, pairs in times.items():
        cpu, wall = [c * 1e3 for c, _ in pairs], [w * 1e3 for _, w in pairs]
        print(f"{name:44s} {min(cpu):8.2f} {statistics.median(cpu):8.2f} {min(wall):9.2f} {statistics.median(wall):9.2f}")
    print(f"{load_average()} (at the end)")


if __name__ == "__main__":
    main()
