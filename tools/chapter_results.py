"""Count the chapter's results that the library reproduces by formula.

Every `expect` of a chapter sheet (a sheet whose title cites "Sec. 6": the
scenario sheets of the chapter "Supernodes" and the model and hardware
sheets they read) asserts one of the chapter's numbers. Each assertion is
classified by the cell it checks:

* **by formula** - a formula cell computed from the sheet's inputs (a sweep
  row, a goal seek's or a choice's answer, a cell of an imported sheet count
  the same way);
* **typed in** - an input, or a formula that only names another cell which is
  an input (`= lat.allreduce_16rank_16kib`): the number is the sheet's input,
  checked against the book, not reproduced. Each must say where it comes from
  (`source:` or `doc:` on the input); one without is listed as unlabelled.

    python tools/chapter_results.py            # the counts
    python tools/chapter_results.py --list     # and every typed-in result, with its label

Exit status 1 when a typed-in result has no label. Nothing here evaluates a
sheet except through the engine's own `test` (no eval)."""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from supersheet.engine.formula import ast as A
from supersheet.engine.verify.testing import test_workbook
from supersheet.engine.workbook import Workbook, open_workbook

ROOT = Path(__file__).resolve().parents[1] / "sheets"
CHAPTER = re.compile(r"\bSec\. 6\.")


@dataclass(frozen=True)
class Result:
    sheet: str
    target: str        # as `supersheet test` names it: cell, sweep.cell[i], solve.cell
    cell: str          # the cell whose value is asserted
    by_formula: bool
    label: str | None  # for a typed-in result: the input's source or doc


def chapter_sheets() -> list[Path]:
    out = []
    for path in sorted(ROOT.rglob("*.yaml")):
        title = next((line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("title:")), "")
        if CHAPTER.search(title):
            out.append(path)
    return out


def asserted_cell(workbook: Workbook, target: str) -> tuple[str, bool]:
    """The cell an outcome checks, and whether it is found by a goal seek or a choice
    (the answer of a search over the sheet's formulas, not an input)."""
    head, _, rest = target.partition(".")
    root = workbook.model.root
    searched = set(root.solve or {}) | set(root.choose or {}) if root is not None else set()
    if rest and head in searched:
        return rest, True
    if rest and workbook.key_for(target) is None:          # sweep.cell[i]
        return re.sub(r"\[\d+\]$", "", rest), False
    return re.sub(r"\[\d+\]$", "", target), False


def origin(workbook: Workbook, key: str) -> str:
    """Follow formulas that only name another cell to the cell that holds the value."""
    seen = set()
    while key not in seen:
        seen.add(key)
        cell = workbook.model.cells.get(key)
        if cell is None or cell.kind != "formula" or cell.formula is None or not isinstance(cell.formula.expr, A.Name):
            return key
        target = workbook.checked.bindings.get(cell.formula.expr)
        if target is None:
            return key
        key = target
    return key


def results(path: Path) -> list[Result]:
    workbook = open_workbook(path)
    report = test_workbook(workbook)
    out = []
    for outcome in report.outcomes:
        name, solved = asserted_cell(workbook, outcome.target)
        key = workbook.key_for(name) or name
        held = origin(workbook, key)
        cell = workbook.model.cells.get(held)
        typed = not solved and cell is not None and cell.kind == "input"
        label = None
        if typed:
            spec = getattr(cell, "spec", None)
            label = getattr(spec, "source", None) or getattr(spec, "doc", None) or _comment(path, held)
        out.append(Result(str(path.relative_to(ROOT)), outcome.target, held, not typed, label))
    return out


def _comment(path: Path, key: str) -> str | None:
    """A trailing `# …` on the input's own line (short inputs are labelled so)."""
    name = key.split(".")[-1]
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(rf"\s+{re.escape(name)}:", line) and "#" in line:
            return line.split("#", 1)[1].strip()
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list every typed-in result with its label")
    args = parser.parse_args(argv)
    found = [r for path in chapter_sheets() for r in results(path)]
    by_formula = [r for r in found if r.by_formula]
    typed = [r for r in found if not r.by_formula]
    unlabelled = [r for r in typed if not r.label]
    sheets = len({r.sheet for r in found})
    print(f"{len(found)} assertions of the chapter's numbers in {sheets} sheets: "
          f"{len(by_formula)} reproduced by formula, {len(typed)} typed in "
          f"({len(typed) - len(unlabelled)} labelled with their source, {len(unlabelled)} unlabelled)")
    if args.list:
        for r in typed:
            print(f"  typed in  {r.sheet}  {r.target}  <- {r.cell}: {r.label or 'UNLABELLED'}")
    for r in unlabelled:
        print(f"unlabelled: {r.sheet} {r.target} <- {r.cell}", file=sys.stderr)
    return 1 if unlabelled else 0


if __name__ == "__main__":
    sys.exit(main())
