"""IDA*: iterative deepening on f = g + h (Korf 1985).

Depth-first searches bounded by f, each bound the least f the last search saw
beyond its own. Optimal with an admissible heuristic, and its memory is the
stack: the loop is IDDFS's (`puzzles.iddfs`), informed by the heuristic.
"""

from puzzles import iddfs
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, Outcome


def search(problem: Problem, limits_: Limits, heuristic: Heuristic) -> Outcome:
    """IDA* with `heuristic`; optimal in moves when it is admissible."""
    return iddfs.run(problem, limits_, heuristic)
