"""Changing what the sheet imports, from the grid: Ctrl+O on an import's group
row or one of its cells offers the sheets it could import instead (editor/imports.py),
each with its title and the names of this sheet it lacks; one that lacks some is
swapped only after a question listing them. One undo step, one changed line.
A mixin of the app (tui/app.py)."""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.imports import Candidate
from supersheet.editor.cells import StructureError

from .screens import ChoiceScreen, PickerScreen

HEADER = "§"      # the grid's prefix of a group's row (widgets/rows.py)


class ImportActions:
    """Mixed into SupersheetApp."""

    def selected_import(self) -> str | None:
        """The alias of the import under the cursor: its group row, or one of its cells."""
        grid = self.grid
        row = grid.current_row_key
        if row is None:
            return None
        if row.startswith(HEADER):
            section = grid.rows[grid.cursor].section
            return section.alias if section.kind == "import" else None
        cell = self.document.cell(row)
        return cell.scope.prefix[:-1] if cell.scope.prefix else None

    def action_swap_import(self) -> None:
        document = self.document
        if document is None:
            return
        alias = self.selected_import()
        if alias is None:
            self.set_status(Text("select an import's group row or one of its cells to swap the sheet it imports",
                                 style="yellow"))
            return
        if "." in alias:
            outer = alias.split(".")[0]
            self.set_status(Text(f"{alias} is imported by {outer}'s sheet: swap it there, or {outer} here",
                                 style="yellow"))
            return
        try:
            target = document.import_target(alias)
        except StructureError as e:
            self.set_status(Text(str(e), style="yellow"))
            return
        used = document.import_uses(alias)
        self.set_status(f"{alias} imports {target} · looking for sheets that define the {len(used)} "
                        f"names this sheet uses from it…")
        layout = document.layout

        def show(found: list[Candidate]) -> None:
            if self.document is not document or document.layout is not layout:
                return        # edited (or another sheet opened) meanwhile: Ctrl+O again asks anew
            if not found:
                self.set_status(f"no other sheet defines what this sheet uses from {alias}")
                return
            self.pick_import(alias, target, used, found)
        self.in_background("imports", document.import_candidates(alias), show)

    def pick_import(self, alias: str, current: str, used: list[str], found: list) -> None:
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
                self.set_status(f"{alias} still imports {current}")
                return
            candidate = found[int(choice[1:])]
            if candidate.missing:
                self.confirm_swap(alias, candidate)
            else:
                self.swap_import(alias, candidate)
        self.push_screen(PickerScreen(f"Import another sheet as {alias}", message, rows), answer)

    def confirm_swap(self, alias: str, candidate) -> None:
        listed = ", ".join(f"{alias}.{n}" for n in candidate.missing)
        message = (f"{candidate.written} does not define {listed}: the cells that use them will be "
                   "listed as problems (F4, F8) until you change them. Ctrl+Z undoes the swap.")

        def answer(choice: str | None) -> None:
            if choice == "swap":
                self.swap_import(alias, candidate)
            else:
                self.set_status(f"{alias}: nothing swapped")
        self.push_screen(ChoiceScreen(f"Swap {alias} for {candidate.path.name}?", message, [
            ("cancel", "Cancel"), ("swap", f"Swap it; {len(candidate.missing)} names to fix")]), answer)

    def swap_import(self, alias: str, candidate) -> None:
        if self._structural(lambda: self.document.swap_import(alias, candidate.written), None):
            lacking = f" · {len(candidate.missing)} names it lacks are problems (F8)" if candidate.missing else ""
            self.set_status(f"{alias} now imports {candidate.written} · unsaved · Ctrl+Z undoes it{lacking}")
