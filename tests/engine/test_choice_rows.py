"""A choice's rows are typed: what a row shows is `values`; the objective in base units
and where the row comes from (`plan`, `index`) are fields, not magic `__` keys."""
from __future__ import annotations


from supersheet.engine.scenarios.choice_tally import ChoiceRow
from supersheet.engine.scenarios.choice import choice_entry
from supersheet.engine.workbook import open_workbook
from repo_paths import REPO

PARTITION = REPO / "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml"


def test_a_row_shows_only_its_columns_and_rebuilds_its_own_scenario():
    workbook = open_workbook(PARTITION)
    choice, _ = choice_entry(workbook, "four_sessions_128k_130ms")
    rows = choice.ranked + choice.excluded
    assert rows and all(isinstance(r, ChoiceRow) for r in rows)
    assert not [k for r in rows for k in r.values if k.startswith("__")]
    assert sorted(r.index for r in rows) == [0, 1, 2, 3] and {r.plan for r in rows} == {0}
    answer = choice.answer
    assert answer is not None and answer.values["tp"] == 2
    scenario = choice.scenario_of(answer)     # the row's full scenario, from plan and index
    assert scenario.values["tp"] == 2.0
    assert scenario.values["cost_per_on_time"] == answer.objective   # base units, as ranked
    assert [r.objective for r in choice.ranked] == sorted(r.objective for r in choice.ranked)
