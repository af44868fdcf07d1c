"""The editor's document model behind `supersheet edit`: one open sheet, its edits, undo, saving through the round-trip writer. No Textual here: the TUI (supersheet.tui) drives it."""
