from __future__ import annotations


def pytest_terminal_summary(terminalreporter) -> None:
    import property_coverage as coverage
    if coverage.COVERED:
        terminalreporter.section("sheet properties: coverage")
        for line in coverage.lines():
            terminalreporter.write_line(line)
