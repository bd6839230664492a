"""slidelab's solver core: puzzle domains, search algorithms and heuristics.

A pure library: it imports numpy and numba, never the runner's queue, database
or command-line packages.
"""
