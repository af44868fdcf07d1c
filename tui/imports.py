"""Changing what the sheet imports, from the grid: Ctrl+O on an import's group
row or one of its cells offers the sheets it could import instead (editor/imports.py),
each with its title and the names of this sheet it lacks; one that lacks some is
swapped only after a question listing them. Ctrl+U imports another sheet (the
project's and the library's, typed text filters them) under an alias asked for;
Del on an import's row removes it (asking, and naming what uses it); Ctrl+T lists
its `set:` entries to change (Enter) or remove (Del) and its other cells to give
one (the first of a shared import says it splits it off, format 10.3); Del on an
imported cell whose value is a `set:` entry removes that entry. One undo step each.
A controller the app holds (tui/app.py: `app.imports`)."""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.cells import StructureError
from supersheet.editor.imports import Candidate

from .host import Editor
from .screens import ChoiceScreen, PickerScreen, PromptScreen

HEADER = "§"      # the grid's prefix of a group's row (widgets/rows.py)
IMPORT_ROW_KEYS = {"import_sets", "remove_import", "swap_import"}   # in the footer on an import's row


class ImportController:
    def __init__(self, app: Editor) -> None:
        self.app = app
        self.footer_shows = (False, False)   # the cursor is on a group's row, an import's (the footer's keys)

    def import_row(self) -> str | None:
        """The alias of the import whose group row the cursor is on (an import of this sheet's own)."""
        app = self.app
        grid = app.grid
        row = grid.current_row_key
        if row is None or not row.startswith(HEADER) or not grid.rows:
            return None
        section = grid.rows[grid.cursor].section
        return section.alias if section.kind == "import" and "." not in (section.alias or ".") else None

    def go_to_import(self, alias: str) -> None:
        """The cursor on the group row of the import `alias` (when shown)."""
        app = self.app
        grid = app.grid
        for index, row in enumerate(grid.rows):
            if row.key and row.key.startswith(HEADER) and row.section.kind == "import" and row.section.alias == alias:
                grid.go_to_row(index)
                return

    def footer_follows_row(self) -> None:
        """The footer shows the import keys while the cursor is on an import's row (Add
        import on any group's row: a sheet without imports has no import row)."""
        app = self.app
        row = app.grid.current_row_key
        shown = (row is not None and row.startswith(HEADER), self.import_row() is not None)
        if shown != self.footer_shows:
            self.footer_shows = shown
            app.refresh_bindings()

    def shows_key(self, action: str) -> bool:
        """Whether the footer shows this action's key here (asked by the app's check_action)."""
        on_group, on_import = self.footer_shows
        if action == "add_import":
            return on_group
        if action in IMPORT_ROW_KEYS:
            return on_import
        return True

    def selected_import(self) -> str | None:
        """The alias of the import under the cursor: its group row, or one of its cells."""
        app = self.app
        grid = app.grid
        row = grid.current_row_key
        if row is None:
            return None
        if row.startswith(HEADER):
            section = grid.rows[grid.cursor].section
            return section.alias if section.kind == "import" else None
        document = app.document
        if document is None:
            return None
        cell = document.cell(row)
        return cell.scope.prefix[:-1] if cell.scope.prefix else None

    def swap(self) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        alias = self.selected_import()
        if alias is None:         # not on an import: which one (an import sharing another's has no rows)
            self.chosen_import("Swap", self.swap_chosen)
            return
        self.swap_chosen(alias)

    def swap_chosen(self, alias: str) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        if "." in alias:
            outer = alias.split(".")[0]
            app.set_status(Text(f"{alias} is imported by {outer}'s sheet: swap it there, or {outer} here",
                                style="yellow"))
            return
        try:
            target = document.import_target(alias)
        except StructureError as e:
            app.set_status(Text(str(e), style="yellow"))
            return
        used = document.import_uses(alias)
        app.set_status(f"{alias} imports {target} · looking for sheets that define the {len(used)} "
                       f"names this sheet uses from it…")
        layout = document.layout

        def show(found: list[Candidate]) -> None:
            if app.document is not document or document.layout is not layout:
                return        # edited (or another sheet opened) meanwhile: Ctrl+O again asks anew
            if not found:
                app.set_status(f"no other sheet defines what this sheet uses from {alias}")
                return
            self.pick_import(alias, target, used, found)
        app.background.run("imports", document.import_candidates(alias), show)

    def pick_import(self, alias: str, current: str, used: list[str], found: list) -> None:
        app = self.app
        rows: list = []
        for i, candidate in enumerate(found):
            text = Text(candidate.written, style="bold")
            text.append(f"  {candidate.title}", style="dim")
            if candidate.missing:
                text.append(f"\n    lacks {len(candidate.missing)}: {', '.join(candidate.missing)}", style="yellow")
            rows.append((f"c{i}", text))
        complete = sum(1 for c in found if not c.missing)
        message = (f"{alias} imports {current}. This sheet uses {len(used)} of its names. "
                   f"{complete} sheet{'s' if complete != 1 else ''} define{'s' if complete == 1 else ''} all of "
                   "them; the others lack the names listed. Enter swaps (one undo step, one changed line), "
                   "Esc keeps it.")

        def answer(choice: str | None) -> None:
            if choice is None:
                app.set_status(f"{alias} still imports {current}")
                return
            candidate = found[int(choice[1:])]
            if candidate.missing:
                self.confirm_swap(alias, candidate)
            else:
                self.swap_import(alias, candidate)
        app.push_screen(PickerScreen(f"Import another sheet as {alias}", message, rows), answer)

    def confirm_swap(self, alias: str, candidate) -> None:
        app = self.app
        listed = ", ".join(f"{alias}.{n}" for n in candidate.missing)
        message = (f"{candidate.written} does not define {listed}: the cells that use them will be "
                   "listed as problems (F4, F8) until you change them. Ctrl+Z undoes the swap.")

        def answer(choice: str | None) -> None:
            if choice == "swap":
                self.swap_import(alias, candidate)
            else:
                app.set_status(f"{alias}: nothing swapped")
        app.push_screen(ChoiceScreen(f"Swap {alias} for {candidate.path.name}?", message, [
            ("cancel", "Cancel"), ("swap", f"Swap it; {len(candidate.missing)} names to fix")]), answer)

    def swap_import(self, alias: str, candidate) -> None:
        app = self.app
        document = app.document
        if document is not None and app.structural_edit(lambda: document.swap_import(alias, candidate.written), None):
            lacking = f" · {len(candidate.missing)} names it lacks are problems (F8)" if candidate.missing else ""
            app.set_status(f"{alias} now imports {candidate.written} · unsaved · Ctrl+Z undoes it{lacking}")

    # add ---------------------------------------------------------------------------
    def add(self) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        app.set_status("looking for sheets to import (this project's, the library's)…")
        layout = document.layout

        def show(found: list[Candidate]) -> None:
            if app.document is not document or document.layout is not layout:
                return        # edited (or another sheet opened) meanwhile: Ctrl+U again asks anew
            if not found:
                app.set_status("no other sheet found in this project or the library")
                return
            rows = []
            for i, candidate in enumerate(found):
                text = Text(candidate.written, style="bold")
                text.append(f"  {candidate.title}", style="dim")
                rows.append((f"c{i}", text))

            def answer(choice: str | None) -> None:
                if choice is None:
                    app.set_status("nothing imported")
                    return
                written = found[int(choice[1:])].written
                self.ask_alias(written, document.free_alias(written))
            app.set_status("type to filter the sheets · Enter imports the one selected · Esc cancels")
            app.push_screen(PickerScreen(
                "Import a sheet", f"{len(found)} sheets: this project's (written relative to this sheet), then "
                "the library's (by name, supersheet:…, the same from anywhere). Enter asks for its alias.",
                rows, typing=True), answer)
        app.background.run("imports", document.addable_imports(), show)

    def ask_alias(self, written: str, proposed: str, refused: str = "") -> None:
        app = self.app
        message = (f"{written} will be imported as: the name its cells go by in formulas (alias.cell). "
                   "One new line in use:, one undo step.")

        def answer(alias: str | None) -> None:
            if alias is None:
                app.set_status("nothing imported")
                return
            document = app.document
            if document is None:
                return
            try:
                result = document.add_import(alias.strip(), written)
            except StructureError as e:
                self.ask_alias(written, alias.strip(), str(e))   # asked again, saying why
                return
            if not result.ok:
                app.notify(result.rendered or result.message, title="not imported", severity="error", timeout=10)
                app.set_status(Text(f"{written} not imported: it brings a problem (the notice says which)",
                                    style="bold red"))
                return
            alias = alias.strip()
            app.after_edit(result, result.text)
            shares = document.shares(alias)
            if shares:      # one instance with another import of the file: its rows are that one's (format 10.3)
                where = (f" · one instance with {', '.join(shares)} (format 10.3): its cells show under "
                         f"{shares[0]}; Ctrl+T gives {alias} set: entries of its own")
            else:
                self.go_to_import(alias)
                where = ""
            app.set_status(f"imported {written} as {alias} · its cells are {alias}.… in formulas · unsaved · "
                           f"Ctrl+Z undoes it{where}")
        app.push_screen(PromptScreen(f"Import {written} as", (Text(refused + "\n\n", style="bold red")
                                                                if refused else Text()) + Text(message),
                                     proposed, selected=True), answer)

    # remove ------------------------------------------------------------------------
    def chosen_import(self, verb: str, then) -> None:
        """`then(alias)` for the import under the cursor; elsewhere the sheet's own imports
        are listed to choose one (an import that shares another's instance has no rows
        of its own: its cells show under the alias that reaches the file first)."""
        app = self.app
        alias = self.import_row() or self.selected_import()
        if alias is not None and "." not in alias:
            then(alias)
            return
        document = app.document
        own = document.own_imports() if document is not None else []
        if not own:
            app.set_status(Text("this sheet imports nothing of its own · Ctrl+U imports a sheet", style="yellow"))
            return
        rows = []
        for name, target, sets, shares in own:
            text = Text(name, style="bold") + Text(f"  {target}", style="dim")
            if sets:
                text.append(f"  set: {sets}", style="green")
            if shares:
                text.append(f"  (one instance with {', '.join(shares)})", style="yellow")
            rows.append((name, text))
        app.push_screen(PickerScreen(f"{verb} which import?", "This sheet's imports (Enter chooses one):", rows,
                                     typing=True), lambda alias: then(alias) if alias else app.set_status(
                                          "no import chosen"))

    def remove(self) -> None:
        self.chosen_import("Remove", self.ask_remove_import)

    def ask_remove_import(self, alias: str) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        try:
            target = document.own_import(alias).target
            users = document.import_users(alias)
        except StructureError as e:
            app.set_status(Text(str(e), style="yellow"))
            return

        def answer(choice: str | None) -> None:
            if choice != "remove":
                app.set_status(f"{alias} still imports {target}")
                return
            if app.structural_edit(lambda: document.remove_import(alias, force=bool(users)), None):
                said = f" · {len(users)} places that used it are problems (F8)" if users else ""
                app.set_status(f"removed the import {alias} · unsaved · Ctrl+Z undoes it{said}")
        if users:
            message = (f"{alias} ({target}) is used by {', '.join(users)}. Removing it leaves each of them a "
                       "problem (F4, F8) until you change it; Ctrl+Z undoes the removal. To use another sheet "
                       "in its place, Cancel and swap it (Ctrl+O).")
            choices = [("cancel", "Cancel"), ("remove", f"Remove it; {len(users)} places to fix")]
        else:
            message = f"Nothing in this sheet uses {alias} ({target}). Its lines go from use:; Ctrl+Z undoes it."
            choices = [("cancel", "Cancel"), ("remove", f"Remove the import {alias}")]
        app.push_screen(ChoiceScreen(f"Remove the import {alias}?", message, choices), answer)

    def remove_on_import(self) -> bool:
        """Del on an import's row (the import) or on an imported cell given by a `set:`
        entry of this sheet (the entry); False when the cursor is on neither."""
        app = self.app
        if self.import_row() is not None:
            self.remove()
            return True
        document, key = app.document, app.grid.current_key
        if document is None or key is None or not document.has_cell(key):
            return False
        cell = document.cell(key)
        alias = cell.scope.prefix[:-1]
        if not alias or "." in alias or cell.set_by is None or cell.set_by.span.file != document.file:
            return False
        self.set_entry_removed(alias, cell.name)
        return True

    # set: entries ------------------------------------------------------------------
    def import_sets(self) -> None:
        self.chosen_import("set: entries of", self.pick_set_entry)

    def pick_set_entry(self, alias: str) -> None:
        app = self.app
        document = app.document
        if document is None:
            return
        try:
            entries = document.set_entries(alias)
            cells = document.settable(alias)
            shares = document.shares(alias)
        except StructureError as e:
            app.set_status(Text(str(e), style="yellow"))
            return
        rows: list = [(None, Text(f"set: entries ({len(entries)})" if entries else "no set: entries yet",
                                  style="bold underline"))]
        for name, text in entries:
            rows.append((f"set:{name}", Text(f"{name}: ", style="bold") + Text(text, style="green")))
        written = dict(entries)
        rows.append((None, Text("cells a set: entry can give a value", style="bold underline")))
        for name, text in cells:
            if name not in written:
                rows.append((f"cell:{name}", Text(f"{name}  ", style="bold") + Text(f"{text}", style="dim")))
        split = (f" {alias} shares one instance with {', '.join(shares)} (no set:, format 10.3): a first entry "
                 f"makes {alias} an instance of its own, which they no longer follow." if shares else "")
        message = (f"What {alias} imports with its own values instead of its sheet's. Enter changes the entry "
                   f"or gives the cell one (a value or = formula, checked like a cell's edit); Del removes an "
                   f"entry.{split} One undo step each.")

        def answer(choice: str | None) -> None:
            if choice is None:
                app.set_status(f"{alias}: set: unchanged")
            elif choice.startswith("remove:"):
                kind, _, name = choice.removeprefix("remove:").partition(":")
                if kind == "set":
                    self.set_entry_removed(alias, name)
                else:
                    app.set_status(f"{alias}.{name} has no set: entry to remove")
            else:
                kind, _, name = choice.partition(":")
                self.ask_set_value(alias, name, written.get(name) or dict(cells).get(name, ""),
                                   shares if kind == "cell" else [])
        app.push_screen(PickerScreen(f"set: of {alias}", message, rows, typing=True,
                                     keys={"delete": "remove:"}), answer)

    def ask_set_value(self, alias: str, name: str, text: str, shares: list[str], refused: str = "") -> None:
        app = self.app
        split = (f"\n\n{alias} shares one instance with {', '.join(shares)} (format 10.3): this first set: entry "
                 f"splits it off; {alias} becomes an instance of its own, which {', '.join(shares)} no longer "
                 "follow." if shares else "")
        message = (f"A value or = formula for {name} in {alias}'s sheet, written as a set: entry of {alias} "
                   f"in this sheet (the imported file is not changed). Empty removes the entry.{split}")

        def answer(value: str | None) -> None:
            if value is None:
                app.set_status(f"{alias}: set: unchanged")
                return
            document = app.document
            if document is None:
                return
            try:
                result = document.set_import_value(alias, name, value)
            except StructureError as e:
                app.set_status(Text(str(e), style="yellow"))
                return
            if not result.ok:
                self.ask_set_value(alias, name, value, shares, result.rendered or result.message)
                return
            app.after_edit(result, result.text)
            app.set_status(f"{result.text}" + (f" · {alias} now its own instance" if shares else "")
                           + " · unsaved · Ctrl+Z undoes it" + (f" · {result.note}" if result.note else ""))
        body = (Text(refused + "\n\n", style="bold red") if refused else Text()) + Text(message)
        app.push_screen(PromptScreen(f"{alias}: set {name}", body, text, selected=True), answer)

    def set_entry_removed(self, alias: str, name: str) -> None:
        app = self.app
        document = app.document
        if document is not None and app.structural_edit(lambda: document.remove_set_entry(alias, name), None):
            app.set_status(f"{alias}: removed the set: entry {name} · {alias}.{name} has its sheet's value again "
                           "· unsaved · Ctrl+Z undoes it")
