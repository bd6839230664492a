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

import numpy as np

from puzzles import limits
from puzzles.jit import nb
from puzzles.kernels import expand, heuristic, is_goal, workspace
from puzzles.nodestore import same_rows
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport


class Stack(NamedTuple):
    """Row d: the nodes at depth d waiting or taken (row 0 holds the start), their moves, how many, how many taken.

    The node on the current path at depth d is `children[d, taken[d] - 1]`.
    """

    children: np.ndarray
    moves: np.ndarray
    count: np.ndarray  # type: ignore[assignment]  # shadows tuple.count, read as stack.count by the kernels
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
def _bounded(spec, work, stack, bound, informed, code, hargs, expanded, generated, max_frontier, max_nodes, deadline):
    """Depth-first search from the start in `stack` row 0, expanding nodes whose f stays within `bound`.

    f = depth + max(h, 1) for a node that is not a goal (it needs one more move
    at least), with h the heuristic if `informed`, else 0: without a heuristic
    the bound is a plain depth limit. Returns (status, goal depth, next bound,
    expanded, generated, max frontier): SOLVED with the path on the stack, a
    limit, FAILED with the least f beyond the bound, or UNSOLVABLE if nothing
    lay beyond it.
    """
    stack.count[0] = 1
    stack.taken[0] = 0
    depth = 0
    frontier = 1
    next_bound = np.iinfo(np.int64).max
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
            return limits.SOLVED, depth, bound, expanded, generated, max_frontier
        f = depth + max(heuristic(spec, work, code, hargs, node, stack.count[depth]) if informed else 0, 1)
        if f > bound:
            next_bound = min(next_bound, f)
            continue
        stop = limits.exceeded(expanded, max_nodes, deadline)
        if stop:
            return stop, depth, bound, expanded, generated, max_frontier
        expanded += 1
        depth += 1
        stack.count[depth] = expand(spec, work, node, stack.children[depth], stack.moves[depth])
        stack.taken[depth] = 0
        generated += stack.count[depth]
        frontier += stack.count[depth]
        max_frontier = max(max_frontier, frontier)
    found = next_bound < np.iinfo(np.int64).max
    return limits.FAILED if found else limits.UNSOLVABLE, depth, next_bound, expanded, generated, max_frontier


@nb.njit(cache=True)
def deepening(spec, start, max_branching, informed, code, hargs, max_nodes, deadline):
    """Compiled iterative deepening on f; returns (status, moves, expanded, generated, max frontier, last bound).

    Shared by IDDFS (uninformed: the bound is the depth) and IDA* (informed).
    """
    stack = _new_stack(16, max_branching, start.shape[0])
    work = workspace(spec)
    expanded = generated = max_frontier = 0
    bound = 0
    while True:
        stack = _deep_enough(stack, bound + 2)
        stack.children[0, 0] = start
        status, depth, next_bound, expanded, generated, max_frontier = _bounded(
            spec, work, stack, bound, informed, code, hargs, expanded, generated, max_frontier, max_nodes, deadline
        )
        if status != limits.FAILED:
            break
        bound = next_bound
    moves = np.empty(depth if status == limits.SOLVED else 0, dtype=np.int64)
    for d in range(moves.shape[0]):
        moves[d] = stack.moves[d + 1, stack.taken[d + 1] - 1]
    return status, moves, expanded, generated, max_frontier, bound


def run(problem: Problem, limits_: Limits, heuristic_: Heuristic | None) -> SearchReport:
    """Iterative deepening on depth (no heuristic) or on g + h; the report with the last bound in `extra`."""
    max_nodes, deadline = limits.budget(limits_)
    informed = heuristic_ is not None
    spec, code, hargs = (heuristic_.spec, heuristic_.code, heuristic_.args) if heuristic_ is not None else (problem.kernels.spec, 0, np.zeros(1))
    status_code, moves, expanded, generated, max_frontier, bound = deepening(
        spec, problem.start_key(), problem.kernels.max_branching, informed, code, hargs, max_nodes, deadline
    )
    outcome, reason = limits.outcome_of(status_code, limits_)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, reason=reason, extra={"bound": int(bound)})


def search(problem: Problem, limits_: Limits) -> SearchReport:
    """Iterative deepening depth-first search; optimal in moves."""
    return run(problem, limits_, None)
