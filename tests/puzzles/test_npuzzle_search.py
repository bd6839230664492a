"""N-puzzle search: the seed's cases, the whole 8-puzzle space, and optimal algorithms agreeing."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.kernels import estimates
from puzzles.npuzzle import kernels as nk
from puzzles.npuzzle.analysis import distances
from puzzles.npuzzle.board import MOVES, NPuzzleBoard, goal_tiles
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.result import Outcome
from puzzles.solver import solve
from tests.puzzles.npuzzle_cases import SEED_CASES

OPTIMAL = [("bfs", {}), *[(a, {"heuristic": h}) for a in ("astar", "idastar") for h in nk.HEURISTICS]]


def board(digits: str, width: int = 3, height: int = 3) -> NPuzzleBoard:
    return NPuzzleBoard(width, height, tuple(int(d) for d in digits))


@pytest.mark.parametrize("digits, length", SEED_CASES.items())
@pytest.mark.parametrize("algorithm, params", OPTIMAL + [("iddfs", {})])
def test_the_seed_cases(digits, length, algorithm, params):
    problem = NPuzzleProblem(board(digits))
    result = solve(problem, algorithm, params)
    if length is None:
        assert (result.outcome, result.expanded) == (Outcome.UNSOLVABLE, 0)
        return
    assert (result.outcome, result.moves) == (Outcome.SOLVED, length)
    assert problem.check_solution(result.move_codes)
    assert set("".join(result.solution)) <= set(MOVES)


def test_the_goal_needs_no_move_under_either_convention():
    for goal in ("blank-last", "blank-first"):
        problem = NPuzzleProblem(NPuzzleBoard(3, 3, goal_tiles(3, 3, goal)), goal)
        assert solve(problem, "bfs").moves == 0


def test_exhaustive_bfs_from_the_goal_reaches_half_the_8_puzzle_and_depth_31():
    result = solve(NPuzzleProblem(board("123456780")), "bfs", {"exhaustive": True})
    assert result.extra["reachable"] == 181_440
    per_depth = result.extra["depth_counts"]
    assert len(per_depth) == 32 and per_depth[-1] == 2  # the two hardest boards need 31 moves


@pytest.mark.slow
@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_every_heuristic_is_admissible_on_every_8_puzzle_board(goal):
    problem = NPuzzleProblem(board("123456780"), goal)
    spec = problem.heuristic("pdb", pdb="4-4").spec  # the seed's databases, {1,2,3,4} and {5,6,7,8}
    args = np.zeros(1)
    boards = distances(3, 3, goal)
    keys = np.array([problem.encode(tiles) for tiles in boards])
    columns = [estimates(spec, code, args, keys) for code in range(len(nk.HEURISTICS))]
    for (tiles, distance), *values in zip(boards.items(), *columns):
        misplaced, manhattan, conflict, pattern, pattern_max = values
        assert misplaced <= manhattan <= conflict <= distance, (tiles, values, distance)
        assert (conflict - manhattan) % 2 == 0
        assert manhattan <= pattern <= pattern_max <= distance, (tiles, values, distance)


def test_linear_conflict_counts_the_row_3_1_2_as_one_tile_out():
    # Tiles 3 1 2 in their goal row: only 3 must leave it, so 2 extra moves, not 4.
    problem = NPuzzleProblem(board("312456780"))
    keys = problem.start_key().reshape(1, -1)
    spec = problem.kernels.spec
    manhattan = estimates(spec, 1, np.zeros(1), keys)[0]
    assert estimates(spec, 2, np.zeros(1), keys)[0] == manhattan + 2


def scrambled(width: int, height: int, steps: int, seed: int) -> NPuzzleBoard:
    rng = random.Random(seed)
    tiles = list(goal_tiles(width, height, "blank-last"))
    for _ in range(steps):
        blank = tiles.index(0)
        row, col = divmod(blank, width)
        options = [(row + dr) * width + col + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                   if 0 <= row + dr < height and 0 <= col + dc < width]
        target = rng.choice(options)
        tiles[blank], tiles[target] = tiles[target], 0
    return NPuzzleBoard(width, height, tuple(tiles))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([(3, 3), (2, 4), (3, 2), (4, 2)]))
def test_optimal_algorithms_agree_on_random_boards(seed, size):
    problem = NPuzzleProblem(scrambled(*size, steps=40, seed=seed))
    square = size[0] == size[1]
    lengths = {f"{a} {p}": solve(problem, a, p).moves for a, p in OPTIMAL if square or p.get("heuristic") != "pdb-max"}
    assert len(set(lengths.values())) == 1, lengths


def test_a_15_puzzle_is_solved_optimally_by_a_star_with_each_heuristic():
    problem = NPuzzleProblem(scrambled(4, 4, steps=60, seed=7))
    lengths = {h: solve(problem, "astar", {"heuristic": h}).moves for h in ("manhattan", "linear-conflict")}
    assert len(set(lengths.values())) == 1 and lengths["manhattan"] > 0


def test_an_unknown_heuristic_names_the_choices():
    with pytest.raises(Exception, match="unknown heuristic 'blockers' for the N-puzzle"):
        NPuzzleProblem(board("123456780")).heuristic("blockers")
