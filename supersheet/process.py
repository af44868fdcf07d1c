"""What a program that runs supersheet's commands may set up once for its process.

`clean_up_on_signals()`: the temporary files and folders of outputs being
written (`.NAME.….tmp` beside a `sweep -o` file, a Parquet dataset's
`.partial` staging folder) and of revisions being compared (`supersheet-rev-…`)
are removed when SIGINT, SIGTERM or SIGHUP stops the process. The `supersheet`
command calls it; a notebook or a service that handles these signals itself
need not (later runs remove what a killed one left, once it is stale:
docs/security.md).
"""
from __future__ import annotations

from supersheet.engine.base.stopping import clean_up_on_signals

__all__ = ["clean_up_on_signals"]
