"""One IDA* iteration below a given path: the unit of work of a search split over many workers.

A split search (`orchestrator.split`) lists, bound by bound, the nodes a
chosen depth below the start whose f stays within the bound (`frontier`),
and runs one job per node: this algorithm, an IDA* iteration with that bound
from the board the node's path (`prefix`) leads to. The iteration counts
nodes exactly as the one-core search counts them below that node, so the
jobs' counts and the frontier's add up to the one-core search's.
"""

from dataclasses import dataclass

import numpy as np

from puzzles import limits
from puzzles.errors import PuzzleError
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, Outcome, SearchReport
from puzzles.search import idastar

LEAF_ROWS = 4096  # the frontier's first guess at its size; a larger frontier is listed again


@dataclass(frozen=True)
class Frontier:
    """The nodes `depth` moves below the start within `bound`, and what listing them cost.

    `leaves` are their move paths in depth-first order, `before` the nodes
    expanded and generated when each was reached; `solution` is set when
    the goal lies less than `depth` moves away within the bound; `next_bound`
    is the least f seen beyond the bound above the leaves.
    """

    bound: int
    depth: int
    leaves: list[list[int]]
    before: list[tuple[int, int]]
    expanded: int
    generated: int
    next_bound: int | None
    solution: list[int] | None


def search(problem: Problem, limits_: Limits, heuristic: Heuristic, prefix: str, bound: int,
           split_depth: int | None = None) -> SearchReport:
    """The IDA* iteration with `bound` below the board the moves of `prefix` (such as ``RDLU``) lead to.

    SOLVED with the whole path from the start, else FAILED; `extra` has the
    bound, the prefix, the split's depth and the least f seen beyond the
    bound (`next_bound`, None when nothing lies beyond). PuzzleError if the
    prefix is not a path of legal moves.
    """
    moves = np.array(_legal_path(problem, prefix), dtype=np.int64)
    status, solution, counters, next_bound, _ = _run(problem, limits_, heuristic, moves, bound, 0)
    outcome, reason = limits.outcome_of(status, limits_)
    if outcome == Outcome.FAILED:
        reason = f"no solution within the bound {bound} below {prefix or 'the start'}"
    return SearchReport(
        outcome=outcome, path=[int(m) for m in solution], expanded=int(counters[idastar.EXPANDED]),
        generated=int(counters[idastar.GENERATED]), max_frontier=int(counters[idastar.MAX_FRONTIER]), reason=reason,
        extra={"bound": bound, "prefix": prefix, "split_depth": split_depth, "next_bound": _bound_or_none(next_bound)},
    )


def _legal_path(problem: Problem, prefix: str) -> list[int]:
    """The move codes of `prefix`; PuzzleError unless each is legal where it is played."""
    key, codes = problem.start_key(), []
    for letter in prefix:
        following = {problem.format_move(move): (move, successor) for move, successor in problem.successors(key)}
        if letter not in following:
            raise PuzzleError(f"prefix {prefix!r}: {letter!r} is not a legal move after {len(codes)} moves")
        move, key = following[letter]
        codes.append(move)
    return codes


def frontier(problem: Problem, heuristic: Heuristic, bound: int, depth: int) -> Frontier:
    """The nodes `depth` moves below the start whose f stays within `bound`, in depth-first order."""
    capacity = LEAF_ROWS
    while True:
        status, solution, counters, next_bound, leaves = _run(
            problem, Limits(), heuristic, np.empty(0, dtype=np.int64), bound, depth, capacity
        )
        if counters[idastar.LEAVES] <= capacity:
            break
        capacity = int(counters[idastar.LEAVES])
    found = [int(m) for m in solution] if status == limits.SOLVED else None
    rows = leaves[: counters[idastar.LEAVES]].tolist()
    return Frontier(bound, depth, [row[:depth] for row in rows], [(row[depth], row[depth + 1]) for row in rows],
                    int(counters[idastar.EXPANDED]), int(counters[idastar.GENERATED]), _bound_or_none(next_bound), found)


def whole(problem: Problem, heuristic: Heuristic, bound: int) -> Frontier:
    """The iteration with `bound` searched from the start, as a frontier with no leaves: its counts, its solution."""
    status, solution, counters, next_bound, _ = _run(problem, Limits(), heuristic, np.empty(0, dtype=np.int64), bound, 0)
    return Frontier(bound, 0, [], [], int(counters[idastar.EXPANDED]), int(counters[idastar.GENERATED]),
                    _bound_or_none(next_bound), [int(m) for m in solution] if status == limits.SOLVED else None)


def _run(problem: Problem, limits_: Limits, heuristic: Heuristic, prefix: np.ndarray, bound: int, depth: int,
         capacity: int = 0) -> tuple:
    max_nodes, deadline = limits.budget(limits_)
    return idastar.entries(heuristic.code)[1](heuristic.spec, problem.start_key(), prefix, bound, depth, capacity,
                                              problem.kernels.max_branching, max_nodes, deadline)


def _bound_or_none(value: int) -> int | None:
    return None if value == idastar.NO_BOUND else int(value)
