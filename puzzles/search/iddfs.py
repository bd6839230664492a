"""Iterative deepening: depth-first search to depth limits 0, 1, 2, ... until a goal is found.

Optimal in moves. Its memory is the stack, one buffer of children per depth,
and, unless told otherwise, a memo (`puzzles.memo`, as in Fogleman's Rush Hour
solver): each state searched, with the iteration and the moves left then, so
that a board reached again with no more moves left is not searched again.
Without the memo (`memo=False`, the textbook search) every iteration walks the
whole tree again, and a board reached by many paths is searched once per path:
exponentially often on Rush Hour, where the same moves in another order reach
the same board. Either way a child equal to its grandparent (the move undone)
is skipped. If an iteration finds no node beyond its limit, everything
reachable was searched and the goal is unreachable; otherwise only the node
and time limits stop the search. With a memo and an admissible heuristic
(IDA*), the memo also keeps each state's heuristic value, computed when the
state is first taken from the stack rather than for every child generated,
so once per state rather than once per path to it. `stored` is the states in
the memo (0 without one), those beyond a bound held for their estimate too;
`max_frontier` is the most children waiting on the stack at once.
"""

from typing import NamedTuple

import numpy as np

from puzzles import stops
from puzzles.jit import nb
from puzzles.kernels import child_heuristics, expand, heuristic, is_goal, workspace
from puzzles.memo import FIRST_CAPACITY, NEW, NOT_SEARCHED, SEARCHED_BEFORE, STORED, estimate_in, find, key_hash, new_memo, prefetch_slot, remember
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport

NO_BOUND = np.iinfo(np.int64).max
EXPANDED, GENERATED, MAX_FRONTIER = range(3)  # the counters a bounded search keeps


class Stack(NamedTuple):
    """Row d: the nodes at depth d waiting or taken (row 0 holds the start), their moves, heuristic values and hashes,
    how many, how many taken.

    The node on the current path at depth d is `children[d, taken[d] - 1]`.
    """

    children: np.ndarray
    moves: np.ndarray
    h: np.ndarray  # the heuristic of each child, for an informed search
    hashes: np.ndarray  # the hash of each child, for the memo
    count: np.ndarray  # type: ignore[assignment]  # shadows tuple.count, read as stack.count by the kernels
    taken: np.ndarray


@nb.njit(cache=True)
def _new_stack(rows, max_branching, key_words):
    """An empty stack for depth limits below `rows`."""
    return Stack(
        np.empty((rows, max_branching, key_words), dtype=np.uint64),
        np.empty((rows, max_branching), dtype=np.int64),
        np.zeros((rows, max_branching), dtype=np.int64),
        np.zeros((rows, max_branching), dtype=np.uint64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
    )


@nb.njit(cache=True)
def _deep_enough(stack, rows):
    """`stack` if it has `rows` rows, else a new stack twice as deep."""
    if rows <= stack.count.shape[0]:
        return stack
    return _new_stack(2 * rows, stack.children.shape[1], stack.children.shape[2])


@nb.njit(inline="always", cache=True)
def _undoes(children, depth, row, grandparent):
    """True if the node in `row` at `depth` is its grandparent (the move undoes its parent's move)."""
    for w in range(children.shape[2]):
        if children[depth, row, w] != children[depth - 2, grandparent, w]:
            return False
    return True


@nb.njit(cache=True)
def _bounded(spec, work, stack, bound, informed, keep_estimates, code, hargs, counters, memo, fill, max_nodes,
             deadline):
    """Depth-first search from the start in `stack` row 0, expanding nodes whose f stays within `bound`.

    f = depth + max(h, 1) for a node that is not a goal (it needs one more move
    at least), with h the heuristic if `informed`, else 0: without a heuristic
    the bound is a plain depth limit. `counters` holds expanded, generated and
    max frontier (updated in place). With a `memo` (of any capacity), a node
    already searched with as many moves left is not searched again; if
    `keep_estimates`, the memo holds each node's heuristic value, computed
    when the node is taken, not when it is generated. Returns
    (status, goal depth, next bound, memo): SOLVED with the path on the stack,
    a limit, FAILED with the next bound, or UNSOLVABLE if nothing lay beyond it.

    The next bound stays optimal: it is the least f beyond the bound, or for a
    node skipped because an earlier iteration searched it with b moves left,
    depth + b + 1, since no solution through it is shorter; a node skipped for
    this iteration's own search lies under that search's frontier, already
    counted. So no solution is shorter than the next bound.
    """
    stack.count[0] = 1
    stack.taken[0] = 0
    if informed:
        stack.h[0, 0] = heuristic(spec, work, code, hargs, stack.children[0, 0], 0)
    stack.hashes[0, 0] = key_hash(stack.children, 0, 0)
    rows = np.arange(stack.children.shape[1])
    depth = 0
    frontier = 1
    expanded, generated, max_frontier = counters[EXPANDED], counters[GENERATED], counters[MAX_FRONTIER]
    next_bound = NO_BOUND
    status = stops.FAILED
    while depth >= 0:
        if stack.taken[depth] == stack.count[depth]:
            depth -= 1
            continue
        row = stack.taken[depth]
        stack.taken[depth] += 1
        frontier -= 1
        if depth >= 2 and _undoes(stack.children, depth, row, stack.taken[depth - 2] - 1):
            continue
        node = stack.children[depth, row]
        if is_goal(spec, node):
            status = stops.SOLVED
            break
        h, slot, kept = stack.h[depth, row], -1, 0
        if keep_estimates:
            slot = find(memo, stack.children, depth, row, stack.hashes[depth, row])
            kept = estimate_in(memo, slot)
            h = kept if kept >= 0 else heuristic(spec, work, code, hargs, node, 0)
        f = depth + max(h, 1)
        if f > bound:
            next_bound = min(next_bound, f)
            if kept < 0:  # held for its estimate, met again in the next iterations
                memo, _, _ = remember(memo, fill, slot, stack.children, depth, row, stack.hashes[depth, row], bound,
                                      NOT_SEARCHED, h)
            continue
        if memo.shape[0]:
            if slot < 0:
                slot = find(memo, stack.children, depth, row, stack.hashes[depth, row])
            memo, found, searched = remember(memo, fill, slot, stack.children, depth, row, stack.hashes[depth, row],
                                             bound, bound - depth, h)
            if found == SEARCHED_BEFORE:
                next_bound = min(next_bound, depth + searched + 1)
            if found != NEW:
                continue
        status = stops.exceeded(expanded, max_nodes, deadline)
        if status:
            break
        expanded += 1
        depth += 1
        n = expand(spec, work, node, stack.children[depth], stack.moves[depth])
        if informed and not keep_estimates:
            child_heuristics(spec, work, code, hargs, node, stack.children[depth], stack.moves[depth], rows, n, n,
                             stack.h[depth])
        for child in range(n if memo.shape[0] else 0):
            if keep_estimates or depth + max(stack.h[depth, child], 1) <= bound:  # looked up: start loading its slot
                stack.hashes[depth, child] = key_hash(stack.children, depth, child)
                prefetch_slot(memo, stack.hashes[depth, child])
        stack.count[depth] = n
        stack.taken[depth] = 0
        generated += n
        frontier += n
        max_frontier = max(max_frontier, frontier)
    counters[EXPANDED], counters[GENERATED], counters[MAX_FRONTIER] = expanded, generated, max_frontier
    if depth < 0:
        status = stops.FAILED if next_bound < NO_BOUND else stops.UNSOLVABLE
    return status, depth, next_bound, memo


@nb.njit(cache=True)
def deepening(spec, start, max_branching, informed, keep_estimates, code, hargs, memo_capacity, max_nodes, deadline):
    """Compiled iterative deepening on f; returns (status, moves, counters, states in the memo, last bound).

    Shared by IDDFS (uninformed: the bound is the depth) and IDA* (informed).
    With `memo_capacity` 0 it keeps no memo; else its memo starts with that
    many slots and grows (`puzzles.memo`), and if `keep_estimates` it holds
    the heuristic values too.
    """
    stack = _new_stack(16, max_branching, start.shape[0])
    work = workspace(spec)
    counters = np.zeros(3, dtype=np.int64)
    memo, fill = new_memo(start.shape[0], memo_capacity)
    bound = 0
    while True:
        stack = _deep_enough(stack, bound + 2)
        stack.children[0, 0] = start
        status, depth, next_bound, memo = _bounded(
            spec, work, stack, bound, informed, keep_estimates, code, hargs, counters, memo, fill, max_nodes, deadline
        )
        if status != stops.FAILED:
            break
        bound = next_bound
    moves = np.empty(depth if status == stops.SOLVED else 0, dtype=np.int64)
    for d in range(moves.shape[0]):
        moves[d] = stack.moves[d + 1, stack.taken[d + 1] - 1]
    return status, moves, counters, fill[STORED], bound


def run(problem: Problem, limits: Limits, heuristic_: Heuristic | None, memo: bool) -> SearchReport:
    """Iterative deepening on depth (no heuristic) or on g + h, with a memo or none; the last bound in `extra`."""
    max_nodes, deadline = stops.budget(limits)
    informed = heuristic_ is not None
    keep_estimates = memo and heuristic_ is not None and heuristic_.admissible  # an admissible one reads the state alone
    spec, code, hargs = (heuristic_.spec, heuristic_.code, heuristic_.args) if heuristic_ is not None else (problem.kernels.spec, 0, np.zeros(1))
    status_code, moves, counters, stored, bound = deepening(
        spec, problem.start_key(), problem.kernels.max_branching, informed, keep_estimates, code, hargs,
        FIRST_CAPACITY if memo else 0, max_nodes, deadline,
    )
    outcome, reason = stops.outcome_of(status_code, limits)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=int(counters[EXPANDED]),
                        generated=int(counters[GENERATED]), max_frontier=int(counters[MAX_FRONTIER]),
                        stored=int(stored), reason=reason, extra={"bound": int(bound)})


def search(problem: Problem, limits: Limits, memo: bool = False) -> SearchReport:
    """Iterative deepening depth-first search, with a memo of the states searched if `memo`; optimal in moves."""
    return run(problem, limits, None, memo)
