"""`supersheet lsp`: a Language Server Protocol server over stdio (pygls), so a
sheet open in VS Code, Neovim, Helix, Zed or Emacs shows what the terminal UI
shows — every diagnostic as you type, the value of every cell at the end of its
line, hover, go to definition, references, rename, completion, quick fixes.

This module only speaks the protocol. What a sheet holds at a position is the
editor's (editor/language.py: `Snapshot`; editor/references.py;
editor/suggest.py): the same loading, limits and sheet root as the CLI, the
same diagnostics and values as `supersheet run`. The server never writes a
file: a rename or a quick fix is an edit the client applies.

Timing: a change is analysed `DEBOUNCE` seconds after the last keystroke, off
the protocol's thread (one worker: analyses run in order, a newer text wins),
then its diagnostics are published and the client is asked to fetch inlay
hints again. Sheets that import the changed one are analysed again too. A
sheet with random draws gets its samples after its values, in the same worker.
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from supersheet.editor.language import Snapshot, Spot, looks_like_sheet, sample
from supersheet.editor.references import RenameRefused, places, renamed
from supersheet.editor.sample import Samples
from supersheet.editor.suggest import suggestions
from supersheet.lsp.positions import Lines, span_range
from supersheet.editor.fixes import quick_fixes

__all__ = ["DEBOUNCE", "SheetServer", "serve"]

DEBOUNCE = 0.15      # seconds after the last change before a sheet is analysed again
log = logging.getLogger("supersheet.lsp")

_KINDS = {"cell": T.CompletionItemKind.Variable, "alias": T.CompletionItemKind.Module,
          "function": T.CompletionItemKind.Function, "unit": T.CompletionItemKind.Unit,
          "key": T.CompletionItemKind.Keyword}
_WARNINGS = {"E-EXPECT", "E-ASSUME"}      # the sheet computes; a number is not what was expected or modelled


class SheetServer(LanguageServer):
    """The open sheets' snapshots, kept up to date as their buffers change."""

    def __init__(self, version: str) -> None:
        super().__init__("supersheet", version, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.snapshots: dict[str, Snapshot] = {}
        self.samples: dict[str, Samples | None] = {}
        self.versions: dict[str, int] = {}        # uri -> changes seen (a newer one drops an older analysis)
        self.pending: dict[str, asyncio.Task] = {}
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="supersheet-lsp")

    # documents ---------------------------------------------------------------------------
    def text_of(self, uri: str) -> str | None:
        try:
            return self.workspace.get_text_document(uri).source
        except Exception:  # noqa: BLE001 - a document the client never opened
            return None

    def open_texts(self) -> dict[Path, str]:
        """Every open sheet's unsaved text, read by imports instead of the file."""
        out = {}
        for uri, doc in self.workspace.text_documents.items():
            path = uri_path(uri)
            if path is not None and looks_like_sheet(doc.source):
                out[path] = doc.source
        return out

    def changed(self, uri: str, debounce: float = DEBOUNCE) -> None:
        """Analyse `uri` again after `debounce` seconds without another change."""
        self.versions[uri] = self.versions.get(uri, 0) + 1
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._analyse_later(uri, debounce))

    async def _analyse_later(self, uri: str, debounce: float) -> None:
        await asyncio.sleep(debounce)
        await self.analyse(uri)
        here = uri_path(uri)
        for other, snapshot in list(self.snapshots.items()):     # the sheets that import this one
            if other != uri and here is not None and snapshot.reads(here):
                await self.analyse(other)

    async def analyse(self, uri: str) -> None:
        path, text, version = uri_path(uri), self.text_of(uri), self.versions.get(uri, 0)
        if path is None or text is None or not looks_like_sheet(text):
            self.forget(uri)
            return
        loop = asyncio.get_running_loop()
        previous = self.snapshots.get(uri)
        build = previous.after if previous is not None else partial(Snapshot, path)
        try:
            snapshot = await loop.run_in_executor(self.worker, build, text, self.open_texts())
        except Exception as e:  # noqa: BLE001 - a bug on one text must never take the server down
            log.exception("analysing %s", uri)
            self.window_log_message(T.LogMessageParams(T.MessageType.Error, f"supersheet: {type(e).__name__}: {e}"))
            return
        if self.versions.get(uri, 0) != version:
            return                      # typed on meanwhile: the newer analysis is queued
        self.snapshots[uri] = snapshot
        self.samples.pop(uri, None)
        self.publish(uri, snapshot)
        self.refresh_hints()
        if snapshot.has_draws:
            samples = await loop.run_in_executor(self.worker, sample, snapshot)
            if self.snapshots.get(uri) is snapshot:
                self.samples[uri] = samples
                self.publish(uri, snapshot)
                self.refresh_hints()

    def forget(self, uri: str) -> None:
        if self.snapshots.pop(uri, None) is not None:
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.samples.pop(uri, None)

    def publish(self, uri: str, snapshot: Snapshot) -> None:
        lines = Lines(snapshot.text())
        samples = self.samples.get(uri)
        found = []
        for d, span in snapshot.located_problems():
            message = d.message if d.span is None or d.span.file == snapshot.file else f"{d.span}: {d.message}"
            if d.hint:
                message += f"\nhint: {d.hint}"
            found.append(T.Diagnostic(range=span_range(lines, span), message=message, code=d.code, source="supersheet",
                                      severity=T.DiagnosticSeverity.Warning if d.code in _WARNINGS
                                      else T.DiagnosticSeverity.Error))
        if samples is not None and samples.sampled is not None:
            for verdict in samples.verdicts:
                d = verdict.diagnostic
                if d.span is not None and d.span.file == snapshot.file:
                    found.append(T.Diagnostic(range=span_range(lines, d.span), message=d.message, code=d.code,
                                              source="supersheet", severity=T.DiagnosticSeverity.Warning))
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=found))

    def refresh_hints(self) -> None:
        workspace = self.client_capabilities.workspace
        hints = workspace.inlay_hint if workspace is not None else None
        if hints is not None and hints.refresh_support:
            self.workspace_inlay_hint_refresh(None)

    def lines_of(self, path: Path) -> Lines:
        """A file's lines as the client sees them: its open buffer, else the file on disk."""
        text = self.text_of(path_uri(path))
        if text is None:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
        return Lines(text)

    def snapshot(self, uri: str) -> Snapshot | None:
        return self.snapshots.get(uri)

    def spot(self, uri: str, position: T.Position) -> tuple[Snapshot, Spot] | None:
        snapshot = self.snapshots.get(uri)
        if snapshot is None:
            return None
        line = position.line + 1
        col = Lines(snapshot.text()).char_col(position.line, position.character) + 1
        found = snapshot.spot_at(line, col)
        return (snapshot, found) if found is not None else None


def build(version: str) -> SheetServer:
    server = SheetServer(version)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SheetServer, params: T.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, debounce=0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SheetServer, params: T.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SheetServer, params: T.DidSaveTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, debounce=0)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SheetServer, params: T.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hints(ls: SheetServer, params: T.InlayHintParams) -> list[T.InlayHint]:
        snapshot = ls.snapshot(params.text_document.uri)
        if snapshot is None:
            return []
        lines = Lines(snapshot.text())
        first, last = params.range.start.line + 1, params.range.end.line + 1
        return [T.InlayHint(position=T.Position(h.line - 1, lines.end_of(h.line - 1)), label=f"⟶ {h.label}",
                            padding_left=True, tooltip=h.tooltip)
                for h in snapshot.hints(ls.samples.get(params.text_document.uri)) if first <= h.line <= last]

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: SheetServer, params: T.HoverParams) -> T.Hover | None:
        found = ls.spot(params.text_document.uri, params.position)
        if found is None:
            return None
        snapshot, spot = found
        return T.Hover(contents=T.MarkupContent(T.MarkupKind.Markdown, snapshot.hover(spot)),
                       range=span_range(Lines(snapshot.text()), spot.span))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: SheetServer, params: T.DefinitionParams) -> T.Location | None:
        found = ls.spot(params.text_document.uri, params.position)
        span = found[0].definition(found[1]) if found is not None else None
        return location(ls, span) if span is not None else None

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(ls: SheetServer, params: T.ReferenceParams) -> list[T.Location]:
        found = ls.spot(params.text_document.uri, params.position)
        if found is None or found[1].kind != "cell":
            return []
        cell = found[0].cell_of(found[1].text)
        if cell is None:
            return []
        home = Path(cell.spec.span.file)
        out = []
        for place in places(home, cell.name, ls.open_texts()):
            line, col, length = place.edit
            lines = ls.lines_of(place.path)
            out.append(T.Location(uri=path_uri(place.path), range=lines.range(line, col, col + length)))
        return out

    @server.feature(T.TEXT_DOCUMENT_RENAME)
    def rename(ls: SheetServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
        found = ls.spot(params.text_document.uri, params.position)
        if found is None or found[1].kind != "cell":
            raise RenameError("only a cell can be renamed here")
        cell = found[0].cell_of(found[1].text)
        if cell is None:
            raise RenameError(f"{found[1].text} is not a cell")
        try:
            edits = renamed(Path(cell.spec.span.file), cell.name, params.new_name, ls.open_texts())
        except RenameRefused as e:
            raise RenameError(str(e)) from None
        changes = {}
        for path, spans in edits.items():
            lines = ls.lines_of(path)
            changes[path_uri(path)] = [T.TextEdit(range=lines.range(line, col, col + length), new_text=params.new_name)
                                       for line, col, length in spans]
        return T.WorkspaceEdit(changes=changes)

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", " "]))
    def completion(ls: SheetServer, params: T.CompletionParams) -> T.CompletionList:
        snapshot = ls.snapshot(params.text_document.uri)
        text = ls.text_of(params.text_document.uri)
        if snapshot is None or text is None:
            return T.CompletionList(is_incomplete=False, items=[])
        lines = Lines(text)
        line_text = lines.line(params.position.line)
        col = lines.char_col(params.position.line, params.position.character)
        items = []
        for s in suggestions(snapshot, line_text[:col]):
            start = lines.utf16_col(params.position.line, col - s.replace)
            items.append(T.CompletionItem(
                label=s.label, kind=_KINDS[s.kind], detail=s.detail,
                text_edit=T.TextEdit(range=T.Range(T.Position(params.position.line, start), params.position),
                                     new_text=s.insert)))
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                    T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    def code_actions(ls: SheetServer, params: T.CodeActionParams) -> list[T.CodeAction]:
        uri = params.text_document.uri
        snapshot, text = ls.snapshot(uri), ls.text_of(uri)
        if snapshot is None or text is None:
            return []
        lines = Lines(text)
        out: list[T.CodeAction] = []
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != "supersheet" or "hint:" not in diagnostic.message:
                continue
            line = diagnostic.range.start.line
            start = lines.char_col(line, diagnostic.range.start.character)
            end = lines.char_col(line, diagnostic.range.end.character)
            for fix in quick_fixes(snapshot, str(diagnostic.code), line + 1, start + 1, end + 1,
                                   diagnostic.message.split("hint:", 1)[1].strip()):
                edit = T.TextEdit(range=lines.range(line, fix.start - 1, fix.end - 1), new_text=fix.text)
                out.append(T.CodeAction(title=fix.title, kind=T.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                        edit=T.WorkspaceEdit(changes={uri: [edit]}), is_preferred=len(out) == 0))
        return out

    return server


class RenameError(Exception):
    """Said to the client as the rename request's error."""


def location(ls: SheetServer, span) -> T.Location:
    path = Path(span.file)
    lines = ls.lines_of(path)
    return T.Location(uri=path_uri(path), range=span_range(lines, span))


def uri_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def path_uri(path: Path) -> str:
    return Path(path).resolve().as_uri()


def serve(version: str) -> int:
    """Serve on stdin/stdout until the client says exit.

    pygls answers the exit notification by closing the stream it writes to: given
    `sys.stdout.buffer`, the command's own stdout was closed under it, and its final flush
    failed, so every editor session ended in "internal error: ValueError: I/O operation on
    closed file" and exit code 70. It writes to a duplicate of stdout's descriptor instead."""
    logging.basicConfig(level=logging.WARNING)
    with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as out:
        build(version).start_io(stdout=out)
    return 0

