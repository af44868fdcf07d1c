"""One self-contained HTML page per sheet, or per change: what `supersheet report`
writes and `Sheet.report` returns, for reviewers who will not install anything.

The page holds the sheet's title and doc; every cell with its value, unit,
formula, doc and source; its checks and assumptions with their verdicts; its
expectations (`supersheet test`); each named sweep as a chart and a table; and,
against a git revision, the diff (changed inputs, the outputs they moved) with
each sweep's chart before and after. Everything is inline — styles, and the
charts as SVG — so the page needs no network and no JavaScript, and prints.
Every value is escaped; nothing of the sheet runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from .compare import diff_files
from .errors import RequestError, SheetError
from .html import diff_html, frame_rows, table
from .loading import checked_workbook
from .plots import OUTSIDE, PlotError, PlotRequest, chart, svg_of, write_output
from .reports import test
from .sweeps import SweepSetup
from supersheet.engine.base.project import shown_path
from supersheet.engine.present.headers import split_header

if TYPE_CHECKING:
    from supersheet.engine.workbook import Workbook

    from .handle import SheetHandle

__all__ = ["SWEEP_ROWS", "changed_charts", "report_html", "write_report"]

SWEEP_ROWS = 50        # rows of a sweep's table on the page (the chart shows them all)

STYLE = """
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 72em;
       color: #1b1f24; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #d0d7de; }
.doc { white-space: pre-wrap; color: #424a53; } .meta { color: #57606a; font-size: .9em; }
table.supersheet { border-collapse: collapse; margin: 1em 0; width: 100%; }
table.supersheet th, table.supersheet td { border: 1px solid #d0d7de; padding: .25em .5em; text-align: left;
       vertical-align: top; }
table.supersheet caption { text-align: left; font-weight: 600; padding: .3em 0; }
table.supersheet thead th { background: #f6f8fa; }
td.fail, .fail { color: #b42318; font-weight: 600; } td.pass, .pass { color: #1a7f37; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
.pair { display: flex; gap: 1em; flex-wrap: wrap; } .pair figure { flex: 1 1 30em; }
@media print { h2 { break-before: auto; } figure, table { break-inside: avoid; } }
"""


@dataclass(frozen=True)
class _Sweep:
    name: str
    spec: dict | None   # its chart's Vega-Lite spec (None when it has nothing to chart)
    table: str
    note: str = ""

    @property
    def chart(self) -> str:
        """The chart as inline SVG ('' when there is none)."""
        return svg_of(self.spec) if self.spec is not None else ""


def report_html(sheet: SheetHandle, revision: str | None = None) -> str:
    """The page of `sheet` (with the inputs set on it); with `revision`, its change since then."""

    workbook = sheet.written_workbook
    specs = {key: cell.set_by or cell.spec for key, cell in workbook.model.cells.items()}
    records = sheet.records()
    cells = [r for r in records if r["kind"] not in ("check", "assume")]
    verdicts = [r for r in records if r["kind"] in ("check", "assume")]
    parts = [f"<h1>{escape(sheet.title or sheet.path.name)}</h1>",
             f'<p class="meta">{escape(shown_path(sheet.path))}'
             + (f" — against {escape(revision)}" if revision else "") + "</p>"]
    doc = workbook.model.root.doc if workbook.model.root is not None else ""
    if doc:
        parts.append(f'<p class="doc">{escape(doc.strip())}</p>')
    if revision:
        parts += _changes(sheet, revision)
    parts.append("<h2>Cells</h2>")
    parts.append(table(("cell", "value", "unit", "formula", "doc", "source"),
                       [(r["name"], _value(r), r.get("unit") or "", r.get("formula", ""),
                         _spec(specs, r["name"], "doc"), _spec(specs, r["name"], "source")) for r in cells]))
    if verdicts:
        parts.append("<h2>Checks and assumptions</h2>")
        parts.append(_verdict_table(verdicts))
    expectations = test(sheet.path)
    if expectations.verdicts:
        parts.append(f"<h2>Expectations: {expectations.passed} passed, {expectations.failed} failed</h2>")
        parts.append(_marked_table(("expectation", "expected", "computed", "line", "verdict"),
                                   [(v.target, v.expected, v.actual, v.line, "pass" if v.passed else "FAIL")
                                    for v in expectations.verdicts]))
    for sweep in _sweeps(workbook):
        parts.append(f"<h2>Sweep {escape(sweep.name)}</h2>")
        if sweep.note:
            parts.append(f'<p class="meta">{escape(sweep.note)}</p>')
        if sweep.chart:
            parts.append(f"<figure>{sweep.chart}</figure>")
        parts.append(sweep.table)
    body = "\n".join(parts)
    title = escape(sheet.title or sheet.path.name)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<style>{STYLE}</style></head>\n'
            f"<body>\n{body}\n</body></html>\n")


def write_report(sheet: SheetHandle, output: str | Path, revision: str | None = None, force: bool = False) -> Path:
    """Write the page to `output` (as every output is written: whole or not at all; a read-only
    file only when `force`)."""
    output = Path(output)
    write_output(output, report_html(sheet, revision).encode(), force)
    return output


def _value(record: dict) -> str:
    return record.get("error") or record.get("display", "")


def _spec(specs: dict, name: str, field: str) -> str:
    spec = specs.get(name)
    return (getattr(spec, field, None) or "").strip() if spec is not None else ""


def _verdict_table(records: list[dict]) -> str:
    rows = []
    for r in records:
        kind = "check" if r["kind"] == "check" else "assumption"
        holds = r.get("value") is True
        verdict = "holds" if holds else ("FAILS" if kind == "check" else "OUTSIDE the model")
        rows.append((r["name"], kind, r.get("formula", ""), verdict))
    return _marked_table(("name", "kind", "condition", "verdict"), rows)


def _marked_table(headers: tuple[str, ...], rows: list[tuple]) -> str:
    """A table whose last column is a verdict, coloured (pass green, anything else red)."""
    html = table(headers, rows)
    for verdict, css in (("pass", "pass"), ("holds", "pass"), ("FAIL", "fail"), ("FAILS", "fail"),
                         ("OUTSIDE the model", "fail")):
        html = html.replace(f"<td>{verdict}</td></tr>", f'<td class="{css}">{verdict}</td></tr>')
    return html


def _sweeps(workbook: Workbook) -> list[_Sweep]:
    """Each named sweep of the sheet: its chart (its `plot:`, else its first axis against its first
    shown cell, a line per value of its second axis) and its first rows."""
    out = []
    for name in SweepSetup.of_workbook(workbook).sweeps:
        setup = SweepSetup.of_workbook(workbook, name)
        try:
            frame = setup.plan().frame()
        except SheetError as e:      # one sweep that cannot run is said; the page goes on
            out.append(_Sweep(name, None, "", f"not run: {e}"))
            continue
        request = _request(setup, frame)
        spec, note = None, ""
        if request is not None:
            try:
                spec = chart(frame, request)
            except PlotError as e:
                note = f"no chart: {e}"
        headers, rows = frame_rows(frame.head(SWEEP_ROWS))
        more = f" (the first {SWEEP_ROWS} of {frame.height:,})" if frame.height > SWEEP_ROWS else ""
        out.append(_Sweep(name, spec, table(headers, rows, f"{frame.height:,} rows{more}"), note))
    return out


def _request(setup, frame) -> PlotRequest | None:

    defaults = setup.plot_defaults
    if defaults is not None:
        return PlotRequest(defaults.x, defaults.y, defaults.color, defaults.facet, defaults.log_x, defaults.log_y,
                           defaults.title or setup.title, tuple(setup.checks))
    axes = [a.name for a in setup.spec.grid.axes]
    names = [split_header(c)[0] for c in frame.columns if split_header(c)[1] != "error" and c != OUTSIDE]
    shown = [n for n in names if n not in axes and frame[_header(frame, n)].dtype.is_numeric()]
    if not axes or not shown or not frame[_header(frame, axes[0])].dtype.is_numeric():
        return None
    return PlotRequest(axes[0], (shown[0],), axes[1] if len(axes) > 1 else None, title=setup.title,
                       checks=tuple(setup.checks))


def _header(frame, name: str) -> str:
    return next(c for c in frame.columns if split_header(c)[0] == name)


def _changes(sheet: SheetHandle, revision: str) -> list[str]:
    """The diff against `revision`, and each sweep's chart before and after."""
    from supersheet.engine.diff.gitrev import GitError, commit_of, repo_path, repo_root   # deferred: engine.diff.gitrev (slow to import)

    path = sheet.path.resolve()
    try:
        root = repo_root(path.parent)
        commit = commit_of(revision, root)
    except GitError as e:
        raise RequestError(f"git: {e}") from None
    relative = Path(repo_path(path, root)).as_posix()
    diffs = diff_files(f"{revision}:{relative}", str(path), cwd=root)
    parts = [f"<h2>Changes since {escape(revision)} ({escape(commit[:7])})</h2>"]
    parts += [diff_html(d.result) for d in diffs] or ["<p>No differences.</p>"]
    try:
        before = {s.name: s for s in _sweeps_at(revision, path)}
    except SheetError as e:      # the old version does not check: its diff above says so; no old charts
        before = {}
        parts.append(f'<p class="meta">{escape(f"the sheet at {revision} does not check: {e}")}</p>')
    for now in _sweeps(sheet.written_workbook):
        old = before.get(now.name)
        if old is not None and old.spec is not None and now.spec is not None and old.spec != now.spec:
            parts.append(f"<h3>Sweep {escape(now.name)}: before and after</h3>")
            parts.append(f'<div class="pair"><figure>{old.chart}<figcaption>{escape(revision)}</figcaption></figure>'
                         f"<figure>{now.chart}<figcaption>now</figcaption></figure></div>")
    return parts


def _sweeps_at(revision: str, path: Path) -> list[_Sweep]:
    """The sweeps of the sheet at `path` as it was at a git revision (with that revision's imports)."""
    from supersheet.engine.diff.gitrev import GitError, commit_of, repo_path, repo_root, snapshot   # deferred: engine.diff.gitrev (slow to import)

    try:
        root = repo_root(path.parent)
        commit = commit_of(revision, root)
    except GitError as e:
        raise RequestError(f"git: {e}") from None
    snap = snapshot(commit, root)
    try:
        old = snap.path_of(Path(repo_path(path, root)).as_posix())
        return _sweeps(checked_workbook(old)) if old.exists() else []
    finally:
        snap.close()


def changed_charts(path: str | Path, old: str | Path | None = None, revision: str | None = None) -> list[tuple]:
    """The sweeps of the sheet at `path` whose chart differs from its old version (the file `old`,
    or the sheet at git `revision`): (sweep, old spec or None, new spec or None), in the sheet's order."""
    path = Path(path).resolve()
    try:
        now = {s.name: s for s in _sweeps(checked_workbook(path))} if path.exists() else {}
    except SheetError:
        now = {}
    try:
        before = {s.name: s for s in (_sweeps(checked_workbook(old)) if old is not None else _sweeps_at(revision or "HEAD", path))}
    except SheetError:
        before = {}
    out = []
    for name in dict.fromkeys([*now, *before]):
        a, b = before.get(name), now.get(name)
        a_spec, b_spec = (a.spec if a else None), (b.spec if b else None)
        if (a_spec or b_spec) and a_spec != b_spec:
            out.append((name, a_spec, b_spec))
    return out
