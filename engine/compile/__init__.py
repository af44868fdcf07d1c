"""Compiling and evaluating: checked cells as Polars expressions over base-unit magnitudes (many rows), or Python floats (one row)."""
