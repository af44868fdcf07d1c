"""The editor's resample process: `python -P -m supersheet.editor.sample_worker`,
started by sample_process.py, samples the sheets the editor sends it (one at a
time, in the order sent) and sends back what it found (sample_wire.py).

It runs the same engine code as the editor's thread would (sample.py: the text
loaded and checked as saved at its path, its imports resolved beside it and
read from the texts the editor read of them, under the editor's load limits,
then sampled), in its own interpreter: the editor's UI thread never waits for the
interpreter lock while a resample runs. It reads nothing but its pipe (and the
files of imports the editor has not read), and stops when the pipe closes (the
editor exited, or died).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    # The protocol has stdout to itself: anything else printed goes to stderr
    # (which the editor keeps, to say why this process stopped if it does).
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer

    from supersheet.editor.baselines import workbook_from_text   # deferred: ruamel
    from supersheet.editor.sample import sampling   # deferred: polars, numpy, ruamel
    from supersheet.editor.sample_wire import Reply, Request, WireClosed, digest, read_message, write_message   # deferred: polars, numpy, ruamel
    from supersheet.engine.base.limits import set_limits   # deferred: engine.base.limits (slow to import)

    while True:
        try:
            request = Request.decode(read_message(requests, 1)[0])
        except WireClosed:
            return     # the editor is gone
        try:
            set_limits(**request.limits)
            found = sampling(workbook_from_text(Path(request.path), request.text, request.imported))
        except Exception as e:  # noqa: BLE001 - a sheet that cannot be loaded is reported, never fatal here
            found = (None, f"cannot sample: {type(e).__name__}: {e}")
        try:
            about = digest(request.path, request.text, request.imported)
            write_message(replies, *Reply(request.number, about, found).encode())
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
