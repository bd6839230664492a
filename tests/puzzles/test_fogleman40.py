"""Fogleman's 40 puzzles of the regular edition, the successors' heuristics scored in a batch, and blocking-tree.

The puzzles' optima (data/boards/fogleman/forty.txt) are this project's: no
public list of them was found. Two independent searches back them here: the
compiled BFS and A* with blocking-tree, and, on every fourth puzzle, a
pure-Python BFS over `problem.successors`. Blocking-tree's admissibility is
tested exhaustively on the 6x6 boards in test_rushhour_state_spaces.py (and on a few
of these puzzles below); here also that the batch scoring of successors gives
exactly the values of scoring each successor alone.
"""

from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import kernels
from puzzles.result import Limits
from puzzles.rushhour import heuristics as rh
from puzzles.rushhour import kernels as rk
from puzzles.rushhour.formats import load_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import assert_solution, check_admissible, course, distances_to_goal, space

FORTY = Path(__file__).resolve().parents[2] / "data" / "boards" / "fogleman" / "forty.txt"
PUZZLES = [line.split() for line in FORTY.read_text().splitlines() if line and not line.startswith("#")]
COURSE = ["6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6", "12x12_7"]


def python_bfs_moves(problem: RushHourProblem) -> int:
    """The fewest moves to a solved board, by a plain breadth-first search in Python."""
    start = problem.start_key()
    seen = {start.tobytes()}
    queue = deque([(start, 0)])
    while queue:
        key, depth = queue.popleft()
        if problem.is_goal(key):
            return depth
        for _, child in problem.successors(key):
            if child.tobytes() not in seen:
                seen.add(child.tobytes())
                queue.append((child, depth + 1))
    raise AssertionError("unsolvable")


def test_forty_puzzles_are_listed_in_order_with_their_lengths():
    assert len(PUZZLES) == 40
    lengths = [int(moves) for _, moves in PUZZLES]
    assert (lengths[0], lengths[-1], max(lengths)) == (9, 44, 51)
    assert len({text for text, _ in PUZZLES}) == 40


@pytest.mark.parametrize("number", range(1, 41))
def test_bfs_and_astar_find_each_puzzles_listed_optimum(number):
    text, moves = PUZZLES[number - 1]
    problem = RushHourProblem(load_board(text))
    for algorithm, params in (("bfs", {}), ("astar", {"heuristic": "blocking-tree"})):
        result = solve(problem, algorithm, params, Limits(time_limit=60))
        assert_solution(problem, result)
        assert result.moves == int(moves)
    if number % 4 == 1:
        assert python_bfs_moves(problem) == int(moves)


@pytest.mark.parametrize("number", [1, 16, 38])  # 9, 38 and 51 moves
def test_blocking_tree_is_admissible_on_every_state_of_fogleman_puzzles(number):
    problem = RushHourProblem(load_board(PUZZLES[number - 1][0]))
    sp = space(problem)
    _, deeper, solvable = check_admissible(problem, sp, distances_to_goal(problem, sp))
    assert solvable == len(sp.keys) and deeper > 0


def walk(problem: RushHourProblem, steps: int, seed: int) -> list[np.ndarray]:
    """The keys along a random walk from the start."""
    rng = np.random.default_rng(seed)
    keys = [problem.start_key()]
    for _ in range(steps):
        successors = problem.successors(keys[-1])
        keys.append(successors[rng.integers(len(successors))][1])
    return keys


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(COURSE), st.sampled_from(["slide", "step"]), st.integers(0, 2**32 - 1))
def test_successors_scored_in_a_batch_equal_each_scored_alone(name, model, seed):
    problem = course(name, model)
    spec, branching = problem.kernels.spec, problem.kernels.max_branching
    work = rk.workspace(spec)
    out_keys = np.empty((branching, problem.kernels.key_words), dtype=np.uint64)
    out_moves = np.empty(branching, dtype=np.int64)
    for key in walk(problem, 30, seed):
        for name_ in rh.HEURISTICS:
            h = problem.heuristic(name_)
            count = kernels.expand(spec, work, key, out_keys, out_moves)
            rows = np.arange(count)[::-1].copy()  # any subset, any order
            batch = np.full(branching, -99, dtype=np.int64)
            kernels.child_heuristics(spec, work, h.code, h.args, key, out_keys, out_moves, rows, count, count, batch)
            alone = [rh.heuristic(spec, rk.workspace(spec), h.code, h.args, out_keys[j], count) for j in range(count)]
            assert list(batch[:count]) == alone, name_


def test_blocking_tree_shortens_beams_on_6x6_2_and_ties_with_blockers_lb_on_9x9_4():
    # measured (docs/performance.md): on 6x6_2 beam with blockers-lb fails for k = 1, 2 and needs 67, 47 moves for
    # k = 5, 10; with blocking-tree 46, 27, 27, 18. On 9x9_4 both rank every layer alike (tree = lb + 1 there).
    problem = course("6x6_2")
    for k, moves in ((1, 46), (2, 27), (5, 27), (10, 18)):
        result = solve(problem, "beam", {"k": k, "heuristic": "blocking-tree"})
        assert_solution(problem, result)
        assert result.moves == moves
    for k in (1, 2):
        assert solve(problem, "beam", {"k": k, "heuristic": "blockers-lb"}).outcome == "failed"
    nine = course("9x9_4")
    tree, lower = (solve(nine, "beam", {"k": 10, "heuristic": h}) for h in ("blocking-tree", "blockers-lb"))
    assert_solution(nine, tree)
    assert (tree.moves, tree.expanded) == (lower.moves, lower.expanded) == (259, 2569)
