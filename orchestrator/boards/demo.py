"""`orchestrate demo`: five algorithms on a few Rush Hour boards, in this process, without a database."""

from importlib import resources
from pathlib import Path
from typing import Any

from puzzles.domains import load_instance, problem_for
from puzzles.result import Limits, SolveResult
from puzzles.solver import solve

COURSE_FILES = resources.files(__package__) / "shipped" / "rushhour"  # package data (data/boards/rushhour)
DEMO_BOARDS = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv", "Rushhour9x9_4.csv")
# (label, algorithm, params, seed) of each demo run.
DEMO_RUNS: tuple[tuple[str, str, dict[str, Any], int | None], ...] = (
    ("bfs", "bfs", {}, None),
    ("astar(lb)", "astar", {"heuristic": "blockers-lb"}, None),
    ("beam(k=50, lb)", "beam", {"k": 50, "heuristic": "blockers-lb"}, None),
    ("moves-freed", "moves-freed", {}, None),
    ("spr(5x10, seed=1)", "spr", {"batches": 5, "batch_size": 10}, 1),
)


def default_boards() -> list[str]:
    """The three 6x6 course boards and Rushhour9x9_4."""
    return [str(COURSE_FILES / name) for name in DEMO_BOARDS]


def run_demo(boards: list[str], limits: Limits) -> list[tuple[str, str, SolveResult]]:
    """Every demo algorithm on every board: (board name, algorithm label, result) rows."""
    rows = []
    for source in boards:
        board = load_instance(source, "rushhour")
        problem = problem_for(board.domain, board.text)
        name = board.name or Path(source).stem
        for label, algorithm, params, seed in DEMO_RUNS:
            rows.append((name, label, solve(problem, algorithm, params, limits, seed=seed)))
    return rows
