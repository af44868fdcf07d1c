"""Progress of a long sweep: the engine reports it through a callback, the CLI draws the bar."""
from __future__ import annotations

import io

from supersheet.cli.progress import ProgressBar
from supersheet.engine.scenarios.grid import Grid
from supersheet.engine.scenarios.sweep import iterate_chunks, plans_for
from supersheet.engine.workbook import open_workbook


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_engine_reports_rows_done_and_draws_nothing(write_sheet, capsys):
    sheet = write_sheet("""
        cells:
          n: 1
          twice: = 2 * n
        """)
    workbook = open_workbook(sheet)
    from supersheet.engine.scenarios.axes import cli_axis
    grid = Grid([cli_axis(workbook, "n=1..10")], None)
    seen: list[tuple[int, int]] = []
    plans = plans_for(workbook, grid, None, None)
    frames = list(iterate_chunks(plans, grid, 4, lambda done, total: seen.append((done, total))))
    assert sum(f.height for f in frames) == 10
    assert seen == [(4, 10), (8, 10), (10, 10)]
    assert capsys.readouterr() == ("", "")


def test_the_bar_draws_on_a_terminal_after_its_delay_and_ends_its_line():
    screen = Terminal()
    bar = ProgressBar(stream=screen)
    bar(5, 20)
    bar(20, 20)
    bar.close()
    assert screen.getvalue() == ("\r[#######.......................] 5/20 rows"
                                 "\r[##############################] 20/20 rows\n")
    late = ProgressBar(delay=3600, stream=Terminal())
    late(5, 20)
    late.close()
    assert late.stream.getvalue() == ""          # a quick sweep prints nothing extra


def test_no_bar_into_a_file_or_pipe():
    piped = io.StringIO()
    bar = ProgressBar(stream=piped)
    bar(5, 20)
    bar.close()
    assert not bar.enabled and piped.getvalue() == ""
