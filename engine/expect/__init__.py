"""Expectations (spec §5) and assumptions (format 9.2): values checked against what the sheet says they should be."""
