"""Race the editor's save against another program writing the same sheet
(issue 28, item 3), and count the other program's writes that a save threw
away.

Two processes for `--seconds`:

* the *writer* rewrites the sheet as fast as it can, each version marked
  `# writer NNNNNNN` — in place (the same inode, as `echo >` or an editor
  that writes in place) or by a rename of its own (as `git checkout` or an
  editor's atomic save), alternately; after each write it waits 0-2 ms and
  reads the sheet back;
* the *editor* (supersheet.editor.document.Document, what `supersheet edit`
  saves with) edits one value and saves, again and again; when the save says
  the file changed on disk it opens the sheet again and goes on from there.

A save that was based on version m replaces the writer's version n ≠ m only
when another write slipped in between its check and its rename. The writer
sees that when its read-back shows the editor's text without its own marker:
version n was *overwritten*. Overwritten is not lost when the version is kept
beside the sheet (`NAME.concurrent-*`, the editor's "both versions kept").
Prints one JSON line: writes, saves, overwritten, kept, lost (overwritten and
not kept).

    python tools/save_race.py --seconds 15 [--dir DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHEET = "title: raced\ncells:\n  a: 1 GB   # the editor changes this\n  b: = a * 2 -> GB\n# writer {n:07d}\n"
EDITOR_VALUES = [f"{n} GB" for n in range(2, 10)]


def writer(path: Path, seconds: float, log: Path) -> None:
    rng = random.Random(28)
    overwritten, n = [], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        n += 1
        data = SHEET.format(n=n).encode()
        if n % 2:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)     # in place: the same inode
            try:
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        else:
            tmp = path.with_name(f".writer-{n}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        time.sleep(rng.random() * 0.002)
        try:
            back = path.read_bytes().decode(errors="replace")
        except OSError:
            continue
        if f"# writer {n:07d}" not in back:
            overwritten.append(n)      # not ours any more, and no save based on it: the editor's save replaced it
    log.write_text(json.dumps({"writes": n, "overwritten": overwritten}))


def editor(path: Path, seconds: float, log: Path) -> None:
    from supersheet.editor.document import Document, ExternalChange

    saves = refused = 0
    kept: list[str] = []
    document = None
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        try:
            if document is None:
                document = Document(path)
            if not document.apply("a", EDITOR_VALUES[i % len(EDITOR_VALUES)]).ok:
                document = None
                continue
            written = document.save()
            saves += 1
            if written is not None and written.kept is not None:
                kept.append(str(written.kept))
        except ExternalChange:
            refused += 1
            document = None          # start again from what is on disk now
        except Exception:  # noqa: BLE001 - a half-written file read mid-write: read it again
            document = None
    log.write_text(json.dumps({"saves": saves, "refused": refused, "kept": kept}))


def race(folder: Path, seconds: float) -> dict:
    sheet = folder / "raced.yaml"
    sheet.write_text(SHEET.format(n=0))
    logs = folder / "writer.json", folder / "editor.json"
    here = str(Path(__file__).resolve())
    procs = [subprocess.Popen([sys.executable, here, "--role", role, str(sheet), str(seconds), str(log)])
             for role, log in zip(("writer", "editor"), logs)]
    for proc in procs:
        if proc.wait(timeout=seconds + 120) != 0:
            raise SystemExit(f"{proc.args[3]} failed: exit {proc.returncode}")
    wrote, edited = (json.loads(log.read_text()) for log in logs)
    kept_texts = [p.read_text(errors="replace") for p in folder.glob("raced.yaml.concurrent-*")]
    kept = {n for n in wrote["overwritten"] if any(f"# writer {n:07d}" in t for t in kept_texts)}
    lost = sorted(set(wrote["overwritten"]) - kept)
    return {"seconds": seconds, "writes": wrote["writes"], "saves": edited["saves"],
            "saves_refused_as_changed": edited["refused"], "overwritten": len(wrote["overwritten"]),
            "kept_files": len(kept_texts), "overwritten_and_kept": len(kept), "lost": len(lost),
            "lost_versions": lost[:20], "load": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--dir", type=Path, help="the folder to race in (default: a new temporary folder)")
    parser.add_argument("--role", choices=("writer", "editor"), help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.role:
        path, seconds, log = options.args
        (writer if options.role == "writer" else editor)(Path(path), float(seconds), Path(log))
        return
    if options.dir:
        options.dir.mkdir(parents=True, exist_ok=True)
        print(json.dumps(race(options.dir, options.seconds)))
        return
    with tempfile.TemporaryDirectory(prefix="save-race-") as folder:
        print(json.dumps(race(Path(folder), options.seconds)))


if __name__ == "__main__":
    main()
