"""Iterative deepening: depth-first search to depth 1, 2, 3, ... until a goal is found.

Optimal in moves, and it keeps no set of visited states: its memory is the
stack, one buffer of children per depth. The price is time: every iteration
walks the whole tree again, and a board reached by many paths is searched once
per path. The only pruning is generic: a child equal to its grandparent (the
move undone) is skipped. If an iteration finds no node at its depth limit, the
tree is exhausted and the goal unreachable; otherwise only the node and time
limits stop the search.
"""

from typing import NamedTuple

import numba as nb
import numpy as np

from puzzles import limits
from puzzles.kernels import expand, is_goal
from puzzles.nodestore import same_key
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome


class Stack(NamedTuple):
    """Per depth d: the children of the node at depth d, their moves, how many, and how many were taken."""

    children: np.ndarray
    moves: np.ndarray
    count: np.ndarray
    taken: np.ndarray


@nb.njit(cache=True)
def _new_stack(depth, max_branching, key_words):
    return Stack(
        np.empty((depth, max_branching, key_words), dtype=np.uint64),
        np.empty((depth, max_branching), dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
    )


@nb.njit(cache=True)
def _deeper(stack, depth):
    """A stack for depth limit `depth`: the same one if it is deep enough, else one twice as deep."""
    if depth <= stack.count.shape[0]:
        return stack
    return _new_stack(2 * depth, stack.children.shape[1], stack.children.shape[2])


@nb.njit(cache=True)
def _is_node(stack, start, depth, key_row, key_depth):
    """True if the node on the current path at `depth` equals child `key_row` of the node at `key_depth`."""
    key = stack.children[key_depth, key_row]
    if depth == 0:
        return same_key(start.reshape(1, -1), 0, key)
    return same_key(stack.children[depth - 1], stack.taken[depth - 1] - 1, key)


@nb.njit(cache=True)
def _bounded(spec, start, stack, limit, expanded, generated, max_frontier, max_nodes, deadline):
    """Depth-first search to depth `limit` (the start is no goal).

    Returns (status, goal depth, limit reached, expanded, generated, max frontier):
    status SOLVED with the path in the stack's taken children, a limit, or
    UNSOLVABLE when the tree is searched to its end.
    """
    reached = False
    depth = -1  # the depth of the node being expanded; its children sit in stack row depth
    node = start
    frontier = 0
    while True:
        stop = limits.exceeded(expanded, max_nodes, deadline)
        if stop:
            return stop, 0, reached, expanded, generated, max_frontier
        expanded += 1
        depth += 1
        stack.count[depth] = expand(spec, node, stack.children[depth], stack.moves[depth])
        stack.taken[depth] = 0
        generated += stack.count[depth]
        frontier += stack.count[depth]
        max_frontier = max(max_frontier, frontier)
        while True:
            while depth >= 0 and stack.taken[depth] == stack.count[depth]:
                depth -= 1
            if depth < 0:
                return limits.UNSOLVABLE, 0, reached, expanded, generated, max_frontier
            row = stack.taken[depth]
            stack.taken[depth] += 1
            frontier -= 1
            if depth > 0 and _is_node(stack, start, depth - 1, row, depth):
                continue
            node = stack.children[depth, row]
            if is_goal(spec, node):
                return limits.SOLVED, depth + 1, reached, expanded, generated, max_frontier
            if depth + 1 < limit:
                break
            reached = True
