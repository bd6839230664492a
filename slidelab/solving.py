"""Solving one board in this process: no database, no workers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from puzzles.problem import Problem
    from puzzles.result import SolveResult


@dataclass(frozen=True)
class Solved:
    """A search's result (`result`: outcome, solution, counters, times) and the problem it searched (`problem`)."""

    problem: Problem
    result: SolveResult

    def to_dict(self) -> dict[str, Any]:
        """The result as `orchestrate solve --json` prints it: the solution in the domain's notation."""
        return {**self.result.to_dict(), "solution": self.problem.json_solution(self.result.solution)}


def solve(board: str, algo: str, *, seed: int | None = None, goal: str | None = None, size: int | None = None,
          time_limit: float | None = None, max_nodes: int | None = None, memory_limit: str | None = None,
          on_compile: Callable[[], None] | None = None, **params: Any) -> Solved:
    """Solve one board (a file, `FILE#ID` for a row of a board list, or a literal board) with `algo` and its `params`.

    `params` are the algorithm's parameters by name (`k=20`, `heuristic="blockers-lb"`, `move_model="step"`);
    `seed` seeds a randomized algorithm (one is drawn and reported if not); `goal` is an N-puzzle's goal when
    the board gives none (`blank-last` or `blank-first`); `size` a Rush Hour CSV's size when its file name does
    not say it. Limits as a sweep's: seconds, states expanded, memory (`"2G"`). `on_compile` is called if
    the kernels must be compiled first (the first search of a kind on a machine). A search that ends unsolved
    returns its outcome (unsolvable, failed, limit); bad input raises PuzzleError.
    """
    from orchestrator.sweeps.job_limits import job_limits
    from puzzles.domains import load_problem
    from puzzles.result import Limits
    from puzzles.solver import solve as run_search
    from workers.runner import memory_cap
    from workers.settings import configure

    configure()
    problem = load_problem(board, size=size, move_model=params.get("move_model") or "slide", goal=goal)
    limits = job_limits(time_limit, max_nodes, memory_limit)
    with memory_cap(limits["memory_limit"]):
        result = run_search(problem, algo, params, Limits(max_nodes=max_nodes, time_limit=time_limit), seed=seed,
                            on_compile=on_compile)
    return Solved(problem, result)
