"""Many scenarios at once: sweep axes and grids, sweeps, goal seek, choices, Monte Carlo, their outputs, and running them on Ray."""
