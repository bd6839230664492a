"""What the N-puzzle registers by name: its heuristics, all admissible (light: no numba).

The order is their kernels' numbering (`puzzles.npuzzle.kernels`): the pattern databases last.
"""

from puzzles.registry import Param, register_heuristic

DOMAIN = "npuzzle"
_PDB = {"pdb": Param(None, str, "the N-puzzle's pattern databases: group sizes (6-6-3) or tile groups (1 2 3/4 5 6 7 8);"
                     " default: the board size's")}
register_heuristic(DOMAIN, "misplaced", "the tiles off their goal cells", admissible=True)
register_heuristic(DOMAIN, "manhattan", "the sum of the tiles' distances to their goal cells", admissible=True)
register_heuristic(DOMAIN, "linear-conflict", "Manhattan, plus two moves for each pair of tiles in their goal line"
                   " but in the wrong order", admissible=True)
register_heuristic(DOMAIN, "pdb", "the additive pattern databases' sum", admissible=True, options=_PDB)
register_heuristic(DOMAIN, "pdb-max", "the larger of the databases' sums on the board and its mirror image",
                   admissible=True, options=_PDB)
