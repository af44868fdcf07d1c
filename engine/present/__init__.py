"""Presentation: display units and digits, and the run/explain/JSON/CSV/Markdown reports of one scenario."""
