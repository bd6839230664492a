"""greedy-search's algorithms and heuristics, run by slidelab on the course boards, checked against known optima.

The course boards' optimal solutions (fewest slides) are known: 21, 15 and 33
moves. Weighted A* with w = 1 and a consistent heuristic finds them; with a
larger w its solutions are at most w times as long; greedy best-first search
solves each board, however long its solution.
"""

from pathlib import Path

import pytest
from greedy_search.algorithms import greedy, wastar

import slidelab

BOARDS = Path(__file__).resolve().parents[3] / "data" / "boards" / "rushhour"
OPTIMA = {"Rushhour6x6_1.csv": 21, "Rushhour6x6_2.csv": 15, "Rushhour6x6_3.csv": 33}


def solved(board: str, algorithm: str, **params) -> int:
    """The length of the solution `algorithm` finds on a course board (slidelab replays it before it says solved)."""
    result = slidelab.solve(str(BOARDS / board), algorithm, time_limit=120, **params).result
    assert str(result.outcome) == "solved", result.reason
    return result.moves


@pytest.mark.parametrize("heuristic", ["blockers-lb", "blockers-nb", "blockers-py"])
@pytest.mark.parametrize("board", OPTIMA)
def test_weighted_astar_with_w_1_finds_the_known_optimum(board, heuristic):
    assert solved(board, "wastar", w=1.0, heuristic=heuristic) == OPTIMA[board]


@pytest.mark.parametrize("w", [1.5, 3.0])
@pytest.mark.parametrize("board", OPTIMA)
def test_weighted_astar_is_at_most_w_times_longer_than_the_optimum(board, w):
    assert OPTIMA[board] <= solved(board, "wastar", w=w) <= w * OPTIMA[board]


@pytest.mark.parametrize("board", OPTIMA)
def test_greedy_solves_the_course_boards(board):
    assert solved(board, "greedy", heuristic="blockers-nb") >= OPTIMA[board]


def test_the_declarations_say_what_slidelab_offers():
    assert greedy.__slidelab__.takes_heuristic and not greedy.__slidelab__.params
    (name, w), = wastar.__slidelab__.params.items()
    assert (name, w.default, w.kind, w.minimum) == ("w", 1.5, float, 1)
    assert not wastar.__slidelab__.optimal  # shortest only with w = 1: it claims no optimality
