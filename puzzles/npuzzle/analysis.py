"""Every solvable board of a small N-puzzle with its true distance and each heuristic's estimate.

A breadth-first search from the goal over tuples of tiles gives each board's
distance (moves are reversible, so the distance from the goal is the distance
to it); the compiled heuristics then score every board. Small boards only: the
3x3 space has 181,440 boards, a 3x4 one already 239 million.
"""

from collections import deque
from typing import Any

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.kernels import estimates
from puzzles.npuzzle import kernels as nk
from puzzles.npuzzle.board import NPuzzleBoard, check_goal, goal_tiles
from puzzles.npuzzle.pdb import default_partition
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.problem import Heuristic

MAX_CELLS = 9  # 9! / 2 boards at most


def distances(width: int, height: int, goal: str = "blank-last") -> dict[tuple[int, ...], int]:
    """Every board that can reach the goal, with its fewest moves to it."""
    if width * height > MAX_CELLS:
        raise PuzzleError(f"a {width}x{height} board has too many states to enumerate (at most {MAX_CELLS} cells)")
    start = goal_tiles(width, height, goal)
    found = {start: 0}
    queue = deque([start])
    while queue:
        tiles = queue.popleft()
        blank = tiles.index(0)
        row, col = divmod(blank, width)
        for d_row, d_col in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= row + d_row < height and 0 <= col + d_col < width:
                target = (row + d_row) * width + col + d_col
                swapped = list(tiles)
                swapped[blank], swapped[target] = swapped[target], 0
                moved = tuple(swapped)
                if moved not in found:
                    found[moved] = found[tiles] + 1
                    queue.append(moved)
    return found


def analysis(width: int, height: int, goal: str = "blank-last", partitions: list[str] | None = None) -> dict[str, Any]:
    """Columns of every solvable board: `board` (its tiles), `distance` (its fewest moves) and each heuristic's estimate.

    The pattern databases are those of `partitions` (default: the size's own).
    """
    check_goal(goal)  # an unknown goal is refused before the search
    found = distances(width, height, goal)
    boards = list(found)
    return {
        "board": ["".join(map(str, tiles)) if width * height <= 10 else " ".join(map(str, tiles)) for tiles in boards],
        "distance": list(found.values()),
        **heuristic_values(width, height, boards, goal, partitions),
    }


def heuristic_values(
    width: int, height: int, boards: list[tuple[int, ...]], goal: str = "blank-last", partitions: list[str] | None = None
) -> dict[str, np.ndarray]:
    """Each heuristic's estimate for each board, by name; the databases once per partition (`pdb 4-4`, `pdb-max 4-4`).

    The partitions default to the board size's (`pdb.default_partition`);
    `pdb-max` is left out on boards that are not square.
    """
    problem = NPuzzleProblem(NPuzzleBoard(width, height, goal_tiles(width, height, goal)), goal)
    keys = np.array([problem.encode(tiles) for tiles in boards])
    columns = {}
    for name in nk.HEURISTICS:
        if not name.startswith("pdb"):
            columns[name] = _estimates(problem.heuristic(name), keys)
        elif name == "pdb" or width == height:
            for partition in partitions or [default_partition(width, height)]:
                columns[f"{name} {partition}"] = _estimates(problem.heuristic(name, pdb=partition), keys)
    return columns


def _estimates(heuristic: Heuristic, keys: np.ndarray) -> np.ndarray:
    return estimates(heuristic.spec, heuristic.code, heuristic.args, keys)
