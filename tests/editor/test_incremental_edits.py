"""The editor's incremental edit path gives exactly what a fresh load gives.

`Document.apply` changes an input's literal in place and re-evaluates only its
dependents, over tables that are patched, not copied (engine/base/patched.py);
a formula is re-checked and only the edited cell's dependents re-evaluated.
After every step of random edit sequences (literals in other units, zero
divisors that make error values, formulas that read other cells, undo, redo)
each value, the diagnostics and the text must be those of the same text
opened afresh."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from supersheet.editor.document import Document
from supersheet.editor.results import same

UNITS = ["GB", "GiB", "MB", ""]


def sheet_text(inputs: int, formulas: int, seed: int) -> str:
    pick = random.Random(seed)
    lines = ["title: Random edits", "cells:"]
    names = []
    for i in range(inputs):
        unit = UNITS[i % 3]
        lines.append(f"  in{i}: {i % 7 + 1} {unit}")
        names.append(f"in{i}")
    lines.append(f"  d: {3}")          # a divisor: 0 makes #DIV/0 downstream
    for i in range(formulas):
        a, b = pick.sample(names, 2)
        form = ["= {a} + {b} -> GB", "= max({a}, {b}) / d", "= {a} * 2 + {b}"][i % 3]
        lines.append(f"  f{i}: " + form.format(a=a, b=b))
        names.append(f"f{i}")
    lines += ["checks:", f"  small: f0 < 1000 GB", f"  last: {names[-1]} < 10 TB"]
    return "\n".join(lines) + "\n"


def fresh(tmp: Path, text: str) -> Document:
    path = tmp / "fresh.yaml"
    path.write_text(text, encoding="utf-8")
    return Document(path)


def problems(document: Document) -> list[tuple[str, str]]:
    return sorted((d.code, d.message) for d in document.diagnostics)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edit_sequences_match_a_fresh_load(tmp_path: Path, seed: int) -> None:
    inputs, formulas = 12, 120
    path = tmp_path / "sheet.yaml"
    path.write_text(sheet_text(inputs, formulas, seed), encoding="utf-8")
    document = Document(path)
    pick = random.Random(seed)
    compared = applied = 0
    kinds: set[str] = set()
    kind = ""
    for step in range(70):
        roll = pick.random()
        if kind == "undo" and roll < 0.5:
            kind = "redo"            # (a new edit would drop the step to redo)
        elif roll < 0.5:
            key = pick.choice([f"in{i}" for i in range(inputs)])
            text = f"{pick.randint(1, 900)} {pick.choice(['GB', 'GiB', 'MB', 'TB'])}"
            kind = "literal"
        elif roll < 0.6:
            key, text, kind = "d", pick.choice(["0", "2", "5"]), "divisor"
        elif roll < 0.75:
            i = pick.randrange(1, formulas)
            a, b = pick.sample([f"in{j}" for j in range(inputs)] + [f"f{j}" for j in range(i)], 2)
            key, text, kind = f"f{i}", f"= {a} + {b} -> GB", "formula"
        else:
            kind = "undo"
        if kind == "undo":
            done = document.undo()
        elif kind == "redo":
            done = document.redo()
        else:
            done = document.apply(key, text)
            assert done.ok, (step, key, text, done.message)
        if done is None:
            continue
        applied += 1
        kinds.add(kind)
        reference = fresh(tmp_path, document.text())
        assert list(document.scenario.values) == list(reference.scenario.values)
        for cell, value in reference.scenario.values.items():
            assert same(document.scenario.values[cell], value), (step, kind, cell, document.scenario.values[cell], value)
            compared += 1
        assert problems(document) == problems(reference), step
    assert kinds == {"literal", "divisor", "formula", "undo", "redo"}, kinds
    assert applied >= 50 and compared >= applied * (inputs + formulas), (applied, compared)
