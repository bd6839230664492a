"""Moves Freed: the seed's heuristic 3 run inside the A* loop (not optimal)."""

from puzzles import astar
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, Outcome


def search(problem: Problem, limits: Limits, *, heuristic: Heuristic) -> Outcome:
    """A* ordered by g + w_exit*distance + w_blockers*blockers + w_freed*(moves gained over the parent)."""
    return astar.search(problem, limits, heuristic=heuristic)
