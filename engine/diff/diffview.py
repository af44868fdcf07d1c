"""Rendering sheet diffs: text (coloured on a terminal), Markdown for a
pull-request comment, JSON for tools."""
from __future__ import annotations

import json
from dataclasses import asdict

from supersheet.engine.base.diagnostics import SourceCache, render
from supersheet.engine.diff.diff import Change, SheetDiff

DIFF_SCHEMA = "supersheet-diff/1"   # the JSON schema of `diff --format json` (supersheet/schemas/)

SECTIONS = (
    ("results", "results changed"),
    ("checks", "checks flipped"),
    ("expectations", "expectations that now fail"),
    ("inputs", "inputs changed"),
    ("formulas", "formulas changed"),
    ("renamed", "cells renamed"),
    ("imports", "imports changed"),
    ("added", "cells added"),
    ("removed", "cells removed"),
)


def percent_text(change: Change) -> str:
    if change.relative is None:
        return ""
    if change.relative == float("inf"):
        return "new"
    sign = "+" if change.relative >= 0 else ""
    return f"{sign}{change.relative * 100:.3g}%"


def _arrow(change: Change) -> str:
    if change.relative is None:
        return "→"
    return "↑" if change.relative > 0 else ("↓" if change.relative < 0 else "→")


def _line(section: str, change: Change) -> str:
    if section in ("added",):
        return f"{change.name} = {change.new}"
    if section in ("removed",):
        return f"{change.name} (was {change.old})"
    if section == "renamed":
        return change.name
    if section == "imports":
        return f"{change.name}: {change.note}" + (f" ({change.old} → {change.new})" if change.old and change.new
                                                    else f" ({change.old or change.new})")
    if section == "formulas":
        return f"{change.name}: {change.old}  →  {change.new}"
    if section == "expectations":
        return f"{change.name}: {change.note}, got {change.new} ({change.old})"
    text = f"{change.name}: {change.old} → {change.new}"
    if change.delta:
        text += f"   {arrowed(change)} ({percent_text(change)})"
    return text


def arrowed(change: Change) -> str:
    """`↓ 36 GB`: the arrow gives the direction, so the size follows without its sign."""
    delta = change.delta or ""
    return f"{_arrow(change)} {delta[1:] if delta.startswith('-') else delta}"


def render_text(diffs: list[SheetDiff], color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    out: list[str] = [f"note: {note}" for note in _notes(diffs)]
    for diff in diffs:
        out.append(paint(f"== {diff.name}  ({diff.old_label} → {diff.new_label})", "1"))
        if diff.status != "compared" and not (diff.old_problems or diff.new_problems):
            cells = diff.added if diff.status == "added" else diff.removed
            out.append(paint(f"  sheet {diff.status} ({len(cells)} cell{'s' if len(cells) != 1 else ''})",
                             "33" if diff.status == "added" else "31"))
            out.extend(f"    {_line(diff.status, c)}" for c in cells)
            out.append("")
            continue
        if diff.old_problems or diff.new_problems:
            sources = SourceCache()
            for label, problems in ((diff.old_label, diff.old_problems), (diff.new_label, diff.new_problems)):
                if problems:
                    out.append(paint(f"  {label} does not check:", "31"))
                    out.extend("    " + line for d in problems for line in render(d, sources).splitlines())
            out.append("")
            continue
        for attr, title in SECTIONS:
            changes: list[Change] = getattr(diff, attr)
            if not changes:
                continue
            out.append(f"  {title}:")
            for change in changes:
                line = _line(attr, change)
                if attr in ("results", "inputs") and change.relative is not None:
                    line = paint(line, "32" if change.relative < 0 else "33")
                elif attr in ("checks", "expectations", "removed"):
                    line = paint(line, "31")
                out.append("    " + line)
        out.append(f"  {diff.unchanged} cell{'s' if diff.unchanged != 1 else ''} unchanged")
        out.append("")
    if not diffs:
        out.append("no sheets to compare")
    return "\n".join(out).rstrip() + "\n"


def _notes(diffs: list[SheetDiff]) -> list[str]:
    return list(dict.fromkeys(d.note for d in diffs if d.note))


def render_markdown(diffs: list[SheetDiff]) -> str:
    out: list[str] = [f"> **Note:** {note}\n" for note in _notes(diffs)]
    for diff in diffs:
        out.append(f"### `{diff.name}` ({diff.old_label} → {diff.new_label})")
        out.append("")
        if diff.status != "compared" and not (diff.old_problems or diff.new_problems):
            cells = diff.added if diff.status == "added" else diff.removed
            out.append(f"**sheet {diff.status}** ({len(cells)} cells)")
            out.append("")
            continue
        if diff.old_problems or diff.new_problems:
            for label, problems in ((diff.old_label, diff.old_problems), (diff.new_label, diff.new_problems)):
                for d in problems:
                    out.append(f"- **{label} does not check:** `{d.headline()}`")
            out.append("")
            continue
        if diff.results or diff.inputs:
            out.append("| cell | old | new | Δ | Δ% |")
            out.append("|---|---:|---:|---:|---:|")
            for kind, changes in (("input", diff.inputs), ("result", diff.results)):
                for c in changes:
                    label = f"{c.name} *(input)*" if kind == "input" else c.name
                    out.append(f"| {label} | {c.old} | {c.new} | {c.delta or ''} | {percent_text(c)} |")
            out.append("")
        for attr, title in SECTIONS[1:]:
            if attr == "inputs":
                continue
            changes = getattr(diff, attr)
            if changes:
                out.append(f"**{title}:**")
                out.extend("- " + _line(attr, c).replace("|", "\\|") for c in changes)
                out.append("")
        out.append(f"{diff.unchanged} cells unchanged.")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_json(diffs: list[SheetDiff]) -> str:
    def sheet(diff: SheetDiff) -> dict:
        data = asdict(diff)
        data["old_problems"] = [d.headline() for d in diff.old_problems]
        data["new_problems"] = [d.headline() for d in diff.new_problems]
        for attr, _ in SECTIONS:
            for item in data[attr]:
                if item["relative"] is not None and item["relative"] in (float("inf"), float("-inf")):
                    item["relative"] = None
        data["differs"] = diff.differs
        data["invalid"] = diff.invalid
        return data
    return json.dumps({"schema": DIFF_SCHEMA, "sheets": [sheet(d) for d in diffs]}, indent=2, ensure_ascii=False) + "\n"
