"""The memo of IDDFS and IDA* (a transposition table, as in Fogleman's solver): optimal, and the same as without it.

Without the memo both searches revisit Rush Hour's boards exponentially
(Rushhour6x6_1's 21 moves took IDDFS over 10 minutes); with it they solve the
course boards (the 6x6 ones and 9x9_4 here; 9x9_5 and 9x9_6, minutes each,
in `bench/depthfirst.py`, which checks their lengths too). The memo changes no
answer: on boards small enough for the textbook searches, both give the same
length, and the N-puzzle's IDA* gives the same length over keys with the memo
as in place without it.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.algorithms import bind_params, with_domain_defaults
from puzzles.npuzzle.board import NPuzzleBoard
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.result import Limits, Outcome
from puzzles.search import iddfs
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import CRAFTED, SLIDE_OPTIMA, assert_solution, course, letters

HEURISTIC = {"iddfs": {}, "idastar": {"heuristic": "blockers-lb"}}
EIGHT = [(4, 1, 2, 7, 6, 3, 5, 8, 0), (8, 1, 3, 4, 0, 2, 7, 6, 5), (1, 2, 3, 4, 5, 6, 0, 7, 8)]


@pytest.mark.parametrize("algorithm", HEURISTIC)
@pytest.mark.parametrize("board", ["6x6_1", "6x6_2", "6x6_3", "9x9_4"])
def test_the_memo_solves_the_course_boards_optimally(board, algorithm):
    problem = course(board)
    result = solve(problem, algorithm, HEURISTIC[algorithm], Limits(time_limit=300))
    assert result.params["memo"] is True  # Rush Hour's default, shown with the job
    assert_solution(problem, result)
    assert result.moves == result.extra["bound"] == SLIDE_OPTIMA[board]
    held = result.expanded if algorithm == "iddfs" else result.generated + 1  # IDA*: estimates beyond a bound too
    assert 0 < result.stored <= held  # the memo holds each board once


@pytest.mark.parametrize("algorithm", HEURISTIC)
@pytest.mark.parametrize("model", ["slide", "step"])
@pytest.mark.parametrize("text", CRAFTED)
def test_memo_and_no_memo_find_the_same_length(text, model, algorithm):
    problem = letters(text, model)
    optimum = CRAFTED[text][model == "step"]
    if algorithm == "iddfs" and optimum > 12:
        pytest.skip("the textbook IDDFS's tree grows too fast beyond 12 moves")
    lengths = []
    for memo in (True, False):
        result = solve(problem, algorithm, {**HEURISTIC[algorithm], "memo": memo}, Limits(time_limit=60))
        assert_solution(problem, result)
        assert (result.params["memo"], result.stored > 0) == (memo, memo)
        lengths.append(result.moves)
    assert lengths == [optimum, optimum]


@settings(max_examples=15, deadline=None)
@given(tiles=st.permutations(range(9)), heuristic=st.sampled_from(["manhattan", "linear-conflict"]))
def test_the_n_puzzles_idastar_finds_the_same_length_with_and_without_the_memo(tiles, heuristic):
    problem = NPuzzleProblem(NPuzzleBoard(3, 3, tuple(tiles)))
    plain = solve(problem, "idastar", {"heuristic": heuristic}, Limits(time_limit=60))
    memo = solve(problem, "idastar", {"heuristic": heuristic, "memo": True}, Limits(time_limit=60))
    assert "memo" not in plain.params and plain.stored == 0  # the N-puzzle's default: in place, no memo
    assert memo.outcome == plain.outcome and memo.moves == plain.moves
    if plain.outcome == Outcome.SOLVED:
        assert problem.check_solution(memo.move_codes) and memo.stored > 0


def test_without_the_memo_iddfs_revisits_boards_and_with_it_does_not():
    problem = course("6x6_2")
    textbook = iddfs.search(problem, Limits(max_nodes=100_000))
    remembered = iddfs.search(problem, Limits(max_nodes=100_000), memo=True)
    assert textbook.outcome == "limit" and textbook.stored == 0  # still short of 15 moves after 100,000 expansions
    assert remembered.outcome == "solved" and len(remembered.path) == SLIDE_OPTIMA["6x6_2"]
    assert remembered.expanded < 20_000


def test_memo_is_a_parameter_whose_default_is_the_domains():
    assert bind_params("iddfs", {"memo": "false"}) == {"memo": False}
    assert bind_params("idastar", {})["heuristic"] == "blockers-lb" and "memo" not in bind_params("idastar", {})
    eight = NPuzzleProblem(NPuzzleBoard(3, 3, EIGHT[0]))
    assert with_domain_defaults(course("6x6_1"), "iddfs", {}, {}) == {"memo": True}
    assert with_domain_defaults(course("6x6_1"), "idastar", {"memo": False}, {"memo": False})["memo"] is False
    assert "memo" not in with_domain_defaults(eight, "iddfs", {}, {})
    assert "memo" not in with_domain_defaults(course("6x6_1"), "astar", {"heuristic": "blockers-lb"}, {})
