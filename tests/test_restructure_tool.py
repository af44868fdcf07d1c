"""tools/restructure.py, which brings a branch started before the engine's move
into stage folders across it: every module it maps to exists, and an import of a
module deleted since the move is left alone and reported with its replacement."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from repo_paths import REPO



@pytest.fixture(scope="module")
def restructure():
    spec = importlib.util.spec_from_file_location("restructure", REPO / "tools" / "restructure.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["restructure"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["restructure"]


def test_every_module_it_maps_to_exists(restructure) -> None:
    missing = [f"{old} -> {new}" for old, new in restructure.NEW.items()
               if not (REPO / restructure.path_of(new)).exists()]
    assert missing == []


@pytest.mark.parametrize("line, flat", [
    ("from .rawtext import raw_text", True),
    ("from engine.rawtext import raw_text", False),
    ("from engine import rawtext", False),
    ("    from . import rawtext", True),
])
def test_an_import_of_a_deleted_module_is_kept_and_reported(restructure, line: str, flat: bool) -> None:
    assert restructure.rewrite_line(line, flat) == line
    assert restructure.gone_import(line, flat) == "rawtext"


def test_a_moved_module_is_still_rewritten(restructure) -> None:
    assert restructure.rewrite_line("from .positions import Positions", True) == \
        "from .positions import Positions"       # not of the flat layout: left alone
    assert restructure.rewrite_line("from .sweep import run_sweep", True) == \
        "from supersheet.engine.scenarios.sweep import run_sweep"
    assert restructure.gone_import("from .sweep import run_sweep", True) is None
