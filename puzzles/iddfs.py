"""Iterative deepening: depth-first search to depth limits 0, 1, 2, ... until a goal is found.

Optimal in moves, and it keeps no set of visited states: its memory is the
stack, one buffer of children per depth. The price is time: every iteration
walks the whole tree again, and a board reached by many paths is searched once
per path. The only pruning is generic: a child equal to its grandparent (the
move undone) is skipped. If an iteration finds no node at its depth limit, the
tree is exhausted and the goal unreachable; otherwise only the node and time
limits stop the search. No state is stored beyond the stack (`stored` is 0);
`max_frontier` is the most children waiting on the stack at once.
"""

from typing import NamedTuple

import numba as nb
import numpy as np

from puzzles import limits
from puzzles.kernels import expand, is_goal
from puzzles.nodestore import same_rows
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome


class Stack(NamedTuple):
    """Row d: the nodes at depth d waiting or taken (row 0 holds the start), their moves, how many, how many taken.

    The node on the current path at depth d is `children[d, taken[d] - 1]`.
    """

    children: np.ndarray
    moves: np.ndarray
    count: np.ndarray
    taken: np.ndarray


@nb.njit(cache=True)
def _new_stack(rows, max_branching, key_words):
    """An empty stack for depth limits below `rows`."""
    return Stack(
        np.empty((rows, max_branching, key_words), dtype=np.uint64),
        np.empty((rows, max_branching), dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
    )


@nb.njit(cache=True)
def _deep_enough(stack, rows):
    """`stack` if it has `rows` rows, else a new stack twice as deep."""
    if rows <= stack.count.shape[0]:
        return stack
    return _new_stack(2 * rows, stack.children.shape[1], stack.children.shape[2])


@nb.njit(cache=True)
def _bounded(spec, stack, limit, expanded, generated, max_frontier, max_nodes, deadline):
    """Depth-first search from the start in `stack` row 0 down to depth `limit`.

    Returns (status, goal depth, expanded, generated, max frontier): SOLVED with
    the path on the stack, a limit, FAILED if nodes at depth `limit` were left
    unexpanded, or UNSOLVABLE if the whole tree lies above that depth.
    """
    stack.count[0] = 1
    stack.taken[0] = 0
    depth = 0
    frontier = 1
    deeper = False
    while depth >= 0:
        if stack.taken[depth] == stack.count[depth]:
            depth -= 1
            continue
        row = stack.taken[depth]
        stack.taken[depth] += 1
        frontier -= 1
        node = stack.children[depth, row]
        if depth >= 2 and same_rows(stack.children[depth - 2], stack.taken[depth - 2] - 1, stack.children[depth], row):
            continue  # the move undoes its parent's move
        if is_goal(spec, node):
            return limits.SOLVED, depth, expanded, generated, max_frontier
        if depth == limit:
            deeper = True
            continue
        stop = limits.exceeded(expanded, max_nodes, deadline)
        if stop:
            return stop, depth, expanded, generated, max_frontier
        expanded += 1
        depth += 1
        stack.count[depth] = expand(spec, node, stack.children[depth], stack.moves[depth])
        stack.taken[depth] = 0
        generated += stack.count[depth]
        frontier += stack.count[depth]
        max_frontier = max(max_frontier, frontier)
    return limits.FAILED if deeper else limits.UNSOLVABLE, depth, expanded, generated, max_frontier


@nb.njit(cache=True)
def iddfs(spec, start, max_branching, max_nodes, deadline):
    """Compiled iterative deepening; returns (status, moves, expanded, generated, max frontier, depth limit)."""
    stack = _new_stack(16, max_branching, start.shape[0])
    expanded = generated = max_frontier = 0
    limit = 0
    while True:
        stack = _deep_enough(stack, limit + 1)
        stack.children[0, 0] = start
        status, depth, expanded, generated, max_frontier = _bounded(
            spec, stack, limit, expanded, generated, max_frontier, max_nodes, deadline
        )
        if status != limits.FAILED:
            break
        limit += 1
    moves = np.empty(depth if status == limits.SOLVED else 0, dtype=np.int64)
    for d in range(moves.shape[0]):
        moves[d] = stack.moves[d + 1, stack.taken[d + 1] - 1]
    return status, moves, expanded, generated, max_frontier, limit


def search(problem: Problem, limits_: Limits) -> Outcome:
    """Iterative deepening depth-first search; optimal in moves."""
    kernels = problem.kernels
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, limit = iddfs(
        kernels.spec, problem.start_key(), kernels.max_branching, max_nodes, deadline
    )
    status, reason = limits.outcome_status(code, limits_)
    extra = {"depth_limit": int(limit)}
    return Outcome(status, [int(m) for m in moves], expanded, generated, max_frontier, 0, reason, extra)
