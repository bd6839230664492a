"""A solution believed only once replayed: every move legal from the start, the last one reaching the goal.

slidelab's own algorithms are trusted; a plugin's solution is replayed on the
problem before it is stored as solved, and one that does not hold is a failed
result that says which move went wrong.
"""

from dataclasses import replace

from puzzles.problem import Problem
from puzzles.result import Outcome, SearchReport
from puzzles.textio import plural


def replayed(problem: Problem, report: SearchReport) -> SearchReport:
    """`report`, or a failed one naming the fault if its solution does not replay on `problem`."""
    if report.outcome != Outcome.SOLVED:
        return report
    fault = solution_fault(problem, report.path)
    if fault is None:
        return report
    return replace(report, outcome=Outcome.FAILED, path=[], reason=f"invalid solution: {fault}")


def solution_fault(problem: Problem, moves: list[int]) -> str | None:
    """What is wrong with `moves` as a solution of `problem` (`move 7 (C+2) is not legal there`), or None."""
    key = problem.start_key()
    for number, move in enumerate(moves, 1):
        following = dict(problem.successors(key))
        if move not in following:
            return f"move {number} ({_move_text(problem, move)}) is not legal there"
        key = following[move]
    if not problem.is_goal(key):
        return f"after its {plural(len(moves), 'move')} the goal is not reached"
    return None


def _move_text(problem: Problem, move: int) -> str:
    """The move in the domain's notation, or its code if it is no move of the domain at all."""
    try:
        return problem.format_move(move)
    except (IndexError, ValueError, KeyError):
        return f"code {move}"
