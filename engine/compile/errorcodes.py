"""The error values a cell can hold, once for both evaluation paths.

An operation without a value gives an error code instead of a number: the
Polars plan (compile.py, compile_calls.py) as a string column, the one-row
path (scalar.py) as an `ErrorValue`. This module imports nothing, so the
one-row path, which must not load Polars, and the presenter share it.
"""
from __future__ import annotations

DIV0 = "#DIV/0"     # a division by zero (x / 0, 0 ^ -1, a range with step 0)
NUM = "#NUM"        # no finite number: sqrt(-1), ln(0), overflow, inf - inf
ERROR = "#ERROR"    # an error whose code was not recorded (a value read back without its error column)
