"""slidelab's command line: solve single boards now; plan, enqueue, watch and
report sweeps later. A thin layer over `puzzles`; it alone turns a
`PuzzleError` into a message and an exit code.
"""
