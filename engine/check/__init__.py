"""Checking: every name resolved, every unit and type checked, cycles found and cells ordered, before anything is evaluated."""
