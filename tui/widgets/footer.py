"""The footer of key bindings, redrawn only when the keys it shows change.

Textual's Footer recomposes on every focus change; here focus moves between
the grid and the editor on every edit, and a recompose costs a full-screen
repaint, so the footer first compares what it would show.

Some keys are shown only where they apply (the import keys on an import's row):
the app's `check_action` hides them while `app.footer_asking` is set — only
here, since Textual's `run_action` asks `check_action` too, and the key must
work wherever it is pressed."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Protocol, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class Asking(Protocol):
    """The app's flag (tui/app.py): its check_action hides keys only while it is set."""

    footer_asking: bool


class KeyFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple | None = None

    @contextmanager
    def _asking(self) -> Iterator[None]:
        app = cast(Asking, self.app)
        app.footer_asking = True
        try:
            yield
        finally:
            app.footer_asking = False

    def compose(self) -> ComposeResult:
        with self._asking():
            yield from super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        with self._asking():
            shown = self._as_shown(screen)
        if shown == self._shown and self._bindings_ready:
            return
        self._shown = shown
        super().bindings_changed(screen)

    def _as_shown(self, screen: Screen) -> tuple:
        """What the footer would draw: per action, its first key's display and description."""
        seen: dict[str, tuple] = {}
        for _, binding, enabled, _ in screen.active_bindings.values():
            if (binding.show or binding.key == self.app.COMMAND_PALETTE_BINDING) and binding.action not in seen:
                seen[binding.action] = (self.app.get_key_display(binding), binding.description, enabled)
        return tuple(seen.items())
