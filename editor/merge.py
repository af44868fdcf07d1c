"""Keeping the user's unsaved edits on top of a file that changed on disk: a
three-way line merge (base: the file as it was read; ours: the unsaved text;
theirs: the file on disk now). Pure Python: no UI imports.

`roundtrip.merge` applies one side's line changes to the other text (and
refuses when it cannot place them). Applied both ways it gives the same text
exactly when the two sides' changes do not overlap; anything else is a
conflict, and the caller keeps both versions rather than guess.
"""
from __future__ import annotations

from supersheet.editor.roundtrip import Unmergeable, merge


def three_way(base: str, ours: str, theirs: str) -> str | None:
    """Our changes (base -> ours) and theirs (base -> theirs) in one text; None on a conflict."""
    if ours == base:
        return theirs
    if theirs == base or theirs == ours:
        return ours
    try:
        ours_on_theirs = merge(theirs, base, ours)
        theirs_on_ours = merge(ours, base, theirs)
    except Unmergeable:
        return None
    return ours_on_theirs if ours_on_theirs == theirs_on_ours else None
