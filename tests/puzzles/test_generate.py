"""Generated boards: valid, solvable, reproducible from the seed, distinct, and as hard as asked (checked by search).

The N-puzzle's distances come from BFS (3x3) or IDA* (larger boards); Rush
Hour's from `solve(..., "bfs")`, and the compiled cluster distances are
checked against the pure-Python state space of `rushhour_truth`.
"""

from collections import Counter
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import GOALS, goal_tiles, is_solvable
from puzzles.npuzzle.generate import random_boards
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.result import Outcome
from puzzles.rushhour.formats import canonical_text, format_board, parse_board
from puzzles.rushhour.generate import TooFewBoards, cluster_distances, default_max_attempts, hardest_boards
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import course, distances_to_goal, enumerate_space


def npuzzle_distance(board) -> int:
    """The fewest moves to the board's goal: BFS on 3x3 and smaller, IDA* (admissible heuristic) beyond."""
    result = solve(NPuzzleProblem(board), "bfs" if len(board.tiles) <= 9 else "idastar")
    assert result.outcome == Outcome.SOLVED
    return result.moves


# --- N-puzzle ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("width, height", [(4, 4), (3, 3), (2, 5)])
def test_uniform_boards_are_valid_solvable_distinct_and_named(width, height, goal):
    boards = random_boards(width, height, 40, 1, goal=goal)
    assert [b.name for b in boards[:2]] == [f"npuzzle-{width}x{height}-s1-001", f"npuzzle-{width}x{height}-s1-002"]
    assert len({b.tiles for b in boards}) == 40
    for board in boards:
        assert (board.width, board.height, board.goal) == (width, height, goal)
        assert sorted(board.tiles) == list(range(width * height))
        assert is_solvable(board)


def test_boards_are_reproducible_from_the_seed_and_differ_across_seeds():
    assert random_boards(4, 4, 20, 7) == random_boards(4, 4, 20, 7)
    assert random_boards(4, 4, 5, 7, walk=30) == random_boards(4, 4, 5, 7, walk=30)
    assert not {b.tiles for b in random_boards(4, 4, 20, 7)} & {b.tiles for b in random_boards(4, 4, 20, 8)}
    assert random_boards(4, 4, 5, 7, walk=30) != random_boards(4, 4, 5, 8, walk=30)


def test_uniform_boards_look_uniform():
    """Over 900 3x3 boards every tile lands on every cell, about 100 times each (a fixed seed: not flaky)."""
    counts = Counter((cell, tile) for b in random_boards(3, 3, 900, 1) for cell, tile in enumerate(b.tiles))
    assert len(counts) == 81
    chi_square = sum((seen - 100) ** 2 / 100 for seen in counts.values())
    assert chi_square < 120  # 64 degrees of freedom: mean 64, sd 11; 120 is p ~ 1e-5


@settings(max_examples=25, deadline=None)
@given(
    shape=st.sampled_from([(3, 3), (2, 4), (4, 4)]),
    walk=st.integers(0, 24),
    seed=st.integers(0, 2**32),
    goal=st.sampled_from(GOALS),
)
def test_a_walk_of_n_moves_ends_at_most_n_moves_away_with_the_parity_of_n(shape, walk, seed, goal):
    (board,) = random_boards(*shape, 1, seed, walk=walk, goal=goal)
    assert is_solvable(board)
    distance = npuzzle_distance(board)
    assert distance <= walk and distance % 2 == walk % 2


def test_walks_are_distinct_or_fail_clearly():
    assert random_boards(3, 3, 1, 1, walk=0)[0].tiles == goal_tiles(3, 3)
    assert len(random_boards(3, 3, 2, 1, walk=1)) == 2  # the blank's two neighbours
    with pytest.raises(PuzzleError, match="gave only 2 distinct boards, not 3"):
        random_boards(3, 3, 3, 1, walk=1)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"width": 1}, "width and height must be 2 to 8"),
        ({"height": 9}, "width and height must be 2 to 8"),
        ({"count": 0}, "count must be at least 1"),
        ({"walk": -1}, "at least 0 moves"),
        ({"goal": "blank-middle"}, "unknown goal"),
    ],
)
def test_npuzzle_generation_refuses_bad_arguments(arguments, message):
    with pytest.raises(PuzzleError, match=message):
        random_boards(**{"width": 3, "height": 3, "count": 5, "seed": 1, **arguments})


# --- Rush Hour --------------------------------------------------------------------------------------


@cache
def generated(size: int, count: int, seed: int, **options) -> list:
    """`hardest_boards`, once per arguments in this module."""
    return hardest_boards(size, count, seed, **options)


def assert_valid_and_as_hard_as_claimed(board, distance, size):
    """The board reads back from its canonical text, writes in every format, and BFS confirms `distance`."""
    assert board.size == size and not board.walls
    assert parse_board(canonical_text(board), fmt="json", name=board.name) == board
    assert parse_board(format_board(board, "csv"), size=size).vehicles[0].name == "X"
    if len(board.vehicles) <= 26:
        assert parse_board(format_board(board, "grid")) is not None
    red, *others = board.vehicles
    assert red.name == board.red == "X" and red.horizontal and red.length == 2 and red.row == (size - 1) // 2
    assert all(v.length in (2, 3) and not (v.horizontal and v.row == red.row) for v in others)
    assert [(v.row, v.col) for v in others] == sorted((v.row, v.col) for v in others)  # labelled in reading order
    assert solve(RushHourProblem(board), "bfs").moves == distance


def test_rushhour_boards_are_valid_distinct_named_and_as_hard_as_claimed():
    boards = generated(6, 6, 1, min_moves=12)
    assert [b.name for b, _ in boards][:2] == ["rushhour-6x6-s1-001", "rushhour-6x6-s1-002"]
    assert len({canonical_text(b) for b, _ in boards}) == 6
    for board, distance in boards:
        assert distance >= 12
        assert_valid_and_as_hard_as_claimed(board, distance, 6)


def test_each_rushhour_board_is_the_hardest_of_its_cluster():
    for board, distance in generated(6, 6, 1, min_moves=12):
        problem = RushHourProblem(board)
        keys, distances = cluster_distances(problem.kernels.spec, problem.start_key(), problem.kernels.max_branching, 10**6)
        assert distances.max() == distance and distances[0] == distance  # row 0: the board itself


def test_rushhour_boards_are_reproducible_from_the_seed_and_differ_across_seeds():
    assert hardest_boards(6, 3, 5, min_moves=8) == generated(6, 3, 5, min_moves=8)
    other = {canonical_text(b) for b, _ in hardest_boards(6, 3, 6, min_moves=8)}
    assert not other & {canonical_text(b) for b, _ in generated(6, 3, 5, min_moves=8)}


def test_rushhour_boards_of_exactly_the_moves_asked():
    for board, distance in generated(6, 4, 2, moves=15):
        assert distance == 15
        assert_valid_and_as_hard_as_claimed(board, 15, 6)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), min_moves=st.integers(1, 15), empty_cells=st.integers(0, 12))
def test_any_seed_and_density_give_boards_of_their_claimed_optimum(seed, min_moves, empty_cells):
    ((board, distance),) = hardest_boards(6, 1, seed, min_moves=min_moves, empty_cells=empty_cells)
    assert distance >= min_moves
    assert_valid_and_as_hard_as_claimed(board, distance, 6)


@pytest.mark.parametrize("size, min_moves", [(9, 10), (12, 5)])
def test_larger_boards(size, min_moves):
    boards = generated(size, 2, 1, min_moves=min_moves, max_states=50_000)
    for board, distance in boards:
        assert distance >= min_moves
        assert_valid_and_as_hard_as_claimed(board, distance, size)


def test_cluster_distances_agree_with_a_pure_python_search():
    problem = course("6x6_1")
    keys, distances = cluster_distances(problem.kernels.spec, problem.start_key(), problem.kernels.max_branching, 10**6)
    space = enumerate_space(problem)
    assert len(keys) == len(space.keys) == 818
    expected = dict(zip(space.keys, distances_to_goal(problem, space)))
    assert all(expected[tuple(int(w) for w in key)] == d for key, d in zip(keys, distances))
    assert distances[0] == 21  # the course board's optimum


def test_cluster_distances_stop_past_max_states():
    problem = course("6x6_1")
    keys, distances = cluster_distances(problem.kernels.spec, problem.start_key(), problem.kernels.max_branching, 100)
    assert len(keys) == 101 and np.all(distances == -1)


def test_an_impossible_request_fails_naming_what_was_reached():
    with pytest.raises(PuzzleError, match=r"20 placements on 6x6 gave 0 of 1 boards needing at least 200 moves "
                                          r"\(the hardest reached needs \d+; 0 clusters had more than"):  # fmt: skip
        hardest_boards(6, 1, 1, min_moves=200, max_attempts=20)


def test_the_default_attempts_shrink_with_the_board_so_an_impossible_request_ends_within_minutes(monkeypatch):
    assert [default_max_attempts(size) for size in (4, 6, 7, 9, 12, 16)] == [100_000, 100_000, 4_373, 2_057, 868, 366]
    monkeypatch.setattr("puzzles.rushhour.generate.default_max_attempts", lambda size: size - 4)
    with pytest.raises(TooFewBoards, match=r"^3 placements on 7x7 gave 0 of 1 boards"):
        hardest_boards(7, 1, 1, min_moves=200)
    assert issubclass(TooFewBoards, PuzzleError)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"size": 3}, "board size must be 4 to 16"),
        ({"count": 0}, "count must be at least 1"),
        ({"min_moves": 5, "moves": 6}, "not both"),
        ({"moves": 0}, "moves must be at least 1"),
        ({"empty_cells": -1}, "empty_cells must be at least 0"),
        ({"max_states": 0}, "max_states must be at least 1"),
        ({"max_attempts": 0}, "max_attempts must be at least 1"),
    ],
)
def test_rushhour_generation_refuses_bad_arguments(arguments, message):
    with pytest.raises(PuzzleError, match=message):
        hardest_boards(**{"size": 6, "count": 1, "seed": 1, **arguments})
