"""parse_unit: the units of the sheet format (section 3.4), factors, errors."""

from __future__ import annotations

import math
import time

import pytest

from supersheet.units import DIMENSIONLESS, Unit, UnitError, parse_unit

INFORMATION = (("information", 1.0),)
TIME = (("time", 1.0),)
RATE = (("information", 1.0), ("time", -1.0))


def factor(text: str) -> float:
    return parse_unit(text).factor


@pytest.mark.parametrize(
    ("text", "bytes_"),
    [
        ("B", 1), ("byte", 1), ("bit", 1 / 8), ("b", 1 / 8),
        ("kB", 1e3), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("PB", 1e15),
        ("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("TiB", 2**40), ("PiB", 2**50),
        ("Kib", 2**10 / 8), ("Gib", 2**30 / 8),
        ("Gb", 1e9 / 8), ("Gbit", 1e9 / 8), ("Mbit", 1e6 / 8), ("Tbit", 1e12 / 8), ("kbit", 125), ("Kbit", 125),
    ],
)
def test_information_units(text: str, bytes_: float) -> None:
    unit = parse_unit(text)
    assert unit.dimensions == INFORMATION
    assert unit.factor == pytest.approx(bytes_, rel=1e-15)


@pytest.mark.parametrize(("text", "gbit"), [("Gbps", 1), ("Mbps", 1e-3), ("Tbps", 1e3), ("Gbit/s", 1), ("Gb/s", 1)])
def test_bit_rates(text: str, gbit: float) -> None:
    unit = parse_unit(text)
    assert unit.dimensions == RATE
    assert unit.factor == pytest.approx(gbit * 1e9 / 8)


def test_facts_information() -> None:
    assert 470.2 * factor("GB") / factor("GiB") == pytest.approx(437.9, abs=0.05)
    assert 400 * factor("Gbit/s") == pytest.approx(50 * factor("GB/s"))
    assert 1 * factor("KB") == 1000 * factor("B")
    assert 2 * 94 * 4 * 128 * 2 * factor("B") == 188 * factor("KiB")


def test_micro_spellings() -> None:
    greek, micro_sign, ascii_ = parse_unit("μs"), parse_unit("µs"), parse_unit("us")
    assert "\u03bc" in "μs" and "\u00b5" in "µs"
    assert greek == micro_sign == ascii_
    assert greek.text == "μs" and greek.dimensions == TIME
    assert 0.822 * greek.factor == pytest.approx(0.822e-6)
    assert parse_unit("µm").text == "μm"
    assert parse_unit("GB/us").text == "GB/μs"


def test_text_keeps_user_spelling() -> None:
    assert parse_unit("GB/s").text == "GB/s"
    assert parse_unit("KB").text == "KB"
    assert parse_unit("GPU·s").text == "GPU·s"
    assert parse_unit("m/s**2").text == "m/s**2"


def test_flop() -> None:
    assert parse_unit("FLOP").dimensions == (("FLOP", 1.0),)
    assert parse_unit("flop") == Unit("flop", 1.0, (("FLOP", 1.0),))
    assert factor("GFLOP") == 1e9 and factor("TFLOP") == 1e12 and factor("PFLOP") == 1e15
    rate = parse_unit("TFLOP/s")
    assert rate.dimensions == (("FLOP", 1.0), ("time", -1.0))
    assert parse_unit("TFLOPS") == Unit("TFLOPS", 1e12, rate.dimensions)
    seconds = 2.47 * factor("TFLOP") / (989.4 * rate.factor)
    assert seconds / factor("ms") == pytest.approx(2.496, abs=5e-4)


@pytest.mark.parametrize("text", ["TFLOPs", "flops", "FLOPs"])
def test_ambiguous_flops_is_refused(text: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(text)
    assert "FLOP/s" in (info.value.hint or "")


@pytest.mark.parametrize(("text", "dimension"), [
    ("token", "token"), ("tokens", "token"), ("request", "request"), ("session", "session"),
    ("GPU", "GPU"), ("GPUs", "GPU"), ("card", "GPU"), ("USD", "money"),
])
def test_counts_and_money_are_own_dimensions(text: str, dimension: str) -> None:
    assert parse_unit(text) == Unit(text, 1.0, ((dimension, 1.0),))


def test_cost_fact() -> None:
    rate, usage = parse_unit("USD/GPU/h"), parse_unit("GPU*s")
    assert rate.dimensions == (("GPU", -1.0), ("money", 1.0), ("time", -1.0))
    assert usage.dimensions == (("GPU", 1.0), ("time", 1.0))
    assert 2.5 * rate.factor * 0.9528 * usage.factor == pytest.approx(0.0006617, abs=5e-8)


def test_percent_is_dimensionless() -> None:
    percent = parse_unit("%")
    assert percent == Unit("%", 0.01, DIMENSIONLESS)
    assert 75 * percent.factor * 4 == pytest.approx(3)


@pytest.mark.parametrize(("text", "value", "dims"), [
    ("s", 1, TIME), ("ms", 1e-3, TIME), ("ns", 1e-9, TIME), ("min", 60, TIME), ("h", 3600, TIME),
    ("W", 1, (("length", 2.0), ("mass", 1.0), ("time", -3.0))),
    ("kW", 1e3, (("length", 2.0), ("mass", 1.0), ("time", -3.0))),
    ("MW", 1e6, (("length", 2.0), ("mass", 1.0), ("time", -3.0))),
    ("J", 1, (("length", 2.0), ("mass", 1.0), ("time", -2.0))),
    ("kWh", 3.6e6, (("length", 2.0), ("mass", 1.0), ("time", -2.0))),
    ("m", 1, (("length", 1.0),)), ("m^2", 1, (("length", 2.0),)), ("km", 1e3, (("length", 1.0),)),
    ("Hz", 1, (("time", -1.0),)), ("GHz", 1e9, (("time", -1.0),)),
    ("m/s^2", 1, (("length", 1.0), ("time", -2.0))), ("m/s**2", 1, (("length", 1.0), ("time", -2.0))),
    ("1/s", 1, (("time", -1.0),)), ("kilogram", 1, (("mass", 1.0),)),
])
def test_usual_pint_units(text: str, value: float, dims: tuple[tuple[str, float], ...]) -> None:
    unit = parse_unit(text)
    assert unit.factor == pytest.approx(value, rel=1e-12)
    assert unit.dimensions == dims


def test_left_to_right_and_middle_dot() -> None:
    assert parse_unit("USD/GPU/h").factor == pytest.approx(1 / 3600)
    assert parse_unit("GB/s*s").dimensions == INFORMATION  # (GB/s)*s
    assert parse_unit("GPU·s") == Unit("GPU·s", 1.0, (("GPU", 1.0), ("time", 1.0)))
    assert parse_unit("KiB/token").dimensions == (("information", 1.0), ("token", -1.0))
    assert parse_unit("m^-1") == parse_unit("1/m").__class__("m^-1", 1.0, (("length", -1.0),))


def test_dimensions_are_distinct() -> None:
    assert parse_unit("GB/s").dimensions != parse_unit("1/s").dimensions
    assert parse_unit("GB").dimensions != parse_unit("s").dimensions
    assert parse_unit("B").dimensions != DIMENSIONLESS
    assert parse_unit("bit").dimensions != DIMENSIONLESS
    assert parse_unit("FLOP").dimensions != DIMENSIONLESS
    assert parse_unit("token").dimensions != parse_unit("GPU").dimensions
    assert parse_unit("USD").dimensions != DIMENSIONLESS


@pytest.mark.parametrize(("text", "offset", "length", "bad"), [
    ("experts", 0, 7, "experts"),
    ("GBs/s", 0, 3, "GBs"),
    ("GB/xyz", 3, 3, "xyz"),
    ("USD/GPU/hour2", 8, 5, "hour2"),
])
def test_unknown_unit(text: str, offset: int, length: int, bad: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(text)
    error = info.value
    assert (error.offset, error.length) == (offset, length)
    assert error.message == f'unknown unit "{bad}"'
    assert text[error.offset : error.offset + error.length] == bad


@pytest.mark.parametrize(("text", "hint"), [
    ("GBs/s", 'did you mean "GB/s"?'),
    ("GIB", 'did you mean "GiB"?'),
    ("gb/s", 'did you mean "GB/s"?'),
    ("toekn", 'did you mean "token"?'),
])
def test_unknown_unit_hint(text: str, hint: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(text)
    assert info.value.hint == hint


@pytest.mark.parametrize(("text", "offset"), [
    ("", 0), ("GB/", 3), ("GB s", 2), ("GB//s", 3), ("(GB)", 0), ("m^", 2), ("m^x", 2), ("GB s", 2), ("*s", 0),
])
def test_malformed_units(text: str, offset: int) -> None:
    with pytest.raises(UnitError) as info:
        parse_unit(text)
    assert info.value.offset == offset
    assert str(info.value) == info.value.message


@pytest.mark.parametrize("text", ["Gb", "b", "KB", "B"])
def test_no_gilbert_barn_kelvin_or_bel(text: str) -> None:
    assert parse_unit(text).dimensions == INFORMATION


def test_offset_units_refused() -> None:
    with pytest.raises(UnitError):
        parse_unit("degC")


def test_parse_is_cached_and_fast() -> None:
    first = parse_unit("USD/GPU/h")
    assert parse_unit("USD/GPU/h") is first
    n = 20_000
    start = time.perf_counter()
    for _ in range(n):
        parse_unit("USD/GPU/h")
    per_call = (time.perf_counter() - start) / n
    assert per_call < 20e-6  # generous: a cache hit is ~0.1 µs


# Each unit's factor to the base unit (the byte, the second, per token), from the
# prefixes' definitions (IEC binary, SI decimal).
FACTORS = {"GiB": 2.0 ** 30, "B": 1.0, "KiB/token": 2.0 ** 10, "s": 1.0, "ms": 1e-3, "GB/s": 1e9,
           "MiB/us": 2.0 ** 20 * 1e6, "Mibit": 2.0 ** 20 / 8}


@pytest.mark.parametrize("text", FACTORS)
def test_factor_is_the_float_the_prefixes_define(text: str) -> None:
    factor = parse_unit(text).factor
    assert type(factor) is float and math.isclose(factor, FACTORS[text], rel_tol=1e-15), (text, factor)


def test_unit_error_pickles() -> None:
    import pickle

    try:
        parse_unit("GB/xyz")
    except UnitError as error:
        copy = pickle.loads(pickle.dumps(error))
        assert (copy.message, copy.offset, copy.length, copy.hint) == (error.message, 3, 3, error.hint)
        assert str(copy) == 'unknown unit "xyz"'
