"""Editing the sheet's structure from the grid: add a cell after the selected
one (in its group), duplicate it, rename it (with its references), delete it,
set its unit, digits, doc and source. Each is one undo step, checked
like any edit and saved through the round-trip writer (editor/cells.py).
A mixin of the app (tui/app.py)."""
from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text

from supersheet.editor.document import EditResult, StructureError

from .screens import ChoiceScreen, ImportedPropertiesScreen, PromptScreen, PropertiesScreen
from supersheet.loading import shown_path


LISTED = 6      # importing sheets named in the question; the rest are counted


class StructureActions:
    """Mixed into SupersheetApp."""

    def _selected_own(self) -> str | None:
        document, key = self.document, self.grid.current_key
        if document is None or key is None:
            self.set_status("select a cell first")
            return None
        try:
            document.own_line(key)
        except StructureError as e:
            self.set_status(Text(str(e), style="yellow"))
            return None
        return key

    def action_add_cell(self) -> None:
        after = self._selected_own()
        if after is None:
            return

        def answer(line: str | None) -> None:
            if not line:
                return
            name, _, text = line.partition(":")
            self._structural(lambda: self.document.add_cell(after, name.strip(), text.strip()), name.strip())
        self.push_screen(PromptScreen(
            "Add a cell", f"After {after}, in its group.\nType `name: value` or `name: = formula`, as in "
            "`busbw: = algbw * bus_factor -> GB/s`.\nEnter adds it, Esc cancels."), answer)

    def action_duplicate_cell(self) -> None:
        key = self._selected_own()
        if key is None:
            return

        def answer(name: str | None) -> None:
            if name:
                self._structural(lambda: self.document.duplicate_cell(key, name.strip()), name.strip())
        self.push_screen(PromptScreen("Duplicate a cell", f"The name of the copy of {key} (typing replaces it):",
                                      f"{key}_copy", selected=True), answer)

    def action_rename_cell(self) -> None:
        key = self._selected_own()
        if key is None:
            return

        def answer(name: str | None) -> None:
            new = (name or "").strip()
            if new and new != key and self._structural(lambda: self.document.rename_cell(key, new), new):
                self.offer_importers(key, new)
        self.push_screen(PromptScreen(
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
        document = self.document
        step = document.last_step      # the rename: the importers' updates join its undo step
        self.set_status(f"renamed {old} to {new} · searching the sheet root for other sheets that name {old}…")

        def show(updates: list) -> None:
            if self.document is not document or not any(step is s for s in document.history.undo_stack):
                return           # the rename was undone (or another sheet opened) meanwhile: nothing to offer
            if not updates:
                self.set_status(f"renamed {old} to {new} · no other sheet names {old}")
                return
            self.ask_importers(old, new, updates, step)
        self.background.run("importers", lambda: document.importers_of(old, new), show)

    def ask_importers(self, old: str, new: str, updates: list, step) -> None:
        document = self.document
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
                self.set_status(f"renamed {old} to {new} in this sheet only · {count} still name {old}")
                return
            self.files.save(then=lambda: write_them())

        def write_them() -> None:       # once this sheet is saved: never importers ahead of it
            written, skipped = document.update_importers(updates, step)
            names = ", ".join(p.name for p in written) or "none"
            self.set_status(f"renamed {old} to {new} · saved this sheet and {names}")
            if skipped:
                self.notify("\n".join(skipped), title="not updated", severity="warning", timeout=15)
        self.push_screen(ChoiceScreen(f"Other sheets name {old}", message, [
            ("keep", f"Only this sheet (they keep {old} and report it missing)"),
            ("update", f"Update {'them' if len(updates) != 1 else 'it'} too and save")]), answer)

    def action_delete_cell(self) -> None:
        if self.remove_on_import():      # an import's row, or a cell given by a set: entry (tui/imports.py)
            return
        key = self._selected_own()
        if key is None:
            return
        users = self.document.users(key)
        expected = self.document.expectations_of(key)

        def answer(choice: str | None) -> None:
            if choice in ("delete", "delete_expectations"):
                self._structural(lambda: self.document.delete_cell(
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
        self.push_screen(ChoiceScreen(f"Delete {key}?", message, choices), answer)

    def action_remove_expectation(self) -> None:
        """Del on a diagnostic in F4 that points into an `expect` entry (a stale one that
        names no cell, a failing one): remove that entry. Ctrl+K on a cell: the entries
        about it are listed, to remove one or all. Each removal is one undo step."""
        document = self.document
        if document is None:
            return
        if self._in_a_panel() and self.focused is not self.diagnostics_panel:
            self.set_status("the diff lists no expect entries: Del removes one on its diagnostic in F4")
            return
        if self.focused is self.diagnostics_panel:
            diagnostic = self._diagnostic_at_cursor()
            if diagnostic is None:
                self.set_status("no diagnostic is selected: ↓ selects one, Del then removes its expect entry")
                return
            entry = document.expectation_at(diagnostic.span)
            if entry is None:
                self.set_status("this diagnostic is not in an expect entry: Del here removes only those")
                return
            self._remove_expectations([entry])
            return
        key = self.grid.current_key
        if key is None:
            self.set_status("select a cell, or a diagnostic of an expect entry in F4, to remove an expectation")
            return
        found = document.expectations_of(key)
        if not found:
            self.set_status(f"no expect entry is about {key}")
            return

        def answer(choice: str | None) -> None:
            if choice == "all":
                self._remove_expectations(found)
            elif choice and choice.startswith("entry"):
                self._remove_expectations([found[int(choice.removeprefix("entry"))]])
        listed = "\n".join(f"  {e.label}" for e in found)
        choices = [("cancel", "Cancel")] + [(f"entry{i}", f"Remove {e.label}") for i, e in enumerate(found)]
        if len(found) > 1:
            choices.append(("all", f"Remove all {len(found)}"))
        self.push_screen(ChoiceScreen(f"Expectations about {key}", f"The expect entries about {key}:\n{listed}\n\n"
                                      "Removing one is one undo step; the rest of the file stays as it is.",
                                      choices), answer)

    def _diagnostic_at_cursor(self):
        panel = self.diagnostics_panel
        if panel.highlighted is None:
            return None
        chosen = panel.chosen.get(panel.get_option_at_index(panel.highlighted).id or "")
        return chosen[0] if chosen is not None else None

    def _remove_expectations(self, entries: list) -> None:
        if self._structural(lambda: self.document.remove_expectations(entries), None):
            what = entries[0].label if len(entries) == 1 else f"{len(entries)} expect entries"
            self.set_status(f"removed {what} · unsaved · Ctrl+Z brings {'it' if len(entries) == 1 else 'them'} back")

    def action_edit_properties(self) -> None:
        if self.import_row() is not None:    # an import's row: its set: entries (tui/imports.py)
            self.action_import_sets()
            return
        document, key = self.document, self.grid.current_key
        home = document.home_of(key) if document is not None and key is not None else None
        if home is not None:
            self.offer_home(key, *home)
            return
        key = self._selected_own()
        if key is None:
            return

        def answer(values: dict[str, str] | None) -> None:
            if values is not None:
                self._structural(lambda: self.document.set_properties(key, values), key)
        self.push_screen(PropertiesScreen(key, self.document.properties(key)), answer)

    def offer_home(self, key: str, path: Path, name: str) -> None:
        """Ctrl+E on a cell of another sheet: what this sheet may change of it, written
        here as one undo step — an imported cell's value (a `set:` of its import; its
        unit, digits, doc and source are shown read-only), an inherited cell whole (its
        own cell of that name, which replaces the base's) — and the offer to open that
        sheet at the cell. Nothing is ever written to that file from here."""
        document = self.document
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
                self.set_status(f"{key}: its properties are in {shown}; nothing changed")
        if reason is None:
            self.push_screen(ImportedPropertiesScreen(key, shown, name, properties, document.raw_text(key),
                                                      document.override_how(key), inherited), answer)
            return
        listed = "\n".join(f"  {prop:<8}{value or '(none)'}" for prop, value in properties.items())
        message = (f"{key} is written in {where}; there:\n{listed}\n\nThis sheet can change none of it: "
                   f"{reason}.\n\nOpen {shown} at {name} and edit them there? (Unsaved edits here are "
                   "asked about first.)")
        self.push_screen(ChoiceScreen(f"{key}'s properties are in {path.name}", message, [
            ("cancel", "Stay here"), ("open", f"Open {shown} at {name}")]), answer)

    def override(self, key: str, values: dict[str, str], shown: str, inherited: bool) -> None:
        """What the dialog of a cell of another sheet answered, written here: an imported
        cell's value as a `set:`, an inherited cell whole as this sheet's own."""
        document = self.document
        value = values.pop("value").strip()
        if value == document.raw_text(key) and (not inherited or all(
                values[p].strip() == v for p, v in document.home_properties(key).items())):
            self.set_status(f"{key}: unchanged; nothing written (it is written in {shown})")
            return
        if inherited:
            self._structural(lambda: document.override_inherited(key, value, values), None)
        else:
            self._structural(lambda: document.apply(key, value), None)

    def open_home(self, path: Path, name: str, shown: str) -> None:
        """Open the sheet a cell is written in, at the cell, with its properties dialog."""
        def there() -> None:
            if not self.document.has_cell(name):
                self.set_status(Text(f"{shown} has no cell {name}", style="yellow"))
                return
            self.go_to(name)
            self.set_status(f"opened {shown} at {name} · Ctrl+P → Open sheet goes back")
            self.action_edit_properties()
        self.files.open_sheet(path, then=there)

    def _structural(self, edit, go_to: str | None) -> bool:
        """Make a structural edit and show it; False (with the reason shown) when it was refused."""
        try:
            result: EditResult = edit()
        except StructureError as e:
            self.notify(str(e), severity="warning")
            return False
        if not result.ok:
            self.notify(result.message or result.rendered, title="not applied", severity="error", timeout=10)
            return False
        if go_to:
            result.changes.pop(go_to, None)    # a new cell did not change: it is new
        self.after_edit(result, result.text)
        self.load_problems(self.document)
        if go_to:
            self.grid.go_to(go_to)
            self.show_selected(go_to)
        return True
