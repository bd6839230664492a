"""Sweeps: grids planned into jobs, stored, run on a pool or the workers, followed, split, and their provenance."""
