"""The inversion-parity rule against exhaustive breadth-first search over every board of small shapes."""

import random
from itertools import permutations
from math import factorial

import pytest

from puzzles.npuzzle.board import GOALS, NPuzzleBoard, apply_moves, goal_tiles, is_solvable


def reachable(width: int, height: int, start: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every board the blank can reach from `start`, by breadth-first search over tuples."""
    cells = width * height
    neighbours = [
        [n for n in (c - width, c + width) if 0 <= n < cells]
        + [n for n in (c - 1, c + 1) if 0 <= n < cells and n // width == c // width]
        for c in range(cells)
    ]
    seen = {start}
    layer = [(start, start.index(0))]
    while layer:
        following = []
        for tiles, blank in layer:
            for target in neighbours[blank]:
                moved = list(tiles)
                moved[blank], moved[target] = moved[target], 0
                key = tuple(moved)
                if key not in seen:
                    seen.add(key)
                    following.append((key, target))
        layer = following
    return seen


@pytest.mark.parametrize("width, height", [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)])
@pytest.mark.parametrize("goal", GOALS)
def test_parity_rule_is_exactly_reachability(width, height, goal):
    target = goal_tiles(width, height, goal)
    found = reachable(width, height, target)
    assert len(found) == factorial(width * height) // 2  # 181,440 on 3x3
    for tiles in permutations(range(width * height)):
        assert is_solvable(NPuzzleBoard(width, height, tiles), goal) == (tiles in found), tiles


@pytest.mark.parametrize("width, height", [(2, 2), (3, 3), (4, 4), (2, 5), (5, 3), (8, 8)])
@pytest.mark.parametrize("goal", GOALS)
def test_random_walks_from_the_goal_stay_solvable(width, height, goal):
    rng = random.Random(width * 100 + height)
    board = NPuzzleBoard(width, height, goal_tiles(width, height, goal))
    for _ in range(200):
        row, col = divmod(board.blank, width)
        legal = [m for m, ok in zip("UDLR", (row > 0, row < height - 1, col > 0, col < width - 1)) if ok]
        board = apply_moves(board, rng.choice(legal))
        assert is_solvable(board, goal)
        swapped = list(board.tiles)
        a, b = [cell for cell, tile in enumerate(swapped) if tile][:2]  # swapping two tiles flips the class
        swapped[a], swapped[b] = swapped[b], swapped[a]
        assert not is_solvable(NPuzzleBoard(width, height, tuple(swapped)), goal)
