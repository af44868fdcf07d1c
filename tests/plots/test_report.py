"""`supersheet report`: one self-contained page of a sheet, or of its change since a
git revision — every cell, verdicts, expectations, each sweep charted — readable
without a network or JavaScript, and opened in headless Chromium (Debian's
`chromium`; .ci/run installs it when it can, else the browser test is skipped
with why)."""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

import supersheet as ss
from supersheet.cli.main import main
from repo_paths import REPO, RUNNING

EXAMPLE = RUNNING
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> tuple[Path, Path]:
    """A repository with the library committed and the running example's workspace changed since."""
    root = tmp_path_factory.mktemp("repo")
    for folder in ("hardware", "models", "supernodes"):
        shutil.copytree(REPO / "sheets" / folder, root / folder)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "library")
    sheet = root / "supernodes" / "6.1.2-running-example.yaml"
    sheet.write_text(sheet.read_text().replace("    value: 2 GiB", "    value: 6 GiB", 1))
    out = root / "report.html"
    assert main(["report", str(sheet), "--rev", "HEAD", "-o", str(out)]) == 0
    return sheet, out


def test_the_report_holds_every_cell_verdict_expectation_and_sweep(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(EXAMPLE), "-o", str(out)]) == 0
    html = out.read_text()
    sheet = ss.load(EXAMPLE)
    names = [r["name"] for r in sheet.records()]
    assert len(names) > 50 and all(f"<td>{name}</td>" in html for name in names)
    assert "<h2>Checks and assumptions</h2>" in html and '<td class="fail">FAILS</td>' in html   # fits_one_card
    assert re.search(r"<h2>Expectations: \d+ passed, 0 failed</h2>", html)
    assert html.count("<h2>Sweep ") == 2 and html.count("<svg") == 2
    assert "Context tokens already in the KV cache." in html                       # a cell's doc
    # self-contained: nothing fetched, nothing run
    assert "<script" not in html and not re.search(r'(src|href)="https?:', html)


def test_against_a_revision_the_report_shows_what_moved(changed) -> None:
    _, out = changed
    html = out.read_text()
    assert "Changes since HEAD (" in html
    assert re.search(r"<td>inputs changed</td><td>workspace</td><td>2 GiB</td><td>6 GiB</td>", html)
    assert re.search(r"<td>max_sessions</td><td>47</td><td>37</td>", html)


def test_report_refuses_what_is_not_html_and_a_revision_outside_git(tmp_path: Path, capsys) -> None:
    assert main(["report", str(EXAMPLE), "-o", str(tmp_path / "r.pdf")]) == 2
    outside = tmp_path / "lone.yaml"
    outside.write_text("title: t\ncells:\n  a: 1\n")
    assert main(["report", str(outside), "--rev", "HEAD", "-o", str(tmp_path / "r.html")]) == 2
    assert "git" in capsys.readouterr().err and not (tmp_path / "r.html").exists()


def png_pixels(data: bytes) -> bytes:
    """The decompressed scanlines of a PNG (enough to tell a blank page from a drawn one)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(idat)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed here (apt-get install chromium)")
@pytest.mark.parametrize("which", ["sheet", "change"])
def test_the_report_in_headless_chromium(tmp_path: Path, changed, which: str) -> None:
    if which == "sheet":
        page = tmp_path / "report.html"
        assert main(["report", str(EXAMPLE), "-o", str(page)]) == 0
    else:
        page = changed[1]
    shot = tmp_path / "shot.png"
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr",
             "--v=0", f"--user-data-dir={tmp_path / 'profile'}"]
    run = subprocess.run([*flags, "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    pixels = png_pixels(shot.read_bytes())
    assert len(set(pixels)) > 16, "the screenshot is blank"
    assert not re.search(r"CONSOLE.*(Error|Uncaught)|Uncaught", run.stderr), run.stderr[-2000:]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180).stdout
    names = [r["name"] for r in ss.load(changed[0] if which == "change" else EXAMPLE).records()]
    assert all(f"<td>{name}</td>" in dom for name in names)


def test_diff_markdown_links_the_charts_that_changed_before_and_after(tmp_path: Path, capsys, monkeypatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    sheet = root / "link.yaml"
    sheet.write_text("title: a link\ncells:\n  alpha: 2 us\n  bw: 100 GB/s\n  size: 1 MiB\n"
                     "  t: = alpha + size / bw -> us\n  other: 3\nsweeps:\n  by_size:\n"
                     "    vary: {size: [1 KiB, 1 MiB, 16 MiB]}\n    show: [t]\n    plot: {x: size, y: [t], log_x: true}\n"
                     "  flat:\n    vary: {other: [1, 2]}\n    show: [other]\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    sheet.write_text(sheet.read_text().replace("alpha: 2 us", "alpha: 5 us"))
    monkeypatch.chdir(root)
    assert main(["diff", "--rev", "HEAD", "--format", "markdown", "--plots", "charts"]) == 1
    out = capsys.readouterr().out
    assert "| ![by_size before](charts/link-by_size-before.svg) | ![by_size after](charts/link-by_size-after.svg) |" in out
    assert "flat" not in out.split("####", 1)[1]          # its chart did not change: not drawn
    before, after = (root / "charts" / f"link-by_size-{s}.svg" for s in ("before", "after"))
    assert before.read_bytes() != after.read_bytes() and b"t [" in after.read_bytes()
    assert main(["diff", "--rev", "HEAD", "--plots", "charts"]) == 2       # --plots needs the Markdown
