"""Rush Hour state spaces: exhaustive BFS counts every reachable board, and no admissible heuristic overestimates on any.

The ground truth is rebuilt in pure Python from `problem.successors` (`tests/puzzles/rushhour_truth.py`),
independently of the compiled searches.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from puzzles.rushhour import heuristics as rh
from puzzles.rushhour import kernels as rk
from puzzles.rushhour.formats import parse_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import (
    CRAFTED,
    FOGLEMAN,
    SLIDE_OPTIMA,
    SMALL,
    STEP_OPTIMA,
    assert_solution,
    check_admissible,
    course,
    distances_to_goal,
    enumerate_space,
    goal_distances,
    letters,
    run,
    small_boards,
    space,
)

REACHABLE = {"6x6_1": 818, "6x6_2": 13841, "6x6_3": 11252}
WALLED = [FOGLEMAN, "BoDDFBoooFAACoEoGCoEoGxoo", "EoooGoEBBBGoEFoCoDoFoCIDoAACIDJJJHHx",
          "oooxDooAAHDJooBHoJGoBCooGEICoooEIFFo"]  # fmt: skip


# --- 1. exhaustive BFS ------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["slide", "step"])
@pytest.mark.parametrize("name", SMALL)
def test_exhaustive_bfs_counts_the_reachable_states(name, model):
    problem = course(name, model)
    result = run(problem, "bfs", (("exhaustive", True),))
    sp = space(problem)
    assert result.outcome == "solved"
    assert result.moves == (SLIDE_OPTIMA[name] if model == "slide" else STEP_OPTIMA[name])
    assert result.extra["reachable"] == len(sp.keys) == REACHABLE[name]
    assert result.extra["depth_counts"] == sp.layers
    assert sum(result.extra["depth_counts"]) == result.extra["reachable"]


@pytest.mark.parametrize("text", [FOGLEMAN, *CRAFTED])
def test_exhaustive_bfs_on_walled_and_small_boards(text):
    problem = letters(text)
    result = run(problem, "bfs", (("exhaustive", True),))
    sp = space(problem)
    assert result.extra["reachable"] == len(sp.keys)
    assert result.extra["depth_counts"] == sp.layers
    if text == FOGLEMAN:
        assert len(sp.keys) == 2332


# --- 2. admissibility over whole state spaces -----------------------------------------------------


ADMISSIBILITY_BOARDS = [("course", n) for n in SMALL] + [("letters", t) for t in WALLED]


def board_problem(kind: str, ident: str, model: str) -> RushHourProblem:
    return course(ident, model) if kind == "course" else letters(ident, model)




@pytest.mark.parametrize("model", ["slide", "step"])
@pytest.mark.parametrize("kind, ident", ADMISSIBILITY_BOARDS, ids=lambda x: str(x)[:12])
def test_blockers_heuristics_are_admissible_on_every_reachable_state(kind, ident, model):
    problem = board_problem(kind, ident, model)
    sp = space(problem)
    dist = goal_distances(problem)
    stronger, deeper, solvable = check_admissible(problem, sp, dist)
    assert solvable == len(sp.keys)  # these boards are solvable from every state
    if kind == "course":
        assert stronger > 0 and deeper > 0  # blockers-lb adds information, and blocking-tree more


def test_blockers_lb_is_stronger_somewhere_on_walled_boards():
    assert any(check_admissible(letters(t), space(letters(t)), goal_distances(letters(t)))[0] > 0 for t in WALLED)


@pytest.mark.parametrize("kind, ident", ADMISSIBILITY_BOARDS[:4], ids=lambda x: str(x)[:12])
def test_moves_freed_is_not_admissible(kind, ident):
    problem = board_problem(kind, ident, "slide")
    assert not problem.heuristic("moves-freed").admissible
    assert all(problem.heuristic(name).admissible for name in ("blockers", "blockers-lb", "blocking-tree"))
    sp = space(problem)
    dist = goal_distances(problem)
    h = problem.heuristic("moves-freed")
    work = rk.workspace(h.spec)
    # as A* calls it: on a child, with the number of moves its parent had
    assert any(
        rh.heuristic(h.spec, work, h.code, h.args, np.array(sp.keys[i], np.uint64), len(out)) > dist[i]
        for out in sp.edges
        for i, _ in out
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.sampled_from(["slide", "step"]))
def test_blockers_heuristics_are_admissible_on_random_small_boards(text, model):
    problem = RushHourProblem(parse_board(text), model)
    sp = enumerate_space(problem, cap=5000)
    assume(sp is not None)
    dist = distances_to_goal(problem, sp)
    check_admissible(problem, sp, dist)
    result = solve(problem, "bfs", {"exhaustive": True})
    if problem.unsolvable_reason() is not None:  # proven at once, nothing searched (tests/puzzles/test_rushhour_static.py)
        assert result.outcome == "unsolvable" and dist[0] == float("inf")
        return
    assert result.extra["reachable"] == len(sp.keys)
    if dist[0] < float("inf"):
        assert result.moves == dist[0]
        astar = solve(problem, "astar", {"heuristic": "blockers-lb"})
        assert_solution(problem, astar)
        assert astar.moves == dist[0]
    else:
        assert result.outcome == "unsolvable"
