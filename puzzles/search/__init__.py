"""The search algorithms, one module each, written once over the compiled entry points of `puzzles.kernels`.

Each module has a `search(problem, limits, **params)` that returns a `SearchReport`; `puzzles.algorithms` holds the
table of algorithms and their parameters (moves-freed is A* with the moves-freed heuristic: a row of that table).
"""
