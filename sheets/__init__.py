"""The library of sheets bundled with supersheet, as package data: `supersheet:PATH`
names its files (format 10.1), found through importlib.resources (engine/base/project.py)."""
