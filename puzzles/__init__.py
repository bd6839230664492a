"""slidelab's solver core: puzzle domains, search algorithms and heuristics.

A pure library: it imports numpy and numba, never the runner's queue, database
or command-line packages. Laid out by concern: the shared modules here, one
module per algorithm in `search/`, one package per domain (`rushhour/`,
`npuzzle/`). The compiled modules take numba from `puzzles.jit`, which names
the cache of compiled code after a digest of these sources.
"""
