"""What Rush Hour registers by name: its heuristics, and moves-freed's A* (light: no numba).

The order of the heuristics is their kernels' numbering (`puzzles.rushhour.heuristics`).
"""

from puzzles.registry import Algorithm, Param, register_algorithm, register_heuristic

DOMAIN = "rushhour"
register_heuristic(DOMAIN, "blockers", "the vehicles between the red car and the exit (seed heuristic 1)",
                   admissible=True)
register_heuristic(DOMAIN, "blockers-lb", "the blockers, plus the fewest vehicles each must push out of the red row"
                   " (seed heuristic 2)", admissible=True)
register_heuristic(
    DOMAIN, "moves-freed", "the red car's distance and blockers, less the moves a move frees, weighted (seed heuristic 3)",
    admissible=False,
    options={"w_exit": Param(3.0, float, "weight of the red car's distance to the exit"),
             "w_blockers": Param(3.0, float, "weight of the vehicles blocking the red car"),
             "w_freed": Param(-14.0, float, "weight of the legal moves gained by a move")},
)
register_heuristic(DOMAIN, "blocking-tree", "the red car and every vehicle its blocking tree says must move",
                   admissible=True)
register_algorithm("moves-freed", Algorithm(  # the seed's "Moves Freed": the A* loop ordered by the moves-freed heuristic
    "astar", "the seed's moves-freed heuristic inside the A* loop", heuristic="moves-freed", fixed_heuristic=DOMAIN,
))
