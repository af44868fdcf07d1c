"""The `supersheet` command line: parses arguments, calls the engine, prints. A client of the engine, never imported by it."""
