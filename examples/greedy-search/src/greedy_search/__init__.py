"""greedy-search: an example slidelab plugin package (docs/plugins.md).

`algorithms` holds greedy best-first search and weighted A* in plain Python;
`heuristics` a Rush Hour heuristic, compiled with numba and in plain Python.
The package's pyproject.toml makes them known to slidelab by entry points.
"""
