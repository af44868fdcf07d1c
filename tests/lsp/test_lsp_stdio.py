"""`supersheet lsp` end to end: the installed command started as a child
process, driven over real stdio JSON-RPC by pygls's client, on copies of the
library's sheets in a project folder outside the repository."""
from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from repo_paths import SHEETS

WAIT = 60.0      # seconds: a cold start imports Polars and Pint on a busy machine


class Client:
    """A pygls client around one `supersheet lsp` process, collecting what it publishes."""

    def __init__(self) -> None:
        self.lsp = LanguageClient("supersheet-tests", "1")
        self.diagnostics: dict[str, list[T.Diagnostic]] = {}
        self.published = asyncio.Event()
        self.refreshed = asyncio.Event()

        @self.lsp.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: T.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params.diagnostics
            self.published.set()

        @self.lsp.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
        def on_refresh(params: None) -> None:
            self.refreshed.set()

    async def start(self, root: Path) -> None:
        await self.lsp.start_io(sys.executable, "-m", "supersheet.cli.main", "lsp", cwd=str(root))
        capabilities = T.ClientCapabilities(workspace=T.WorkspaceClientCapabilities(
            inlay_hint=T.InlayHintWorkspaceClientCapabilities(refresh_support=True)))
        await self.lsp.initialize_async(T.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
        self.lsp.initialized(T.InitializedParams())

    async def stop(self) -> None:
        await self.lsp.shutdown_async(None)
        self.lsp.exit(None)
        await self.lsp.stop()

    async def open(self, path: Path) -> str:
        uri = path.resolve().as_uri()
        self.published.clear()
        self.lsp.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=path.read_text())))
        await self.until_published(uri)
        return uri

    async def until_published(self, uri: str) -> list[T.Diagnostic]:
        while True:
            await asyncio.wait_for(self.published.wait(), WAIT)
            self.published.clear()
            if uri in self.diagnostics:
                return self.diagnostics[uri]

    async def change(self, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
        self.published.clear()
        self.refreshed.clear()
        self.lsp.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, start), T.Position(line, end)),
                                                text=text)]))
        await asyncio.wait_for(self.refreshed.wait(), WAIT)

    async def hints(self, uri: str, lines: int = 500) -> dict[int, str]:
        found = await self.lsp.text_document_inlay_hint_async(T.InlayHintParams(
            text_document=T.TextDocumentIdentifier(uri), range=T.Range(T.Position(0, 0), T.Position(lines, 0))))
        return {h.position.line: h.label for h in found or []}


def run(coroutine):
    """Run a session; a server that stops answering fails the test instead of hanging it."""
    return asyncio.run(asyncio.wait_for(coroutine, 4 * WAIT))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A user's project: the library's hardware and models beside a plans/ folder."""
    root = tmp_path / "capacity"
    for folder in ("hardware", "models", "supernodes"):
        shutil.copytree(SHEETS / folder, root / folder)
    (root / "supersheet.toml").write_text("")      # its project root (format 10.2) ...
    subprocess.run(["git", "init", "-q", str(root)], check=True)   # ... as a git work tree is too
    return root


def line_of(path: Path, needle: str) -> int:
    """The 0-based line of the first line of `path` containing `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines()) if needle in line)


def test_a_unit_error_is_a_diagnostic_at_its_line_and_column(project: Path) -> None:
    sheet = project / "bad.yaml"
    sheet.write_text("title: t\ncells:\n  a: 80 GB\n  b: 2 us\n  c: = a + b\n")

    async def go() -> list[T.Diagnostic]:
        client = Client()
        await client.start(project)
        try:
            return client.diagnostics[await client.open(sheet)]
        finally:
            await client.stop()
    found = run(go())
    (unit,) = [d for d in found if d.code == "E-UNIT"]
    assert (unit.range.start.line, unit.range.start.character) == (4, 11)    # `b` of `= a + b`, as `check`: 5:12
    assert "cannot add" in unit.message and unit.severity == T.DiagnosticSeverity.Error


def test_changing_an_input_changes_the_hint_of_every_dependent(project: Path) -> None:
    sheet = project / "supernodes" / "6.1.2-running-example.yaml"
    context = line_of(sheet, "  context:")                  # a long-form cell: its value is below its name
    value = next(i for i, line in enumerate(sheet.read_text().splitlines()) if i > context and "8192" in line)
    start = sheet.read_text().splitlines()[value].index("8192")

    async def go() -> tuple[dict[int, str], dict[int, str]]:
        client = Client()
        await client.start(project)
        try:
            uri = await client.open(sheet)
            before = await client.hints(uri)
            await client.change(uri, 2, value, start, start + 4, "32768")
            return before, await client.hints(uri)
        finally:
            await client.stop()
    before, after = run(go())
    assert before[context] == "⟶ 8192 token" and after[context] == "⟶ 32768 token"
    kv_total = line_of(sheet, "  kv_total:")
    assert before[kv_total] != after[kv_total]
    moved = {line for line in before if before[line] != after.get(line)}
    # context, and every cell computed from it (kv per session, totals, sessions …) — not only the edited line
    assert len(moved) >= 5, moved


def test_hover_definition_into_the_library_and_references(project: Path) -> None:
    sheet = project / "supernodes" / "6.1.2-running-example.yaml"
    line = line_of(sheet, "= model.weights")
    col = sheet.read_text().splitlines()[line].index("model.weights") + len("model.w")

    async def go():
        client = Client()
        await client.start(project)
        try:
            uri = await client.open(sheet)
            where = T.TextDocumentPositionParams(T.TextDocumentIdentifier(uri), T.Position(line, col))
            hover = await client.lsp.text_document_hover_async(
                T.HoverParams(text_document=where.text_document, position=where.position))
            definition = await client.lsp.text_document_definition_async(
                T.DefinitionParams(text_document=where.text_document, position=where.position))
            model = project / "models" / "qwen3-235b-a22b.yaml"
            weights = line_of(model, "  weights:")
            await client.open(model)      # references are asked where the cell is written (the other sheets: on disk)
            references = await client.lsp.text_document_references_async(T.ReferenceParams(
                text_document=T.TextDocumentIdentifier(model.resolve().as_uri()), position=T.Position(weights, 3),
                context=T.ReferenceContext(include_declaration=True)))
            return hover, definition, references, model, weights
        finally:
            await client.stop()
    hover, definition, references, model, weights = run(go())
    assert "model.weights" in hover.contents.value and "GB" in hover.contents.value
    assert definition.uri == model.resolve().as_uri() and definition.range.start.line == weights
    assert any(r.uri == sheet.resolve().as_uri() and r.range.start.line == line for r in references)


def test_rename_across_two_sheets_and_completion(project: Path) -> None:
    hw = project / "hardware" / "h100-sxm.yaml"
    plan = project / "plan.yaml"
    plan.write_text("title: plan\nuse:\n  gpu: hardware/h100-sxm.yaml\ncells:\n"
                    "  weights: 58.96 GB\n  t: = weights / gpu.hbm_bandwidth -> ms\n  m: 80 \n")
    bandwidth = line_of(hw, "  hbm_bandwidth:")

    async def go():
        client = Client()
        await client.start(project)
        try:
            await client.open(hw)
            uri = await client.open(plan)
            edit = await client.lsp.text_document_rename_async(T.RenameParams(
                text_document=T.TextDocumentIdentifier(hw.resolve().as_uri()), position=T.Position(bandwidth, 4),
                new_name="hbm_bw"))
            after_dot = await client.lsp.text_document_completion_async(T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri), position=T.Position(5, len("  t: = weights / gpu."))))
            after_number = await client.lsp.text_document_completion_async(T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri), position=T.Position(6, len("  m: 80 "))))
            return edit, after_dot, after_number
        finally:
            await client.stop()
    edit, after_dot, after_number = run(go())
    changes = edit.changes
    assert set(changes) >= {hw.resolve().as_uri(), plan.resolve().as_uri()}
    (in_plan,) = changes[plan.resolve().as_uri()]
    assert (in_plan.range.start.line, in_plan.range.start.character, in_plan.new_text) == \
        (5, len("  t: = weights / gpu."), "hbm_bw")
    labels = {i.label: i.detail for i in after_dot.items}
    assert "gpu.hbm_bandwidth" in labels and "GB/s" in labels["gpu.hbm_bandwidth"]
    assert {"GB", "GiB", "GB/s"} <= {i.label for i in after_number.items}


def test_an_edit_in_an_open_import_moves_the_importers_values(project: Path) -> None:
    hw = project / "hardware" / "h100-sxm.yaml"
    plan = project / "plan.yaml"
    plan.write_text("title: plan\nuse:\n  gpu: hardware/h100-sxm.yaml\ncells:\n  t: = 1 GB / gpu.hbm_bandwidth -> ms\n")
    bandwidth = next(i for i, line in enumerate(hw.read_text().splitlines()) if "3350" in line)
    start = hw.read_text().splitlines()[bandwidth].index("3350")

    async def go():
        client = Client()
        await client.start(project)
        try:
            hw_uri = await client.open(hw)
            plan_uri = await client.open(plan)
            before = await client.hints(plan_uri)
            await client.change(hw_uri, 2, bandwidth, start, start + 4, "6700")   # unsaved, in the other buffer
            await asyncio.sleep(0)
            for _ in range(50):            # the importer is analysed after the import: its refresh comes second
                client.refreshed.clear()   # before asking, so a refresh that lands while we ask is not lost
                after = await client.hints(plan_uri)
                if after != before:
                    return before, after
                await asyncio.wait_for(client.refreshed.wait(), WAIT)
            return before, after
        finally:
            await client.stop()
    before, after = run(go())
    assert before[4] == "⟶ 0.2985 ms" and after[4] == "⟶ 0.1493 ms"
    assert "3350" in hw.read_text()          # nothing was written


def test_definition_into_the_bundled_library_by_name(project: Path) -> None:
    plan = project / "lib-plan.yaml"
    plan.write_text("title: plan\nuse:\n  gpu: supersheet:hardware/h100-sxm.yaml\ncells:\n"
                    "  t: = 1 GB / gpu.hbm_bandwidth -> ms\n")
    col = len("  t: = 1 GB / gpu.h")

    async def go():
        client = Client()
        await client.start(project)
        try:
            uri = await client.open(plan)
            at = dict(text_document=T.TextDocumentIdentifier(uri), position=T.Position(4, col))
            hover = await client.lsp.text_document_hover_async(T.HoverParams(**at))
            definition = await client.lsp.text_document_definition_async(T.DefinitionParams(**at))
            hints = await client.hints(uri)
            return client.diagnostics[uri], hover, definition, hints
        finally:
            await client.stop()
    diagnostics, hover, definition, hints = run(go())
    assert not diagnostics and hints[4] == "⟶ 0.2985 ms"
    target = Path(definition.uri.removeprefix("file://"))
    assert target.name == "h100-sxm.yaml" and target.is_file() and not target.is_relative_to(project)
    line = target.read_text().splitlines()[definition.range.start.line]
    assert line.strip().startswith("hbm_bandwidth:")
    assert "supersheet:hardware/h100-sxm.yaml" in hover.contents.value       # named, not by its install path


def test_shutdown_and_exit_end_the_process_with_code_0(project: Path) -> None:
    """An editor ends a session with `shutdown` then `exit`. pygls answers `exit` by closing the
    stream it writes to, which was the command's own stdout: its last flush failed and every
    session ended in `supersheet: internal error: ValueError: I/O operation on closed file`, exit
    70. Raw JSON-RPC over the process's pipes, as an editor speaks it; its code and stderr read."""
    import json

    def frame(message: dict) -> bytes:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    session = b"".join(frame(m) for m in (
        {"id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": project.as_uri()}},
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "shutdown"},
        {"method": "exit"}))
    done = subprocess.run([sys.executable, "-m", "supersheet.cli.main", "lsp"], input=session, cwd=project,
                          capture_output=True, timeout=4 * WAIT)
    assert done.stdout.count(b"Content-Length:") == 2   # initialize and shutdown were answered
    assert done.returncode == 0, done.stderr.decode()
    assert b"internal error" not in done.stderr, done.stderr.decode()
