"""IDA*: iterative deepening on f = g + h (Korf 1985).

Depth-first searches bounded by f, each bound the least f the last search saw
beyond its own. Optimal with an admissible heuristic, and its memory is the
path.

Where the domain keeps a board in place (`kernels.has_in_place`, the N-puzzle),
the search makes and undoes moves on that one board and each move updates the
heuristic for what it changed: nothing is allocated or copied per node. Other
domains (Rush Hour) run IDDFS's loop over keys (`puzzles.search.iddfs`),
informed by the heuristic.
"""

import numpy as np

from puzzles import limits
from puzzles.jit import nb
from puzzles.search import iddfs
from puzzles.kernels import branches, has_in_place, inverse, make, place, solved, undo
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport

NO_BOUND = np.iinfo(np.int64).max


@nb.njit(cache=True, _nrt=False)
def bounded(code, board, bound, path, moves, count, taken, expanded, generated, max_frontier, max_nodes, deadline):
    """Depth-first search from `board` through nodes whose f stays within `bound`, the board restored after.

    `path[0]` is the move that led to the board (-1 for none): its inverse is
    not tried first. Returns (status, depth, next bound, expanded, generated,
    max frontier): SOLVED with the moves in `path[1:depth + 1]` (the board
    left at the goal), a limit, or FAILED with the least f seen beyond the
    bound. What it holds is the path, so the frontier reported is the longest path.
    """
    nb.literally(code)
    next_bound = NO_BOUND
    depth = 0
    stop = limits.reached(expanded, max_nodes, deadline)  # once per iteration: the clock too
    if stop:
        return stop, 0, bound, expanded, generated, max_frontier
    if solved(board):
        return limits.SOLVED, 0, bound, expanded, generated, max_frontier
    count[0] = branches(board, moves[0])
    taken[0] = 0
    expanded += 1
    generated += count[0]
    while True:
        if taken[depth] == count[depth]:
            if depth == 0:
                return limits.FAILED, 0, next_bound, expanded, generated, max_frontier
            undo(board, code, path[depth])
            depth -= 1
            continue
        move = moves[depth, taken[depth]]
        taken[depth] += 1
        if move == inverse(board, path[depth]):
            continue  # the move undoes its parent's move
        limit = bound - depth - 1
        h = make(board, code, move, limit, next_bound - depth - 1)
        if h > limit:  # the move was not made
            next_bound = min(next_bound, depth + 1 + h)
            continue
        depth += 1
        path[depth] = move
        if depth > max_frontier:
            max_frontier = depth
        if solved(board):
            return limits.SOLVED, depth, bound, expanded, generated, max_frontier
        if expanded >= max_nodes or expanded % limits.CHECK_EVERY == 0:
            stop = limits.reached(expanded, max_nodes, deadline)
            if stop:
                return stop, depth, bound, expanded, generated, max_frontier
        count[depth] = branches(board, moves[depth])
        taken[depth] = 0
        expanded += 1
        generated += count[depth]


@nb.njit(cache=True)
def deepening_in_place(spec, code, start, max_branching, max_nodes, deadline):
    """Compiled IDA* on a board kept in place; returns (status, moves, expanded, generated, max frontier, last bound).

    Compiled once per heuristic code (`numba.literally`), with that heuristic's make.
    """
    nb.literally(code)
    board, bound = place(spec, code, start, 0)
    expanded = generated = max_frontier = 0
    if solved(board):
        return limits.SOLVED, np.empty(0, dtype=np.int64), 0, 0, 0, bound
    while True:
        board, _ = place(spec, code, start, bound + 1)
        rows = bound + 1
        path = np.full(rows + 1, -1, dtype=np.int64)
        moves = np.empty((rows, max_branching), dtype=np.int64)
        count = np.zeros(rows, dtype=np.int64)
        taken = np.zeros(rows, dtype=np.int64)
        status, depth, next_bound, expanded, generated, max_frontier = bounded(
            code, board, bound, path, moves, count, taken, expanded, generated, max_frontier, max_nodes, deadline
        )
        if status == limits.FAILED and next_bound == NO_BOUND:
            status = limits.UNSOLVABLE
        if status != limits.FAILED:
            solution = path[1 : depth + 1].copy() if status == limits.SOLVED else path[:0].copy()
            return status, solution, expanded, generated, max_frontier, bound
        bound = next_bound


def _entry(code: int):
    """`deepening_in_place` for heuristic `code`, compiled with the code as a constant.

    Called from Python with a plain int, `numba.literally` would make numba
    try and fail a compilation on every call (about 40 ms); these entries are
    compiled (or loaded from the cache) once each.
    """

    @nb.njit(cache=True)
    def entry(spec, start, max_branching, max_nodes, deadline):
        return deepening_in_place(spec, code, start, max_branching, max_nodes, deadline)

    return entry


_ENTRIES: dict[int, object] = {}


def search(problem: Problem, limits_: Limits, heuristic: Heuristic) -> SearchReport:
    """IDA* with `heuristic`; optimal in moves when it is admissible. The last bound is in `extra`."""
    if not has_in_place(heuristic.spec):
        return iddfs.run(problem, limits_, heuristic)
    entry = _ENTRIES.setdefault(heuristic.code, _entry(heuristic.code))
    max_nodes, deadline = limits.budget(limits_)
    status_code, moves, expanded, generated, max_frontier, bound = entry(
        heuristic.spec, problem.start_key(), problem.kernels.max_branching, max_nodes, deadline
    )
    outcome, reason = limits.outcome_of(status_code, limits_)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=int(expanded), generated=int(generated),
                        max_frontier=int(max_frontier), reason=reason, extra={"bound": int(bound)})
