"""`supersheet test`: every expectation of a sheet — top level, in sweeps, solves and choices — checked against its values."""
