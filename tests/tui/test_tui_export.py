"""Export the sweep table from the editor (issue 31): the rows the sweep view
shows, on the current (unsaved) values, through the CLI's writers — the same
CSV `supersheet sweep -o` writes, Parquet with each column's unit."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from textual.widgets import Static

from supersheet.editor.document import Document
from supersheet.editor.sweep import ExportError, export_sweep
from supersheet.tui.app import SupersheetApp

SIZE = (120, 36)


def test_the_csv_is_the_cli_s(example: Path, tmp_path: Path) -> None:
    document = Document(example)
    ours = tmp_path / "ours.csv"
    assert export_sweep(document.workbook, ours, name="per_card_table") == 2
    cli = tmp_path / "cli.csv"
    supersheet = Path(sys.executable).with_name("supersheet")
    subprocess.run([str(supersheet), "sweep", str(example), "per_card_table", "-o", str(cli),
                    "--allow-path", str(example.parents[1])], check=True, capture_output=True)
    assert ours.read_text() == cli.read_text()
    with pytest.raises(ExportError, match=r"\.csv or \.parquet"):
        export_sweep(document.workbook, tmp_path / "x.xlsx", name="per_card_table")


async def test_ctrl_x_writes_the_unsaved_values(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("workspace")
        await pilot.press(*"3", "enter", "f3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.sweep.choice = "per_card_table"
        await pilot.press("ctrl+x")
        await pilot.pause()
        await pilot.press(*"cards.parquet", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "wrote 2 rows of per_card_table" in str(app.query_one("#status", Static).render())
    table = pq.read_table(example.parent / "cards.parquet")
    assert table.column("workspace [GiB]").to_pylist() == [3, 3]          # the unsaved edit
    units = json.loads(table.schema.metadata[b"supersheet.units"])
    assert units["total_per_card [GB]"] == "GB"


async def test_the_sweep_table_sorts_and_hides_columns(example: Path) -> None:
    """S sorts by the column under the cursor (again: the other way), H hides it, A shows all;
    they hold through the rerun after an edit."""
    from textual.widgets import DataTable
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("context")
        app.sweeping.show("experiment_6_1a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one("#sweep-table", DataTable)
        table.focus()
        await pilot.pause()
        first = str(table.ordered_columns[0].key.value)
        values = lambda: [table.get_row_at(i)[0] for i in range(table.row_count)]    # noqa: E731
        ascending = values()
        await pilot.press("s", "s")
        await pilot.pause()
        assert values() == list(reversed(ascending)) and app.sweep.sort == (first, True)
        await pilot.press("h")
        await pilot.pause()
        assert first not in [str(c.key.value) for c in table.ordered_columns]
        assert "1 column hidden" in str(app.query_one("#sweep-status", Static).render())
        app.sweep.pending()
        app.sweeping.rerun()                               # (as after an edit)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert first not in [str(c.key.value) for c in table.ordered_columns]
        table.focus()
        await pilot.press("a")
        await pilot.pause()
        assert str(table.ordered_columns[0].key.value) == first and values() == list(reversed(ascending))


async def test_a_device_or_a_folder_is_refused_before_the_question(example: Path) -> None:
    """A target no writer would write (a link to /dev/null, a folder, a name of no format) is
    refused at once, saying why: it was first offered "exists. Replace it with the table?",
    and refused only after the user said yes."""
    from supersheet.tui.screens import ChoiceScreen, PromptScreen
    (example.parent / "null.csv").symlink_to("/dev/null")
    (example.parent / "folder.csv").mkdir()
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.sweeping.show("per_card_table")
        await app.workers.wait_for_complete()
        await pilot.pause()
        for name, why in [("null.csv", "it is a character device"), ("folder.csv", "it is a directory"),
                          ("/dev/null", "null: the table is written as .csv or .parquet")]:
            await pilot.press("ctrl+x")
            await pilot.pause()
            assert isinstance(app.screen, PromptScreen)
            await pilot.press(*name, "enter")
            await pilot.pause()
            assert not isinstance(app.screen, (ChoiceScreen, PromptScreen)), name
            said = str(app.query_one("#status", Static).render())
            assert said.startswith("not exported") and why in said, (name, said)
    assert (example.parent / "null.csv").is_symlink() and Path("/dev/null").is_char_device()
    assert (example.parent / "folder.csv").is_dir() and not any((example.parent / "folder.csv").iterdir())
