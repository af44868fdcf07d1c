"""Keystroke -> new inlay hints of `supersheet lsp`, over real stdio.

A generated 300-cell sheet (bench_tui.generate_sheet: chains of formulas over
12 inputs) is opened in a `supersheet lsp` child process driven by pygls's
client, as an editor drives it. Each round types a new value into the first
input (one didChange), waits for the server's inlay-hint refresh, asks for the
hints of the whole sheet and checks that the dependents moved. Printed: the
time from the keystroke to the hints in hand, minus the server's debounce
(the wait after the last keystroke that is there on purpose), median and p95,
with the server's CPU per edit and the load average.

Run: .venv/bin/python bench/bench_lsp.py [--cells 300] [--edits 40]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tui import generate_sheet  # noqa: E402
from paired import load_average  # noqa: E402

from supersheet.lsp.server import DEBOUNCE  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(cells: int, edits: int) -> tuple[list[float], float]:
    folder = Path(tempfile.mkdtemp(prefix="bench-lsp-"))
    sheet = folder / "generated.yaml"
    text = generate_sheet(cells)
    sheet.write_text(text)
    line = next(i for i, row in enumerate(text.splitlines()) if row.startswith("  x0:"))
    refreshed = asyncio.Event()
    client = LanguageClient("bench", "1")

    @client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    def on_refresh(params: None) -> None:
        refreshed.set()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: T.PublishDiagnosticsParams) -> None:
        pass      # published with every analysis; the hints are what is timed

    await client.start_io(sys.executable, "-m", "supersheet.cli.main", "lsp", cwd=str(folder))
    capabilities = T.ClientCapabilities(workspace=T.WorkspaceClientCapabilities(
        inlay_hint=T.InlayHintWorkspaceClientCapabilities(refresh_support=True)))
    await client.initialize_async(T.InitializeParams(capabilities=capabilities, root_uri=folder.as_uri()))
    client.initialized(T.InitializedParams())
    uri = sheet.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "yaml", 1, text)))
    await asyncio.wait_for(refreshed.wait(), 120)
    whole = T.Range(T.Position(0, 0), T.Position(len(text.splitlines()) + 1, 0))

    async def hints() -> dict[int, str]:
        found = await client.text_document_inlay_hint_async(
            T.InlayHintParams(text_document=T.TextDocumentIdentifier(uri), range=whole))
        return {h.position.line: h.label for h in found or []}

    before = await hints()
    value = "100"
    latencies = []
    pid = client._server.pid
    cpu0 = cpu_seconds(pid)
    for i in range(edits):
        new = str(200 + i)
        row = f"  x0: {value} GB"
        start = row.index(value)
        refreshed.clear()
        t0 = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, start), T.Position(line, start + len(value))),
                                                text=new)]))
        await asyncio.wait_for(refreshed.wait(), 60)
        after = await hints()
        latencies.append((time.perf_counter() - t0 - DEBOUNCE) * 1000)
        moved = sum(1 for k in after if after[k] != before.get(k))
        assert after[line] == f"⟶ {new} GB" and moved > cells // 20, (after[line], moved)
        before, value = after, new
    cpu = (cpu_seconds(pid) - cpu0) / edits * 1000
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--edits", type=int, default=40)
    args = parser.parse_args()
    print(f"before: {load_average()}")
    latencies, cpu = asyncio.run(measure(args.cells, args.edits))
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"{args.cells} cells, {args.edits} edits: keystroke -> new inlay hints, after the {DEBOUNCE * 1000:.0f} ms "
          f"debounce: median {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, min {latencies[0]:.1f} ms; "
          f"server CPU {cpu:.1f} ms per edit")
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
