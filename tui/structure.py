"""Editing the sheet's structure from the grid: add a cell after the selected
one (in its group), duplicate it, rename it (with its references), delete it,
set its unit, digits, doc and source. Each is one undo step, checked
like any edit and saved through the round-trip writer (editor/cells.py).
A controller the app holds (tui/app.py: `app.structure`)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text

from supersheet.editor.completion import complete_new_cell
from supersheet.editor.document import Document, StructureError
from supersheet.editor.history import Step
from supersheet.editor.importers import Update
from supersheet.loading import shown_path

from .files import FileController
from .host import Editor, in_a_panel
from .imports import ImportController
from .screens import ChoiceScreen, ImportedPropertiesScreen, PromptScreen, PropertiesScreen


LISTED = 6      # importing sheets named in the question; the rest are counted


class StructureController:
    def __init__(self, app: Editor, files: FileController, imports: ImportController) -> None:
        self.app = app       # the document is the app's; nothing here outlives one question
        self.files = files
        self.imports = imports

    def selected_own(self) -> tuple[Document, str] | None:
        """The open document and the selected cell, when it is one of this sheet's own
        (else the status line says why not)."""
        app = self.app
        document, key = app.document, app.grid.current_key
        if document is None or key is None:
            app.set_status("select a cell first")
            return None
        try:
            document.own_line(key)
        except StructureError as e:
            app.set_status(Text(str(e), style="yellow"))
            return None
        return document, key

    def add_cell(self, typed: str = "") -> None:
        """Ask for the new cell's line; one that is refused (the reason in a notice) is asked
        again holding what was typed, never dropped with the dialog."""
        app = self.app
        selected = self.selected_own()
        if selected is None:
            return
        document, after = selected

        def answer(line: str | None) -> None:
            if not line:
                return
            name, _, text = line.partition(":")
            if not app.structural_edit(lambda: document.add_cell(after, name.strip(), text.strip()), name.strip()):
                self.add_cell(line)
        app.push_screen(PromptScreen(
            "Add a cell", f"After {after}, in its group.\nType `name: value` or `name: = formula`, as in "
            "`busbw: = algbw * bus_factor -> GB/s` (Tab completes a name, a unit).\nEnter adds it, Esc cancels.",
            typed, complete=lambda line, cursor: complete_new_cell(document, line, cursor)), answer)

    def duplicate_cell(self) -> None:
        app = self.app
        selected = self.selected_own()
        if selected is None:
            return
        document, key = selected

        def answer(name: str | None) -> None:
            if name:
                app.structural_edit(lambda: document.duplicate_cell(key, name.strip()), name.strip())
        app.push_screen(PromptScreen("Duplicate a cell", f"The name of the copy of {key} (typing replaces it):",
                                     f"{key}_copy", selected=True), answer)

    def rename_cell(self) -> None:
        app = self.app
        selected = self.selected_own()
        if selected is None:
            return
        document, key = selected

        def answer(name: str | None) -> None:
            new = (name or "").strip()
            if new and new != key and app.structural_edit(lambda: document.rename_cell(key, new), new):
                self.offer_importers(key, new)
        app.push_screen(PromptScreen(
            "Rename a cell", f"The new name of {key}. Every formula, expect, check, assumption, sweep, "
            "solve and choice of this sheet that names it follows (one undo step); sheets that "
            "import or extend this one are listed next. Typing replaces the old name.", key, selected=True), answer)

    def offer_importers(self, old: str, new: str) -> None:
        """After a rename: list the other sheets that name the cell and offer to update
        them (saved at once, with this sheet, so that the files agree on disk).

        Finding them reads every sheet of the sheet root (~0.5 s on the library):
        that runs in a worker while the status line says "searching…" and the keys
        typed meanwhile go on to the grid they were typed at; the question comes
        only when there is something to ask (never for a sheet nothing imports)."""
        app = self.app
        document = app.document
        if document is None:
            return
        step = document.last_step      # the rename: the importers' updates join its undo step
        app.set_status(f"renamed {old} to {new} · searching the sheet root for other sheets that name {old}…")

        def show(updates: list[Update]) -> None:
            if app.document is not document or not any(step is s for s in document.history.undo_stack):
                return           # the rename was undone (or another sheet opened) meanwhile: nothing to offer
            if not updates:
                app.set_status(f"renamed {old} to {new} · no other sheet names {old}")
                return
            self.ask_importers(old, new, updates, step)
        app.background.run("importers", lambda: document.importers_of(old, new), show)

    def ask_importers(self, old: str, new: str, updates: list[Update], step: Step | None) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        here = document.path.parent
        listed = "\n".join(f"  {os.path.relpath(u.path, here)} ({u.how})"
                           + ("" if u.after is not None else f": not updatable, {u.problem}")
                           for u in updates[:LISTED])
        if len(updates) > LISTED:      # the answers must stay on a 24-line screen
            listed += f"\n  … and {len(updates) - LISTED} more"
        count = f"{len(updates)} other sheet{'s' if len(updates) != 1 else ''}"
        message = (f"{count} name{'s' if len(updates) == 1 else ''} {old}:\n{listed}\n\nUpdating saves this sheet, "
                   "then rewrites only the lines that name it in each of them. Ctrl+Z undoes the rename in all "
                   "of them (their files are written back at once).")

        def answer(choice: str | None) -> None:
            if choice != "update":
                app.set_status(f"renamed {old} to {new} in this sheet only · {count} still name {old}")
                return
            self.files.save(then=lambda: write_them())

        def write_them() -> None:       # once this sheet is saved: never importers ahead of it
            written, skipped = document.update_importers(updates, step)
            names = ", ".join(p.name for p in written) or "none"
            app.set_status(f"renamed {old} to {new} · saved this sheet and {names}")
            if skipped:
                app.notify("\n".join(skipped), title="not updated", severity="warning", timeout=15)
        app.push_screen(ChoiceScreen(f"Other sheets name {old}", message, [
            ("keep", f"Only this sheet (they keep {old} and report it missing)"),
            ("update", f"Update {'them' if len(updates) != 1 else 'it'} too and save")]), answer)

    def delete_cell(self) -> None:
        app = self.app
        if self.imports.remove_on_import():      # an import's row, or a cell given by a set: entry (tui/imports.py)
            return
        selected = self.selected_own()
        if selected is None:
            return
        document, key = selected
        users = document.users(key)
        expected = document.expectations_of(key)

        def answer(choice: str | None) -> None:
            if choice in ("delete", "delete_expectations"):
                app.structural_edit(lambda: document.delete_cell(
                    key, force=bool(users), expectations_too=choice == "delete_expectations"), None)
        if expected:
            count = f"{len(expected)} expect entr{'y' if len(expected) == 1 else 'ies'}"
            message = (f"{key} is used by {', '.join(users)}.\n\nThe {count} about it "
                       f"({', '.join(e.label for e in expected)}) can go with it; whatever is left naming it "
                       "becomes a diagnostic. Ctrl+Z undoes the deletion, in one step.")
            choices = [("cancel", "Cancel"), ("delete_expectations", f"Delete {key} and the {count} about it"),
                       ("delete", f"Delete {key}, keep the expectations (they become diagnostics)")]
        elif users:
            message = (f"{key} is used by {', '.join(users)}. Deleting it leaves them as diagnostics "
                       "(Ctrl+Z undoes it).")
            choices = [("cancel", "Cancel"), ("delete", f"Delete {key} anyway")]
        else:
            message = f"Nothing uses {key}. Ctrl+Z undoes the deletion."
            choices = [("cancel", "Cancel"), ("delete", f"Delete {key}")]
        app.push_screen(ChoiceScreen(f"Delete {key}?", message, choices), answer)

    def remove_expectation(self) -> None:
        """Del on a diagnostic in F4 that points into an `expect` entry (a stale one that
        names no cell, a failing one): remove that entry. Ctrl+K on a cell: the entries
        about it are listed, to remove one or all. Each removal is one undo step."""
        app = self.app
        document = app.document
        if document is None:
            return
        if in_a_panel(app) and app.focused is not app.diagnostics_panel:
            app.set_status("the diff lists no expect entries: Del removes one on its diagnostic in F4")
            return
        if app.focused is app.diagnostics_panel:
            diagnostic = self.diagnostic_at_cursor()
            if diagnostic is None:
                app.set_status("no diagnostic is selected: ↓ selects one, Del then removes its expect entry")
                return
            entry = document.expectation_at(diagnostic.span)
            if entry is None:
                app.set_status("this diagnostic is not in an expect entry: Del here removes only those")
                return
            self.remove_expectations([entry])
            return
        key = app.grid.current_key
        if key is None:
            app.set_status("select a cell, or a diagnostic of an expect entry in F4, to remove an expectation")
            return
        found = document.expectations_of(key)
        if not found:
            app.set_status(f"no expect entry is about {key}")
            return

        def answer(choice: str | None) -> None:
            if choice == "all":
                self.remove_expectations(found)
            elif choice and choice.startswith("entry"):
                self.remove_expectations([found[int(choice.removeprefix("entry"))]])
        listed = "\n".join(f"  {e.label}" for e in found)
        choices = [("cancel", "Cancel")] + [(f"entry{i}", f"Remove {e.label}") for i, e in enumerate(found)]
        if len(found) > 1:
            choices.append(("all", f"Remove all {len(found)}"))
        app.push_screen(ChoiceScreen(f"Expectations about {key}", f"The expect entries about {key}:\n{listed}\n\n"
                                     "Removing one is one undo step; the rest of the file stays as it is.",
                                     choices), answer)

    def diagnostic_at_cursor(self):
        app = self.app
        panel = app.diagnostics_panel
        if panel.highlighted is None:
            return None
        chosen = panel.chosen.get(panel.get_option_at_index(panel.highlighted).id or "")
        return chosen[0] if chosen is not None else None

    def remove_expectations(self, entries: list) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        if document is not None and app.structural_edit(lambda: document.remove_expectations(entries), None):
            what = entries[0].label if len(entries) == 1 else f"{len(entries)} expect entries"
            app.set_status(f"removed {what} · unsaved · Ctrl+Z brings {'it' if len(entries) == 1 else 'them'} back")

    def edit_properties(self) -> None:
        app = self.app
        if self.imports.import_row() is not None:    # an import's row: its set: entries (tui/imports.py)
            self.imports.import_sets()
            return
        document, key = app.document, app.grid.current_key
        home = document.home_of(key) if document is not None and key is not None else None
        if home is not None and key is not None:
            self.offer_home(key, *home)
            return
        selected = self.selected_own()
        if selected is None:
            return
        document, key = selected

        def answer(values: dict[str, str] | None) -> None:
            if values is not None:
                app.structural_edit(lambda: document.set_properties(key, values), key)
        app.push_screen(PropertiesScreen(key, document.properties(key)), answer)

    def offer_home(self, key: str, path: Path, name: str) -> None:
        """Ctrl+E on a cell of another sheet: what this sheet may change of it, written
        here as one undo step — an imported cell's value (a `set:` of its import; its
        unit, digits, doc and source are shown read-only), an inherited cell whole (its
        own cell of that name, which replaces the base's) — and the offer to open that
        sheet at the cell. Nothing is ever written to that file from here."""
        app = self.app
        document = app.document
        if document is None:
            return
        shown = shown_path(path)           # a library file by its name (supersheet:…), not where it is installed
        if shown == str(path):
            shown = os.path.relpath(path, document.path.parent)
        where = f"{shown} (as {name})"
        properties = document.home_properties(key)
        reason = document.editable(key)

        inherited = not document.cell(key).scope.prefix

        def answer(choice) -> None:
            if isinstance(choice, tuple):
                choice, values = choice
                if choice == "set":
                    self.override(key, values, shown, inherited)
                    return
            if choice == "open":
                self.open_home(path, name, shown)
            else:
                app.set_status(f"{key}: its properties are in {shown}; nothing changed")
        if reason is None:
            app.push_screen(ImportedPropertiesScreen(key, shown, name, properties, document.raw_text(key),
                                                     document.override_how(key), inherited), answer)
            return
        listed = "\n".join(f"  {prop:<8}{value or '(none)'}" for prop, value in properties.items())
        message = (f"{key} is written in {where}; there:\n{listed}\n\nThis sheet can change none of it: "
                   f"{reason}.\n\nOpen {shown} at {name} and edit them there? (Unsaved edits here are "
                   "asked about first.)")
        app.push_screen(ChoiceScreen(f"{key}'s properties are in {path.name}", message, [
            ("cancel", "Stay here"), ("open", f"Open {shown} at {name}")]), answer)

    def override(self, key: str, values: dict[str, str], shown: str, inherited: bool) -> None:
        """What the dialog of a cell of another sheet answered, written here: an imported
        cell's value as a `set:`, an inherited cell whole as this sheet's own."""
        app = self.app
        document = app.document
        if document is None:
            return
        value = values.pop("value").strip()
        if value == document.raw_text(key) and (not inherited or all(
                values[p].strip() == v for p, v in document.home_properties(key).items())):
            app.set_status(f"{key}: unchanged; nothing written (it is written in {shown})")
            return
        if inherited:
            app.structural_edit(lambda: document.override_inherited(key, value, values), None)
        else:
            app.structural_edit(lambda: document.apply(key, value), None)

    def open_home(self, path: Path, name: str, shown: str) -> None:
        """Open the sheet a cell is written in, at the cell, with its properties dialog."""
        app = self.app
        def there() -> None:
            if app.document is None or not app.document.has_cell(name):
                app.set_status(Text(f"{shown} has no cell {name}", style="yellow"))
                return
            app.go_to(name)
            app.set_status(f"opened {shown} at {name} · Ctrl+P → Open sheet goes back")
            self.edit_properties()
        self.files.open_sheet(path, then=there)
