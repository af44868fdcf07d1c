"""Go to definition and Back (issue 31): F12 opens the sheet an imported cell (or
the one imported cell a formula names) is written in, at that cell; Ctrl+B goes
back through the stack of sheets to the sheet and cell it came from."""
from __future__ import annotations

from pathlib import Path

from supersheet.tui.app import SupersheetApp

SIZE = (120, 36)


async def test_f12_goes_to_the_definition_and_ctrl_b_comes_back(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        app.go_to("capacity")                        # = hgx.hbm_capacity: one cell of another sheet
        await pilot.press("f12")
        await pilot.pause()
        assert app.document.path.name == "hgx-h100.yaml" and app.grid.current_key == "hbm_capacity"
        assert app.definition.sheet_stack == [(example, "capacity")]
        await pilot.press("f12")                     # = gpu.hbm_capacity: one level deeper, the card
        await pilot.pause()
        assert app.document.path.name == "h100-sxm.yaml" and app.grid.current_key == "hbm_capacity"
        assert [(p.name, k) for p, k in app.definition.sheet_stack] == [(example.name, "capacity"),
                                                             ("hgx-h100.yaml", "hbm_capacity")]
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert app.document.path.name == "hgx-h100.yaml" and app.grid.current_key == "hbm_capacity"
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert app.document.path == example and app.grid.current_key == "capacity" and app.definition.sheet_stack == []
        await pilot.press("ctrl+b")
        assert app.document.path == example
        app.go_to("context")                         # written here: nowhere to go
        await pilot.press("f12")
        await pilot.pause()
        assert app.document.path == example
