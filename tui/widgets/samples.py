"""How the editor shows a sheet's samples (supersheet.editor.sample): the range
beside an uncertain value in the grid, and in the inspector a histogram of
the selected cell's samples and the draws that drive it, ranked by rank
correlation. Presentation only."""
from __future__ import annotations

from rich.text import Text

from supersheet.editor.document import Document
from supersheet.editor.sample import Histogram, Samples
from supersheet.units import format_number

from .render import ERROR_STYLE

BARS = " ▁▂▃▄▅▆▇█"
EIGHTHS = " ▏▎▍▌▋▊▉█"
HISTOGRAM_STYLE = "magenta"
LABEL_WIDTH = 9
NUM = "#NUM"      # what the CLI's report shows for a statistic without a finite value


def range_text(document: Document, key: str, samples: Samples | None) -> Text:
    """`≈ 30.21 ms (26.17 … 35.07)`: an uncertain cell's mean (p5 … p95) over
    the samples (the grid dims it while they are recomputed after an edit)."""
    if samples is None or samples.sampled is None:
        return Text("")
    record = samples.record(key)
    if record is not None:
        digits = samples.digits(key)
        mean, p5, p95 = (statistic(record, s, digits) for s in ("mean", "p5", "p95"))
        text = Text(f"≈ {mean}" + (f" {record['unit']}" if record["unit"] and record["mean"] is not None else ""))
        text.append(f" ({p5} … {p95})", style="dim")
        if record.get("error_samples"):
            text.append(f" {record['error_samples']} errors", style=ERROR_STYLE)
    elif (rate := samples.pass_rate(key)) is not None:
        verb = "pass" if document.cell(key).kind == "check" else "true"
        text = Text(f"{verb} in {format_number(rate * 100, 3)}% of samples")
    elif key in samples.uncertain:
        text = Text("random", style="dim")
    elif (reduced := samples.reduced_text(key)) is not None:
        text = Text(f"= {reduced} over samples")
    else:
        return Text("")
    return text


def samples_text(document: Document, key: str, samples: Samples | None, width: int = 40) -> Text | None:
    """The inspector's part for an uncertain cell: the statistics, a histogram
    and the sensitivity ranking (None for a cell that depends on no draw)."""
    if samples is None:
        return None
    if samples.sampled is None:
        return Text(f"samples: {samples.error}", style="yellow") if samples.error else None
    sampled = samples.sampled
    if key not in samples.uncertain:
        return None
    text = Text()
    _row(text, "samples", f"{sampled.samples:,} (seed {sampled.seed})")
    record = samples.record(key)
    if record is None:
        rate = samples.pass_rate(key)
        _row(text, "holds", f"in {format_number(rate * 100, 3)}% of samples" if rate is not None
             else "an array of random values (no histogram)")
        return text
    unit = f" {record['unit']}" if record["unit"] and record["mean"] is not None else ""
    digits = samples.digits(key)
    mean, p5, p50, p95 = (statistic(record, s, digits) for s in ("mean", "p5", "p50", "p95"))
    _row(text, "mean", f"{mean}{unit}")
    _row(text, "p5 … p95", f"{p5} … {p95}{unit}  (p50 {p50})")
    if record.get("error_samples"):
        _row(text, "errors", f"{record['error_samples']} samples", style=ERROR_STYLE)
    histogram = samples.histogram(key, width // 2)
    if histogram is not None:
        text.append("\n")
        text.append_text(histogram_text(histogram, record, width))
    text.append("\n")
    text.append_text(drivers_text(samples, key, width))
    return text


def histogram_text(histogram: Histogram, record: dict, width: int, height: int = 3) -> Text:
    """Bars of the counts, a baseline with the mean (●) and p5, p95 (┴) marked,
    and the range's ends."""
    bins = len(histogram.counts)
    step = max(1, width // bins)     # each bin this many characters wide
    top = max(histogram.counts) or 1
    text = Text()
    for level in range(height - 1, -1, -1):
        for count in histogram.counts:
            eighths = round(count / top * height * 8) - level * 8
            text.append(BARS[max(0, min(8, eighths))] * step, style=HISTOGRAM_STYLE)
        text.append("\n")
    axis = ["─"] * (bins * step)
    for name, mark in (("p5", "┴"), ("p95", "┴"), ("mean", "●")):
        if record[name] is not None:    # a statistic that overflowed (#NUM) has no place on the axis
            axis[histogram.position(record[name]) * step + step // 2] = mark
    text.append("".join(axis) + "\n", style="dim")
    lo = f"p1 {histogram.label(histogram.lo)}"
    hi = f"p99 {histogram.label(histogram.hi)}" + (f" {histogram.unit}" if histogram.unit else "")
    text.append(lo + " " * max(1, bins * step - len(lo) - len(hi)) + hi + "\n", style="dim")
    return text


def drivers_text(samples: Samples, key: str, width: int) -> Text:
    """The draws a cell depends on, by Spearman's rank correlation with it."""
    drivers = samples.drivers(key)
    text = Text("driven by (rank correlation)\n", style="bold")
    if not drivers:
        why = ("it holds a draw; no other scalar draw upstream" if samples.is_draw(key)
               else "no scalar draw upstream (array draws are not ranked)")
        text.append(f"  {why}\n", style="dim")
        return text
    name_width = min(18, max(len(d.draw) for d in drivers))
    bar_width = max(4, width - name_width - 10)
    for influence in drivers:
        rho = influence.rank_correlation
        text.append(f"  {influence.draw[:name_width]:<{name_width}} ")
        text.append(f"{'+' if rho >= 0 else '−'}{abs(rho):.2f} ")
        text.append(_bar(abs(rho), bar_width) + "\n", style=HISTOGRAM_STYLE)
    return text


def statistic(record: dict, name: str, digits: int) -> str:
    """A statistic of `uncertain_record` as shown: #NUM where no sample had a
    finite value (every sample an error, or a mean that overflowed)."""
    value = record[name]
    return NUM if value is None else format_number(value, digits)


def _bar(share: float, width: int) -> str:
    eighths = round(share * width * 8)
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def _row(text: Text, label: str, value: str, style: str = "") -> None:
    text.append(f"{label:<{LABEL_WIDTH}}", style="dim")
    text.append(value + "\n", style=style)

