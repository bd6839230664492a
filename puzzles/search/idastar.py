"""IDA*: iterative deepening on f = g + h (Korf 1985).

Depth-first searches bounded by f, each bound the least f the last search saw
beyond its own. Optimal with an admissible heuristic, and its memory is the
path.

Where the domain keeps a board in place (`kernels.has_in_place`, the N-puzzle)
and no memo is asked for, the search makes and undoes moves on that one board
and each move updates the heuristic for what it changed: nothing is allocated
or copied per node. Otherwise (Rush Hour, whose states recur by many paths)
it runs IDDFS's loop over keys (`puzzles.search.iddfs`), informed by the
heuristic, with its memo of the states searched.
"""

import numpy as np

from puzzles import stops
from puzzles.jit import nb
from puzzles.kernels import ILLEGAL, degree, has_in_place, inverse, make, place, solved, undo
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport
from puzzles.search import iddfs

NO_BOUND = np.iinfo(np.int64).max
EXPANDED, GENERATED, MAX_FRONTIER, LEAVES = range(4)  # the counters a bounded search keeps


@nb.njit(cache=True, _nrt=False)
def bounded(code, board, bound, directions, path, counters, max_nodes, deadline, leaves):
    """Depth-first search from `board` through nodes whose f stays within `bound`, the board restored after.

    Each node tries the move codes 0 .. `directions` - 1 in turn (a move the
    board does not allow is refused by `make`). `path[0]` is the move that led
    to the board (-1 for none): its inverse is not tried first. `counters`
    holds expanded, generated, max frontier and leaves (updated in place).
    Returns (status, depth, next bound): SOLVED with
    the moves in `path[1:depth + 1]` (the board left at the goal), a limit,
    or FAILED with the least f seen beyond the bound. What it holds is the
    path, so the frontier reported is the longest path.

    With `leaves` of L + 2 > 0 columns, a node reached at depth L is not
    expanded: its moves and the nodes expanded and generated so far are
    written as the next row of `leaves` (counted in `counters[LEAVES]` past
    the rows there are too), and the search goes on.
    """
    nb.literally(code)
    expanded, generated, max_frontier = counters[EXPANDED], counters[GENERATED], counters[MAX_FRONTIER]
    cutoff = leaves.shape[1] - 2 if leaves.shape[1] else -1
    next_bound = NO_BOUND
    depth = 0
    if solved(board, code):
        return stops.SOLVED, 0, bound
    status = stops.reached(expanded, max_nodes, deadline)  # once per iteration: the clock too
    if status:
        return status, 0, bound
    expanded += 1
    generated += degree(board)
    move = 0  # the next move to try at this depth
    while True:
        if move == directions:
            if depth == 0:
                status = stops.FAILED
                break
            move = path[depth]
            undo(board, code, move)
            depth -= 1
            move += 1
            continue
        if move == inverse(board, path[depth]):  # the move undoes its parent's move
            move += 1
            continue
        limit = bound - depth - 1
        h = make(board, code, move, limit, next_bound - depth - 1)
        if h > limit:  # the move was not made
            if h != ILLEGAL:
                next_bound = min(next_bound, depth + 1 + h)
            move += 1
            continue
        depth += 1
        path[depth] = move
        if depth > max_frontier:
            max_frontier = depth
        if solved(board, code):
            status = stops.SOLVED
            break
        if depth == cutoff:
            if counters[LEAVES] < leaves.shape[0]:
                for step in range(depth):
                    leaves[counters[LEAVES], step] = path[step + 1]
                leaves[counters[LEAVES], depth] = expanded
                leaves[counters[LEAVES], depth + 1] = generated
            counters[LEAVES] += 1
            undo(board, code, move)
            depth -= 1
            move += 1
            continue
        if expanded >= max_nodes or expanded % stops.CHECK_EVERY == 0:
            status = stops.reached(expanded, max_nodes, deadline)
            if status:
                break
        expanded += 1
        generated += degree(board)
        move = 0
    counters[EXPANDED], counters[GENERATED], counters[MAX_FRONTIER] = expanded, generated, max_frontier
    return status, depth, next_bound


@nb.njit(cache=True, _nrt=False)
def _replay(code, board, moves, h):
    """Play `moves` on the board; the heuristic's value after them (`h` if there are none).

    (A function of its own: numba loses the moves of a make inlined where the
    board was made.)
    """
    nb.literally(code)
    for move in moves:
        h = make(board, code, move, NO_BOUND, NO_BOUND)
    return h


@nb.njit(cache=True)
def _path(rows):
    """The path of one bounded search `rows` deep, from row -1 (the move that led to its root, none yet)."""
    return np.full(rows + 1, -1, dtype=np.int64)


@nb.njit(cache=True)
def deepening_in_place(spec, code, start, max_branching, max_nodes, deadline):
    """Compiled IDA* on a board kept in place; returns (status, moves, counters, last bound).

    Compiled once per heuristic code (`numba.literally`), with that heuristic's make.
    """
    nb.literally(code)
    board, bound = place(spec, code, start, 0)
    counters = np.zeros(4, dtype=np.int64)
    no_leaves = np.empty((0, 0), dtype=np.int64)
    while True:
        board, _ = place(spec, code, start, bound + 1)
        path = _path(bound + 1)
        status, depth, next_bound = bounded(code, board, bound, max_branching, path, counters, max_nodes, deadline,
                                            no_leaves)
        if status == stops.FAILED and next_bound == NO_BOUND:
            status = stops.UNSOLVABLE
        if status != stops.FAILED:
            solution = path[1 : depth + 1].copy() if status == stops.SOLVED else path[:0].copy()
            return status, solution, counters, bound
        bound = next_bound


@nb.njit(cache=True)
def iteration(spec, code, start, prefix, bound, depth, capacity, max_branching, max_nodes, deadline):
    """One bounded search (one IDA* iteration) below the board `prefix` leads to, the prefix's moves counted in f.

    With `depth` > 0, the nodes `depth` moves from the start are not expanded
    but listed (up to `capacity` of them, each with the counts so far). Returns (status, the moves from the
    start if solved, counters, next bound, the leaves' moves).
    """
    nb.literally(code)
    board, h = place(spec, code, start, bound + 1)
    h = _replay(code, board, prefix, h)
    counters = np.zeros(4, dtype=np.int64)
    rows = max(bound - len(prefix), 0) + 1
    path = _path(rows)
    if len(prefix):
        path[0] = prefix[-1]
    leaves = np.empty((capacity, depth + 2) if depth else (0, 0), dtype=np.int64)
    if len(prefix) + h > bound:  # the root itself lies beyond the bound
        return stops.FAILED, prefix[:0].copy(), counters, len(prefix) + h, leaves
    status, found, next_bound = bounded(code, board, bound - len(prefix), max_branching, path, counters, max_nodes,
                                        deadline, leaves)
    solution = np.concatenate((prefix, path[1 : found + 1])) if status == stops.SOLVED else prefix[:0].copy()
    next_bound = next_bound + len(prefix) if next_bound != NO_BOUND else NO_BOUND
    return status, solution, counters, next_bound, leaves


def _entry(code: int):
    """`deepening_in_place` and `iteration` for heuristic `code`, compiled with the code as a constant.

    Called from Python with a plain int, `numba.literally` would make numba
    try and fail a compilation on every call (about 40 ms); these entries are
    compiled (or loaded from the cache) once each.
    """

    @nb.njit(cache=True)
    def deepening(spec, start, max_branching, max_nodes, deadline):
        return deepening_in_place(spec, code, start, max_branching, max_nodes, deadline)

    @nb.njit(cache=True)
    def one_iteration(spec, start, prefix, bound, depth, capacity, max_branching, max_nodes, deadline):
        return iteration(spec, code, start, prefix, bound, depth, capacity, max_branching, max_nodes, deadline)

    return deepening, one_iteration


_ENTRIES: dict[int, tuple] = {}


def entries(code: int) -> tuple:
    """The compiled (deepening, iteration) entries of heuristic `code`."""
    return _ENTRIES.setdefault(code, _entry(code))


def search(problem: Problem, limits: Limits, heuristic: Heuristic, memo: bool = False) -> SearchReport:
    """IDA* with `heuristic`, and a memo of the states searched if `memo`; optimal in moves when it is admissible.

    The last bound is in `extra`. Without a memo, a domain that keeps its board
    in place runs the in-place search.
    """
    if memo or not has_in_place(heuristic.spec):
        return iddfs.run(problem, limits, heuristic, memo)
    max_nodes, deadline = stops.budget(limits)
    status_code, moves, counters, bound = entries(heuristic.code)[0](
        heuristic.spec, problem.start_key(), problem.kernels.max_branching, max_nodes, deadline
    )
    outcome, reason = stops.outcome_of(status_code, limits)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=int(counters[EXPANDED]),
                        generated=int(counters[GENERATED]), max_frontier=int(counters[MAX_FRONTIER]), reason=reason,
                        extra={"bound": int(bound)})
