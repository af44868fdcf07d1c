"""The documented editor set-up, run in the editor itself: Neovim, headless,
with the Lua block of docs/editors.md as its configuration, on a copy of the
running example with one formula broken. Skipped (with why) where Neovim is
not installed (`apt-get install neovim`; .ci/run installs it when it can)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import REPO

DOC = REPO / "docs" / "editors.md"
NVIM = shutil.which("nvim")

# After the documented configuration: wait for the server's diagnostics, ask it for the
# inlay hints of the whole buffer, write both to a file, quit.
PROBE = r"""
local out = io.open(vim.env.PROBE_OUT, "w")
local ok = vim.wait(90000, function() return #vim.diagnostic.get(0) > 0 end, 200)
for _, d in ipairs(vim.diagnostic.get(0)) do
  out:write(string.format("diagnostic %d %d %s\n", d.lnum, d.col, (d.message:gsub("\n", " "))))
end
local params = { textDocument = vim.lsp.util.make_text_document_params(),
                 range = { start = { line = 0, character = 0 }, ["end"] = { line = 400, character = 0 } } }
local replies = vim.lsp.buf_request_sync(0, "textDocument/inlayHint", params, 30000) or {}
for _, reply in pairs(replies) do
  for _, hint in ipairs(reply.result or {}) do
    local label = type(hint.label) == "string" and hint.label or hint.label[1].value
    out:write(string.format("hint %d %s\n", hint.position.line, label))
  end
end
out:close()
vim.cmd("qall!")
"""


def documented_config() -> str:
    (block,) = re.findall(r"```lua\n(.*?)```", DOC.read_text(), re.DOTALL)
    return block


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed here (apt-get install neovim)")
def test_neovim_with_the_documented_config_shows_the_diagnostic_and_a_value(tmp_path: Path) -> None:
    project = tmp_path / "plans"
    for folder in ("hardware", "models", "supernodes"):
        shutil.copytree(REPO / "sheets" / folder, project / folder)
    (project / "supersheet.toml").write_text("")
    sheet = project / "supernodes" / "6.1.2-running-example.yaml"
    text = sheet.read_text()
    broken = "kv_total: = model.kv_per_token * context -> GB"
    assert broken in text
    sheet.write_text(text.replace(broken, "kv_total: = model.kv_per_token + context -> GB"))
    config = tmp_path / "init.lua"
    config.write_text(documented_config())
    probe = tmp_path / "probe.lua"
    probe.write_text(PROBE)
    out = tmp_path / "probe.out"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PROBE_OUT": str(out), "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run([NVIM, "--headless", "-u", str(config), "-c", f"luafile {probe}", str(sheet)],
                   cwd=project, env=env, timeout=240, capture_output=True)
    found = out.read_text().splitlines()
    broken_line = next(i for i, line in enumerate(sheet.read_text().splitlines()) if "kv_per_token + context" in line)
    assert any(f.startswith(f"diagnostic {broken_line} ") and "cannot add" in f for f in found), found
    context = next(i for i, line in enumerate(sheet.read_text().splitlines()) if line.strip() == "context:")
    assert f"hint {context} ⟶ 8192 token" in found, found
