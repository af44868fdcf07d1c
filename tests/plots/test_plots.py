"""Charts of sweeps (supersheet.plots, `supersheet plot`, `Sheet.plot`): the units on
the axes, gaps and marks where a value is not to be trusted, binning beyond what a
chart shows, byte-identical SVG, and the library's default plots as snapshots."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from syrupy.extensions.image import SVGImageSnapshotExtension

import supersheet as ss
from supersheet.cli.main import main
from supersheet.plots import BINS, MAX_POINTS, PlotError, PlotRequest, chart, render
from supersheet.sweeps import SweepSetup
from repo_paths import REPO

SUPERNODES = REPO / "sheets" / "supernodes"

LIBRARY_PLOTS = [   # (sheet, sweep, the axis titles the chart must carry)
    ("6.2.2-qwen3-32b-decode-step.yaml", "step_vs_context", ("s [token]", "step [ms]", "tp")),
    ("6.5.1-torus-vs-switched.yaml", "hops_vs_size", ("k", "torus_max_hops, switched_links")),
    ("6.2.5-pipeline-utilisation.yaml", "utilisation_curve", ("micro_batches", "utilisation [%]")),
]


def sweep_frame(sheet: Path | str, name: str | None = None, vary: tuple[str, ...] = (), show=None):
    setup = SweepSetup(ss.load(sheet), name)
    for text in vary:
        setup.vary(setup.parse_axis(text))
    if show:
        setup.show(show)
    return setup.plan().frame(), setup


def layers(spec: dict) -> list[dict]:
    return spec["layer"] if "layer" in spec else spec["spec"]["layer"]


@pytest.mark.parametrize("sheet,sweep,titles", LIBRARY_PLOTS, ids=[s for _, s, _ in LIBRARY_PLOTS])
def test_library_plots_carry_units_and_stay_byte_identical(tmp_path: Path, snapshot, sheet, sweep, titles) -> None:
    out = tmp_path / "chart.svg"
    assert main(["plot", str(SUPERNODES / sheet), sweep, "-o", str(out)]) == 0
    svg = out.read_text()
    for title in titles:
        assert f">{title}</text>" in svg.replace("&#39;", "'"), title
    again = tmp_path / "again.svg"
    assert main(["plot", str(SUPERNODES / sheet), sweep, "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()
    assert out.read_bytes() == snapshot(extension_class=SVGImageSnapshotExtension)


def test_error_values_and_rows_outside_the_assumptions_are_gaps_and_marked(tmp_path: Path) -> None:
    sheet = tmp_path / "gaps.yaml"
    sheet.write_text("title: gaps\ncells:\n  x: 1\n  y: = 10 ms / (x - 3)\n  ok: = y < 8 ms\n"
                     "assume:\n  small: x <= 6\nchecks:\n  fast: y < 4 ms\n")
    frame, setup = sweep_frame(sheet, vary=("x=1,2,3,4,5,6,7,8",), show=["y", "fast"])
    spec = chart(frame, PlotRequest("x", ("y",), checks=tuple(setup.checks)))
    line, *marks = layers(spec)
    values = {row["x"]: row["y"] for row in line["data"]["values"]}
    assert values[3] is None and values[7] is None and values[8] is None        # #DIV/0; outside `small`
    assert values[4] == pytest.approx(10.0) and values[5] == pytest.approx(5.0)
    rule = next(m for m in marks if m["mark"]["type"] == "rule")
    reasons = {row["x"]: row["problem"] for row in rule["data"]["values"]}
    assert reasons[3].startswith("y: #DIV/0") and "small" in reasons[7] and set(reasons) == {3, 7, 8}
    cross = next(m for m in marks if m["mark"]["type"] == "point")
    assert sorted(row["x"] for row in cross["data"]["values"]) == [4, 5]     # `fast` fails there (y >= 4 ms)
    assert any("gaps" in note for note in spec["title"]["subtitle"])


def test_a_check_failing_in_every_row_is_said_once_not_marked_on_every_point(tmp_path: Path) -> None:
    frame, setup = sweep_frame(SUPERNODES / "6.1.2-running-example.yaml", vary=("cards=8,16,32",),
                               show=["max_sessions", *SweepSetup(ss.load(SUPERNODES / "6.1.2-running-example.yaml")).checks])
    assert frame["outside [assumptions]"].null_count() == 3   # whole heads at 8, 16, 32 cards: no gaps
    spec = chart(frame, PlotRequest("cards", ("max_sessions",), checks=tuple(setup.checks)))
    assert "fails in every row: fits_one_card" in spec["title"]["subtitle"]
    assert all(m["mark"]["type"] != "point" for m in layers(spec)[1:])


def test_more_rows_than_a_chart_shows_are_binned_and_the_chart_says_so() -> None:
    frame, _ = sweep_frame(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml",
                           vary=("tp=1,8", "s=1024token..131072token:5000"), show=["step"])
    assert frame.height > MAX_POINTS
    spec = chart(frame, PlotRequest("s", ("step",), color="tp"))
    area, line = layers(spec)[:2]
    assert area["mark"]["type"] == "area" and len(line["data"]["values"]) <= 2 * BINS
    assert "10,000 rows in" in spec["title"]["subtitle"][0]
    tp1 = [r for r in line["data"]["values"] if r["series"] == "1"]
    assert all(r["lo"] <= r["y"] <= r["hi"] for r in tp1)
    assert tp1[0]["y"] == pytest.approx(frame.filter(frame["tp"] == 1)["step [ms]"].head(int(tp1[0]["rows"])).mean())


def test_cells_of_different_units_are_refused_and_the_cli_says_so(tmp_path: Path, capsys) -> None:
    frame, _ = sweep_frame(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml", vary=("tp=1,2",), show=["step", "kv_read"])
    with pytest.raises(PlotError, match="one unit"):
        chart(frame, PlotRequest("tp", ("step", "kv_read")))
    code = main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "--vary", "tp=1,2", "--x", "tp",
                 "--y", "step,kv_read", "-o", str(tmp_path / "x.svg")])
    assert code == 2 and "one unit" in capsys.readouterr().err and not (tmp_path / "x.svg").exists()
    assert main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "--vary", "tp=1,2", "--x", "nope",
                 "--y", "step", "-o", str(tmp_path / "x.svg")]) == 2
    assert main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "tp_table", "--x", "tp",
                 "--y", "step", "-o", str(tmp_path / "x.txt")]) == 2


def test_a_plot_key_of_the_wrong_shape_is_a_located_diagnostic(tmp_path: Path, capsys) -> None:
    sheet = tmp_path / "bad.yaml"
    sheet.write_text("title: t\ncells:\n  a: 1\n  b: = a * 2\nsweeps:\n  s:\n    vary: {a: [1, 2]}\n"
                     "    plot: {x: a, colour: a}\n")
    assert main(["check", str(sheet)]) == 2
    err = capsys.readouterr().err
    assert f"{sheet}:8:5: E-SHEET: sweep 's': its plot needs x and y" in err


def test_html_and_png_outputs_and_the_api(tmp_path: Path) -> None:
    sheet = ss.load(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml")
    figure = sheet.plot("step_vs_context")
    spec = figure.to_dict()
    assert spec["title"]["text"].startswith("Decode step against context")
    html = render(spec, "html").decode()
    assert "<svg" in html and "<script src" not in html and json.loads(
        html.split('application/vnd.vegalite+json">')[1].split("</script>")[0])["title"] == spec["title"]
    assert render(spec, "png")[:8] == b"\x89PNG\r\n\x1a\n"
    ad_hoc = sheet.plot(x="tp", y="step", tp=[1, 2, 4, 8]).to_dict()
    (line,) = [layer for layer in ad_hoc["layer"] if layer["mark"]["type"] == "line"]
    assert [round(r["y"], 2) for r in line["data"]["values"]] == [29.35, 14.89, 7.97, 5.15]    # as tp_table expects


def png_pixels(png: bytes):
    """An 8-bit RGBA or RGB PNG (vl-convert's) as a height x width x channels array: its IDAT
    chunks inflated and each row's filter (PNG spec 9.2) undone."""
    import struct
    import zlib

    import numpy as np

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data, header = 8, b"", b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + length]
        header = body if kind == b"IHDR" else header
        data += body if kind == b"IDAT" else b""
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 4 if colour == 6 else 3
    raw = np.frombuffer(zlib.decompress(data), dtype=np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), dtype=np.int32)
    for r in range(height):
        kind, line = raw[r, 0], raw[r, 1:].astype(np.int32)
        up = out[r - 1] if r else np.zeros_like(line)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + up) % 256
        else:      # Sub, Average, Paeth: each byte depends on the one a pixel to its left
            row = np.zeros_like(line)
            for i in range(len(line)):
                left = row[i - channels] if i >= channels else 0
                corner = up[i - channels] if i >= channels else 0
                if kind == 1:
                    predicted = left
                elif kind == 3:
                    predicted = (left + up[i]) // 2
                else:
                    p = left + up[i] - corner
                    pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
                    predicted = left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner
                row[i] = (line[i] + predicted) % 256
        out[r] = row
    return out.reshape(height, width, channels)


def test_a_long_title_is_wrapped_whole_inside_the_picture(tmp_path: Path) -> None:
    """The decode-step sheet's title (124 characters) was drawn on one line, centred over the
    plot and wider than the picture: the PNG cut its end. Wrapped at words, every line is inside
    the picture with a margin on both sides; SVG and HTML carry the same lines."""
    long = "One decode step of a 128K Qwen3-32B session under TP1/2/4/8 - Eq. (6-4), (6-5) with ring AllReduce (6-9) (Sec. 6.2.2, 6.4.2)"
    assert ss.load(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml").title == long
    out = tmp_path / "step.png"
    assert main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "--vary", "tp=1,2,4,8", "--x", "tp",
                 "--y", "step", "-o", str(out)]) == 0
    pixels = png_pixels(out.read_bytes())
    ink = (pixels[..., :3].min(axis=2) < 128) & (pixels[..., 3] > 128 if pixels.shape[2] == 4 else True)
    rows = ink.any(axis=1)
    first = int(rows.argmax())
    band_end = first + int((~rows[first:]).argmax())     # the title's first line: ink down to a blank row
    columns = ink[first:band_end].any(axis=0).nonzero()[0]
    margin = 24     # pixels at scale 2: Vega pads 5 px, and the cut title's ink ran to 12 px of each edge
    assert columns.min() >= margin and columns.max() < ink.shape[1] - margin, (columns.min(), columns.max(), ink.shape)
    frame, setup = sweep_frame(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml", vary=("tp=1,2,4,8",))
    spec = chart(frame, PlotRequest(x="tp", y=("step",), title=long))
    lines = spec["title"]["text"]
    assert isinstance(lines, list) and " ".join(lines) == long and all(len(line) <= 80 for line in lines), lines
    svg = render(spec, "svg").decode()
    assert all(f">{line}</tspan>" in svg for line in lines), svg     # a line each
    html = render(spec, "html").decode()
    assert f"<title>{long}</title>" in html
    assert main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "--vary", "tp=1,2,4,8", "--x", "tp",
                 "--y", "step", "-o", str(tmp_path / "step.svg")]) == 0
    assert ">1 row fails a check: a red cross</text>" in (tmp_path / "step.svg").read_text()   # (it said "1 rows fail")
    short = chart(frame, PlotRequest(x="tp", y=("step",), title="A short title"))
    assert short["title"]["text"] == "A short title"     # one line: a plain string, as before


def test_a_facet_draws_each_panel_s_own_rows_and_marks(tmp_path: Path) -> None:
    """`--facet tp`: a panel per tp, each with its line of six points, and the red crosses where a
    check fails (tp = 8 only) in that panel. The layers had their data beside them, which a facet
    does not split: every panel was empty (the SVG held the titles and no mark)."""
    out = tmp_path / "facet.svg"
    assert main(["plot", str(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml"), "--vary", "tp=1,2,4,8",
                 "--vary", "s=4096token..131072token*2", "--x", "s", "--y", "step", "--facet", "tp", "--log-x",
                 "-o", str(out)]) == 0
    svg = out.read_text()
    lines = svg.count('aria-roledescription="line mark"')
    points = re.findall(r'aria-label="s \[token\]: (\d+); step \[ms\]: ([\d.]+)(; fails: \w+)?" role="graphics-symbol" '
                        r'aria-roledescription="point"', svg)
    plain = [p for p in points if not p[2]]
    crosses = [p for p in points if p[2]]
    assert lines == 4 and len(plain) == 24, (lines, len(plain))
    frame, _ = sweep_frame(SUPERNODES / "6.2.2-qwen3-32b-decode-step.yaml", vary=("tp=8", "s=4096token..131072token*2"))
    fastest = sorted(round(v, 3) for v in frame["step [ms]"].to_list())
    assert sorted(round(float(y), 3) for _, y, _ in crosses) == fastest, crosses    # tp = 8's six rows
