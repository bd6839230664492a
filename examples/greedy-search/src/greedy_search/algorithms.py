"""Greedy best-first search and weighted A*, in plain Python over slidelab's `SearchProblem`.

Both are one best-first loop with a different priority, as in aima-python:
what they need from the problem is `start`, `successors(state)` (the
`(move, state)` pairs one move away), `is_goal(state)` and the heuristic
`h(state)` chosen with `--heuristic`. Each returns the moves of a solution,
or None. slidelab counts what they expand and generate, and stops them at its
limits.
"""

import heapq
from itertools import count

from slidelab.plugin import Param, algorithm


@algorithm(heuristic=True)
def greedy(problem):
    """Greedy best-first search: the state that looks closest to the goal first (f = h)."""
    return best_first_search(problem, lambda state, g: problem.h(state))


@algorithm(heuristic=True, params={"w": Param(1.5, float, "weight of h in f = g + w·h: 1 is A*, more is greedier",
                                              minimum=1, maximum=100)})
def wastar(problem, *, w):
    """Weighted A*: f = g + w·h; with w = 1 and a consistent heuristic, shortest solutions."""
    return best_first_search(problem, lambda state, g: g + w * problem.h(state))


def best_first_search(problem, f):
    """Expand the state of lowest f(state, g) first; a state reached again by a shorter path is reopened."""
    start = problem.start
    g = {start: 0}
    parents = {start: None}
    ties = count()  # equal f: first in, first out (states themselves are never compared)
    frontier = [(f(start, 0), next(ties), 0, start)]
    while frontier:
        _, _, cost, state = heapq.heappop(frontier)
        if cost > g[state]:
            continue  # a stale entry: the state was reached by a shorter path since
        if problem.is_goal(state):
            return path(parents, state)
        for move, child in problem.successors(state):
            if cost + 1 < g.get(child, cost + 2):
                g[child] = cost + 1
                parents[child] = (move, state)
                heapq.heappush(frontier, (f(child, cost + 1), next(ties), cost + 1, child))
    return None


def path(parents, state):
    """The moves from the start to `state`, following the parents back."""
    moves = []
    while parents[state] is not None:
        move, state = parents[state]
        moves.append(move)
    return moves[::-1]
