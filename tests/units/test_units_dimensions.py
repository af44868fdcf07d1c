"""Dimensions algebra and describe()."""

from __future__ import annotations

from supersheet.units import DIMENSIONLESS, describe, divide, multiply, parse_unit, power


def dims(text: str) -> tuple[tuple[str, float], ...]:
    return parse_unit(text).dimensions


def test_multiply_divide() -> None:
    assert multiply(dims("KiB/token"), dims("token")) == dims("KiB")
    assert multiply(dims("USD/GPU/h"), dims("GPU*s")) == dims("USD")
    assert divide(dims("TFLOP"), dims("TFLOP/s")) == dims("s")
    assert divide(dims("GB"), dims("GB")) == DIMENSIONLESS
    assert divide(dims("GB"), dims("s")) == dims("GB/s")
    assert multiply(DIMENSIONLESS, DIMENSIONLESS) == DIMENSIONLESS


def test_power() -> None:
    assert power(dims("m"), 2) == dims("m^2")
    assert power(dims("m^2"), 0.5) == dims("m")
    assert power(dims("GB/s"), 0) == DIMENSIONLESS
    assert power(power(dims("m^3"), 0.5), 2) == dims("m^3")
    half = power(dims("m"), 0.5)
    assert half == (("length", 0.5),)
    assert all(isinstance(e, float) for _, e in power(dims("m^2"), 1))


def test_shape() -> None:
    d = dims("USD/GPU/h")
    assert [name for name, _ in d] == sorted(name for name, _ in d)
    assert all(not name.startswith("[") for name, _ in d)
    assert all(e != 0 for _, e in d)


def test_describe() -> None:
    assert describe(dims("GB")) == "information"
    assert describe(dims("s")) == "time"
    assert describe(dims("GB/s")) == "information/time"
    assert describe(dims("TFLOP/s")) == "FLOP/time"
    assert describe(dims("GPU*s")) == "GPU*time"
    assert describe(DIMENSIONLESS) == "dimensionless"
    assert describe(dims("m^2")) == "length^2"
    assert describe(dims("USD/GPU/h")) == "money/GPU/time"
    assert describe(dims("Hz")) == "1/time"
    assert describe(power(dims("m"), 0.5)) == "length^0.5"
