"""Comparing versions of a sheet: what changed between two evaluated workbooks, git revisions, and the diff's renderings."""
