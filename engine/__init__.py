"""The engine: a sheet's YAML in, values with units out. No UI, no command line.

The pipeline, one folder per stage, each importing only the stages above it here
(import-linter enforces it, see pyproject.toml and docs/architecture.md):

    base/       spans, the one Diagnostic type, limits, where sheets may be read from, value types
    formula/    formula text -> tokens -> syntax trees; the built-in function and draw tables
    load/       YAML -> SheetFile -> Model (imports and bases flattened into one namespace)
    check/      names resolved, units and types checked, dependency order, display families
    compile/    checked cells -> Polars expressions (many rows) or Python floats (one row)
    workbook.py a sheet ready to use: loaded, checked, evaluated, with its diagnostics
    present/    values for people: display units, digits, the run/explain reports
    expect/     expectations and assumptions checked against values
    scenarios/  sweeps, goal seek, choices, Monte Carlo, their outputs, Ray
    verify/     `supersheet test`: every expectation of a sheet, wherever it is written
    diff/       two evaluated versions of a sheet compared; git revisions
"""
