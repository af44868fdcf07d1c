"""What the checker's result being immutable costs (issue 17). Prints figures; not a test.

The result's per-node tables are read-only views (MappingProxyType) of the
checker's dicts. Every compiled or one-row-evaluated node looks a table up, so
the cost is there: the same result is compiled and evaluated with its tables
as the views (as shipped) and as plain dicts (what a mutable result had),
paired and interleaved on a generated chain sheet. Also timed: an editor's
in-place edit of an input (`with_literal`: a copy of the tables without the
old literal's nodes) against the re-evaluation that follows it.

Run: .venv/bin/python bench/bench_checked.py [--cells 20000] [--rounds 15]
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from generate import write_chain_sheet  # noqa: E402
from paired import in_process, interleave, load_average, table  # noqa: E402

from supersheet.engine.base.limits import set_limits  # noqa: E402
from supersheet.engine.check.check import with_literal  # noqa: E402
from supersheet.engine.compile.evaluate import compile_program, evaluate, reevaluate  # noqa: E402
from supersheet.engine.formula.parser import parse_formula  # noqa: E402
from supersheet.engine.workbook import open_workbook, parse_literal_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    set_limits(max_file_size=10**8, max_cells=10**6, max_array_elements=10**8)   # as --max-cells would
    with tempfile.TemporaryDirectory() as folder:
        workbook = open_workbook(write_chain_sheet(Path(folder), args.cells))
    if not workbook.ok:
        raise SystemExit(workbook.diagnostics[0].headline())
    frozen = workbook.checked
    plain = dataclasses.replace(frozen, bindings=dict(frozen.bindings), node_types=dict(frozen.node_types),
                                constants=dict(frozen.constants))

    def run(checked):
        def once():
            return in_process(lambda: (compile_program(checked), evaluate(checked)))
        return once

    print(f"chain sheet of {args.cells:,} cells, {len(frozen.node_types):,} typed nodes; {load_average()}")
    print("compile_program + evaluate (one-row path) of the same result:")
    print(table(interleave({"read-only tables (MappingProxyType)": run(frozen), "plain dicts": run(plain)},
                           args.rounds), baseline="plain dicts"))

    key = next(k for k, c in workbook.model.cells.items() if c.kind == "input")
    scenario = workbook.evaluate()
    text = workbook.model.cells[key].spec.text.strip()   # the same literal, parsed anew: the same work as another
    model = workbook.model.with_text(key, text, parse_formula(text))
    literal = parse_literal_for(workbook, key, text)

    def edit():
        return in_process(lambda: with_literal(frozen, model, key))

    def recompute():
        return in_process(lambda: reevaluate(scenario, {key: literal}))

    print(f"an editor's in-place edit of input {key!r}:")
    print(table(interleave({"with_literal (new result)": edit, "reevaluate (dependents)": recompute}, args.rounds)))
    print(load_average())


if __name__ == "__main__":
    main()
