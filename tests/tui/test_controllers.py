"""The editor's app is composed of controllers it holds (issue 32 item 4), not of mixins:
each controller declares in its `__init__` all the state it owns, and keeps no other."""
from __future__ import annotations

from pathlib import Path

from test_tui_app import SIZE, edit, settled
from textual.app import App

from supersheet.tui.app import SupersheetApp

CONTROLLERS = ("background", "recovery", "sampling", "sweeping", "panels", "files", "completion", "keys",
               "imports", "structure", "definition")


def test_the_app_has_no_mixins() -> None:
    ours = [c for c in SupersheetApp.__mro__[1:] if c.__module__.startswith("supersheet")]
    assert ours == [] and issubclass(SupersheetApp, App)


async def test_each_controller_keeps_only_the_state_it_declares(example: Path) -> None:
    app = SupersheetApp(example, watch_seconds=0)
    declared = {name: set(vars(getattr(app, name))) for name in CONTROLLERS}
    assert all(declared.values()) and all("app" in names for name, names in declared.items() if name != "background")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        app.sweeping.show("experiment_6_1a")       # the sweep view, the diff, F8, an edit, undo, the palette's paths
        app.action_toggle_diff()
        app.action_next_problem()
        await pilot.press("/", "k", "v", "escape")
        await edit(pilot, "context", "32768 token")
        app.action_undo()
        app.files.sheet_paths()
        await settled(pilot)
        assert app.panels.baselines is not None and app.sweep.display and app.diff_view.display
        for name in CONTROLLERS:
            assert set(vars(getattr(app, name))) == declared[name], name
