"""The static check that proves a Rush Hour board unsolvable at once (`puzzles.rushhour.static`) against exhaustive BFS.

It must be sound: every board it calls unsolvable has, by the pure-Python
enumeration of its whole state space (`tests/puzzles/rushhour_truth.py`), no
reachable solved board.
"""

import pytest
from hypothesis import HealthCheck, assume, given, settings

from puzzles.rushhour.formats import parse_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.rushhour.static import exit_blocked
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import distances_to_goal, enumerate_space, small_boards

UNSOLVABLE = {  # 6x6 Fogleman strings, row by row; the red car A in the third row
    "a wall stands between the red car and the exit": "oooooo" "oooooo" "AAooxo" "oooooo" "oooooo" "oooooo",
    "B lies between the red car and the exit": "oooooo" "oooooo" "AAoBBo" "oooooo" "oooooo" "oooooo",
    "B blocks the exit and has no room": "ooooxo" "ooooBo" "AAooBo" "ooooBo" "ooooxo" "oooooo",  # walled above and below
    "C blocks the exit and has no room": "ooooBo" "ooooBo" "AAooCo" "ooooCo" "ooooDo" "ooooDo",  # B and D in its way
}
SOLVABLE = [
    "oooooo" "ooooBo" "AAooBo" "ooooBo" "oooooo" "oooooo",  # B can go down
    "ooooBo" "ooooBo" "AAooCo" "ooooCo" "oooooo" "ooooDD",  # C can go down: D is horizontal and moves aside
    "ooooxo" "oooooo" "AAooBo" "ooooBo" "oooooo" "ooooxo",  # room below the wall above and above the wall below
]


def _truly_unsolvable(problem: RushHourProblem) -> bool:
    space = enumerate_space(problem)
    return distances_to_goal(problem, space)[0] == float("inf")


@pytest.mark.parametrize("reason, text", UNSOLVABLE.items(), ids=list(UNSOLVABLE))
def test_a_blocked_exit_is_reported_at_once_and_bfs_agrees(reason, text):
    problem = RushHourProblem(parse_board(text))
    assert problem.unsolvable_reason().startswith(reason)
    assert _truly_unsolvable(problem)
    result = solve(problem, "bfs")
    assert result.outcome == "unsolvable" and result.expanded == 0
    assert result.reason.startswith(reason) and result.reason.endswith("nothing searched")


@pytest.mark.parametrize("text", SOLVABLE)
def test_a_blocker_with_room_to_leave_is_left_to_the_search(text):
    problem = RushHourProblem(parse_board(text))
    assert problem.unsolvable_reason() is None
    assert not _truly_unsolvable(problem)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_boards())
def test_the_check_never_calls_a_solvable_board_unsolvable(text):
    board = parse_board(text)
    assume(exit_blocked(board) is not None)
    problem = RushHourProblem(board, "step")
    space = enumerate_space(problem, cap=20_000)
    assume(space is not None)
    assert distances_to_goal(problem, space)[0] == float("inf")
