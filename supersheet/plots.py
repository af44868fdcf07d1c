"""Charts of sweeps: what `supersheet plot`, `supersheet report`, `Sheet.plot` and
the diff's `--plots` draw, as Vega-Lite specs (plain dicts; altair wraps them for
notebooks) rendered to SVG/PNG by vl-convert (no browser, no network).

A chart is one or more cells (`y`) against one axis (`x`), a line per value of
another axis (`color`) and a panel per value of a third (`facet`). The units are
on the axes (`step [ms]`, `context [token]`). Rows whose value is an error
(`#DIV/0`, `#NUM`) or that lie outside the sheet's assumptions are gaps in the
line and are marked (a red rule at their x, with the reason in its tooltip);
rows where a check shown in the sweep fails carry a red cross. A sweep of more
rows than a chart can show (`MAX_POINTS`) is drawn binned: each point is the
mean of the rows in its x-bin, a band spans their min to max, and the chart's
subtitle says so.

Deterministic: the same rows give the same spec and byte-identical SVG, so
charts can be committed and snapshot-tested.
"""
from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from supersheet.engine.present.headers import error_header, split_header

if TYPE_CHECKING:
    import altair as alt
    import polars as pl


__all__ = ["MAX_POINTS", "PlotError", "PlotRequest", "as_altair", "chart", "render", "save"]

MAX_POINTS = 4000          # drawn as they are up to this many rows; binned beyond
BINS = 400                 # x-bins per line when binned
OUTSIDE = "outside [assumptions]"
FORMATS = ("svg", "png", "html")
WIDTH, HEIGHT = 560, 320
# Characters of a title line (bold, ~6.1 px a character) and of a subtitle line (~5.5 px) that
# fit over the plot: Vega draws a title on one line, centred, and cuts what passes the picture's
# edges (the library's longest sheet title lost its end), so a longer one is wrapped at words.
TITLE_CHARS, SUBTITLE_CHARS = 80, 95
RED = "#d62728"
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"   # a name only: nothing is fetched
VL_VERSION = "v5.21"     # the Vega-Lite that renders (vl-convert bundles it): pinned, so output stays byte-identical
OFFLINE: list[str] = []  # vl-convert's allowed base URLs: none (the data are inline)


class PlotError(ValueError):
    """A plot that cannot be drawn as asked (a name that is not a column, units that differ)."""


@dataclass(frozen=True)
class PlotRequest:
    x: str
    y: tuple[str, ...]
    color: str | None = None
    facet: str | None = None
    log_x: bool = False
    log_y: bool = False
    title: str = ""
    checks: tuple[str, ...] = field(default=())     # the sheet's checks (boolean columns marked when false)


@dataclass(frozen=True)
class _Columns:
    """The frame's columns by cell name: header, unit."""
    headers: dict[str, str]
    units: dict[str, str | None]

    @classmethod
    def of(cls, frame: pl.DataFrame) -> _Columns:
        headers, units = {}, {}
        for column in frame.columns:
            name, unit = split_header(column)
            if unit != "error" and column != OUTSIDE:
                headers[name], units[name] = column, unit
        return cls(headers, units)

    def header(self, name: str, role: str) -> str:
        if name not in self.headers:
            known = ", ".join(self.headers)
            raise PlotError(f"{role} {name!r} is not a column of the sweep (its columns: {known}); "
                            "vary it (--vary) or show it (--show)")
        return self.headers[name]


def chart(frame: pl.DataFrame, request: PlotRequest) -> dict[str, Any]:
    """The Vega-Lite spec of a sweep's chart (`frame`: columns headed `name [unit]`, as a sweep
    gives them). A plain dict: altair (`as_altair`) only wraps it for a notebook, so the
    command never imports altair (~0.5 s of CPU)."""
    import polars as pl   # deferred: polars

    columns = _Columns.of(frame)
    x = columns.header(request.x, "--x")
    ys = [columns.header(y, "--y") for y in request.y]
    units = {columns.units[y] for y in request.y}
    if len(units) > 1:
        shown = ", ".join(f"{y} [{columns.units[y] or 'number'}]" for y in request.y)
        raise PlotError(f"the cells on one y axis need one unit: {shown}; plot them separately")
    by = [columns.header(g, role) for g, role in ((request.color, "--color"), (request.facet, "--facet")) if g]
    checks = _check_columns(frame, request, columns)
    gaps, failed = _gaps(frame, request), _failed_checks(frame, checks)
    long = pl.concat([
        frame.select(pl.col(x).alias("x"), pl.col(y).cast(pl.Float64, strict=False).alias("y"),
                     pl.lit(name).alias("cell"),
                     *[_as_text(frame, g).alias(f"g{i}") for i, g in enumerate(by)],
                     gaps.alias("problem"), failed.alias("failed"))
        for name, y in zip(request.y, ys)])
    long = long.with_columns(pl.when(pl.col("problem").is_null()).then(pl.col("y")).alias("y"))
    series = [pl.col("g0")] if request.color else []
    if len(ys) > 1:
        series.append(pl.col("cell"))
    if series:
        long = long.with_columns(pl.concat_str(series, separator=" / ").alias("series"))
    y_unit = next(iter(units))
    y_title = ", ".join(request.y) + (f" [{y_unit}]" if y_unit else "")
    notes = []
    binned = long.height > MAX_POINTS
    if binned:
        long, note = _binned(long, request.log_x, len(by))
        notes.append(note)
    marked = long.filter(pl.col("problem").is_not_null())
    failing = long.filter(pl.col("failed").is_not_null() & pl.col("y").is_not_null())
    unit = "bin" if binned else "row"
    if marked.height:
        notes.append(f"{marked.height:,} {unit} holds an error value or lies outside the assumptions: a gap, a red rule"
                     if marked.height == 1 else
                     f"{marked.height:,} {unit}s hold an error value or lie outside the assumptions: gaps, red rules")
    if failing.height:
        notes.append(f"1 {unit} fails a check: a red cross" if failing.height == 1 else
                     f"{failing.height:,} {unit}s fail a check: red crosses")
    always = [check for check, header in checks.items() if frame.height and not frame[header].any()]
    if always:
        notes.append(f"fails in every row: {', '.join(always)}")
    scale_x = {"type": "log", "nice": False} if request.log_x else {"zero": False}
    scale_y = {"type": "log"} if request.log_y else {"zero": True}
    x_enc = {"field": "x", "type": "quantitative", "title": x, "scale": scale_x}
    y_enc = {"field": "y", "type": "quantitative", "title": y_title, "scale": scale_y}
    legend = _legend(request, columns, len(ys))
    color = {"color": {"field": "series", "type": "nominal", "title": legend, "sort": None}} \
        if "series" in long.columns else {}
    tooltip = [{"field": "x", "type": "quantitative", "title": x}, {"field": "y", "type": "quantitative", "title": y_title}]
    if color:
        tooltip.append({"field": "series", "type": "nominal", "title": legend})
    points = {"values": _records(long)}
    layers: list[dict[str, Any]] = []
    if binned:
        layers.append({"data": points, "mark": {"type": "area", "opacity": 0.2},
                       "encoding": {"x": x_enc, "y": {"field": "lo", "type": "quantitative"},
                                    "y2": {"field": "hi"},
                                    **({"color": {**color["color"], "legend": None}} if color else {})}})
    layers.append({"data": points, "mark": {"type": "line", "point": not binned, "invalid": "break-paths-show-domains"},
                   "encoding": {"x": x_enc, "y": y_enc, **color, "tooltip": tooltip}})
    if marked.height:
        # the filters pick the rows of the layer's data out of the points: a facet's layers share them
        layers.append({"data": {"values": _records(marked)}, "transform": [{"filter": "datum.problem != null"}],
                       "mark": {"type": "rule", "color": RED, "opacity": 0.5, "strokeDash": [3, 3]},
                       "encoding": {"x": x_enc, "tooltip": [tooltip[0], {"field": "problem", "type": "nominal",
                                                                          "title": "gap"}]}})
    if failing.height:
        layers.append({"data": {"values": _records(failing)},
                       "transform": [{"filter": "datum.failed != null && datum.y != null"}],
                       "mark": {"type": "point", "shape": "cross", "color": RED, "size": 20 if binned else 90,
                                "filled": True},
                       "encoding": {"x": x_enc, "y": y_enc, "tooltip": [tooltip[0], {"field": "failed", "type": "nominal",
                                                                                     "title": "fails"}]}})
    title: dict[str, Any] = {"text": _wrapped(request.title or f"{', '.join(request.y)} against {request.x}",
                                              TITLE_CHARS)}
    if notes:
        title["subtitle"] = [line for note in notes for line in _lines(note, SUBTITLE_CHARS)]
    size = {"width": WIDTH // 2 if request.facet else WIDTH, "height": HEIGHT}
    if request.facet:
        # a facet splits its own data, not its layers': every layer draws from the points (the
        # marks keep their rows by their filter); with their data beside them the panels were empty
        body = {"data": points, "facet": {"field": f"g{len(by) - 1}", "type": "nominal",
                                          "title": columns.headers[request.facet], "sort": None},
                "columns": 2, "spec": {"layer": [_without_data(layer) for layer in layers], **size}}
    else:
        body = {"layer": layers, **size}
    return {"$schema": SCHEMA, "title": title, **body, "config": {"view": {"strokeWidth": 0}}}


def _without_data(layer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in layer.items() if k != "data"}


def _wrapped(text: str, width: int) -> str | list[str]:
    """`text` as a title: itself when it fits on a line, else its lines (Vega-Lite draws a list as lines)."""
    lines = _lines(text, width)
    return lines[0] if len(lines) == 1 else lines


def _lines(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, broken at spaces only (`Qwen3-32B`,
    `TP1/2/4/8` stay whole; a word longer than a line is a line of its own)."""
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


def _gaps(frame: pl.DataFrame, request: PlotRequest) -> pl.Expr:
    """Why a row is a gap: its y cells' error codes, the assumptions it lies outside."""
    import polars as pl   # deferred: polars

    parts: list[pl.Expr] = []
    for y in request.y:
        if error_header(y) in frame.columns:
            parts.append(pl.when(pl.col(error_header(y)).is_not_null())
                         .then(pl.lit(f"{y}: ") + pl.col(error_header(y)).cast(pl.Utf8)))
    if OUTSIDE in frame.columns:
        parts.append(pl.when(pl.col(OUTSIDE).is_not_null()).then(pl.lit("outside: ") + pl.col(OUTSIDE).cast(pl.Utf8)))
    return _joined(parts)


def _check_columns(frame: pl.DataFrame, request: PlotRequest, columns: _Columns) -> dict[str, str]:
    """The sheet's checks that are columns of the sweep: name -> header."""
    import polars as pl   # deferred: polars

    return {check: header for check in request.checks
            if (header := columns.headers.get(check)) is not None and frame.schema[header] == pl.Boolean}


def _failed_checks(frame: pl.DataFrame, checks: dict[str, str]) -> pl.Expr:
    """The checks a row fails, among those that hold in some rows (its value is still drawn:
    a check is a verdict, not a gap). One that fails in every row is said once in the subtitle."""
    import polars as pl   # deferred: polars

    return _joined([pl.when(pl.col(header).not_()).then(pl.lit(check)) for check, header in checks.items()
                    if frame[header].any()])


def _joined(parts: list[pl.Expr]) -> pl.Expr:
    import polars as pl   # deferred: polars

    if not parts:
        return pl.lit(None, dtype=pl.Utf8)
    return pl.concat_str(parts, separator="; ", ignore_nulls=True).replace("", None)


def numeric_range(series: pl.Series) -> tuple[float, float] | None:
    """The least and the greatest of a column's values; None when it has no numbers."""
    lo, hi = series.min(), series.max()
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        return float(lo), float(hi)
    return None


def _binned(long: pl.DataFrame, log_x: bool, groups: int) -> tuple[pl.DataFrame, str]:
    """Each line's rows in BINS x-bins: the mean, min and max of their y (error rows left out of the
    statistics, and a bin marked when any of its rows is)."""
    import polars as pl   # deferred: polars

    span = numeric_range(long.filter(pl.col("x").is_not_null())["x"])
    lo, hi = span if span is not None else (0.0, 0.0)    # no x at all: every bin is null either way
    if log_x and lo > 0:
        position = (pl.col("x").log() - math.log(lo)) / max(math.log(hi) - math.log(lo), 1e-300)
    else:
        position = (pl.col("x") - lo) / max(hi - lo, 1e-300)
    keys = ["cell", *[f"g{i}" for i in range(groups)], *(["series"] if "series" in long.columns else []), "bin"]
    out = (long.with_columns((position * (BINS - 1)).round().cast(pl.Int64).alias("bin"))
           .group_by(keys, maintain_order=True)
           .agg(pl.col("x").mean().alias("x"), pl.col("y").mean().alias("y"), pl.col("y").min().alias("lo"),
                pl.col("y").max().alias("hi"), pl.col("problem").drop_nulls().first().alias("problem"),
                pl.col("failed").drop_nulls().first().alias("failed"),
                pl.len().alias("rows"))
           .sort(keys))
    rows = long.height
    return out, f"{rows:,} rows in {out.height:,} x-bins: each point is the mean of its bin's rows, the band their min to max"


def _as_text(frame: pl.DataFrame, column: str) -> pl.Expr:
    """A grouping column's values as labels: `4`, not `4.0`, for whole numbers."""
    import polars as pl   # deferred: polars

    values = frame[column]
    if values.dtype.is_float() and values.drop_nulls().is_finite().all() and (values.drop_nulls() % 1 == 0).all():
        return pl.col(column).cast(pl.Int64).cast(pl.Utf8)
    return pl.col(column).cast(pl.Utf8)


def _legend(request: PlotRequest, columns: _Columns, ys: int) -> str:
    if request.color:
        return columns.headers[request.color] + (" / cell" if ys > 1 else "")
    return "cell"


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows for the spec: floats rounded to 12 significant digits (a stable text), NaN as null."""
    out = []
    for row in frame.iter_rows(named=True):
        out.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                        float(f"{v:.12g}") if isinstance(v, float) else v) for k, v in row.items()})
    return out


def as_altair(spec: dict[str, Any]) -> alt.TopLevelMixin:
    """The chart as an altair object (Jupyter renders it; `.save`, `.properties` … work)."""
    import altair as alt   # deferred: altair, jsonschema
    return alt.Chart.from_dict(spec)


def render(spec: dict[str, Any], format: str) -> bytes:
    """The chart as SVG, PNG or a self-contained HTML page (the SVG inline, no script run)."""
    import vl_convert as vlc   # deferred: vl_convert

    if format == "svg":
        return svg_of(spec).encode()
    if format == "png":
        return vlc.vegalite_to_png(spec, VL_VERSION, scale=2, allowed_base_urls=OFFLINE)
    if format == "html":
        svg = svg_of(spec)
        title = spec.get("title", {}).get("text", "chart") if isinstance(spec.get("title"), dict) else "chart"
        title = " ".join(title) if isinstance(title, list) else title      # a title wrapped into lines
        data = json.dumps(spec, sort_keys=True).replace("</", "<\\/")
        return (f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{_escape(title)}</title></head>\n'
                f'<body>\n{svg}\n<script type="application/vnd.vegalite+json">{data}</script>\n</body></html>\n').encode()
    raise PlotError(f"cannot write a chart as {format!r}: use .svg, .png or .html")


def svg_of(spec: dict[str, Any]) -> str:
    """The chart as SVG text (inline in a report)."""
    import vl_convert as vlc   # deferred: vl_convert
    return vlc.vegalite_to_svg(spec, VL_VERSION, allowed_base_urls=OFFLINE)


def save(spec: dict[str, Any], path: str | Path, force: bool = False) -> Path:
    """Write the chart to `path` (its suffix says the format), through the project's safe writer
    (a regular file only; a read-only one only when `force`: docs/security.md)."""
    path = Path(path)
    format = path.suffix.lstrip(".").lower()
    if format not in FORMATS:
        raise PlotError(f"cannot tell the format of {str(path)!r}: name it .svg, .png or .html")
    write_output(path, render(spec, format), force)
    return path


def write_output(path: Path, data: bytes, force: bool = False) -> None:
    """`data` to `path` as every output of supersheet is written (a temp file beside it, renamed)."""
    from supersheet.engine.scenarios.output import OutputError, write_bytes   # deferred: polars, ruamel

    from .errors import RequestError   # deferred: errors (slow to import)
    try:
        write_bytes(path, data, force)
    except OutputError as e:
        raise RequestError(str(e)) from None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
