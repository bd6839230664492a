"""Searching Rush Hour boards: known optima, both move models, unsolvable and solved boards, limits.

Every solution is replayed against the move oracle of `tests/puzzles/rushhour_truth.py`, and the optima are
checked against its pure-Python BFS; whole state spaces are `test_rushhour_state_spaces.py`'s.
"""

import heapq

import numpy as np
import pytest

from orchestrator.boards.catalogue import COURSE_OPTIMA
from puzzles.result import Limits
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve
from tests.puzzles.rushhour_truth import (
    CRAFTED,
    FOGLEMAN,
    SLIDE_OPTIMA,
    SMALL,
    STEP_OPTIMA,
    assert_solution,
    course,
    goal_distances,
    letters,
    replayed,
    run,
    space,
)

UNSOLVABLE = "oooBoo" "oooBoo" "AACCoo" "ooDooo" "ooDEEo" "oooooo"
#      col 0 1 2 3 4 5
#   r0     . . . B . .
#   r1     . . . B . .
#   r2     A A C C . .     C is horizontal in the red row: A can never pass it
#   r3     . . D . . .
#   r4     . . D E E .
#   r5     . . . . . .
STUCK = "xxxx" "AABB" "xxxx" "xxxx"  # not one legal move
SHUTTLE = "xxxxx" "AABBo" "xxxxx" "xxxxx" "xxxxx"  # B+1 then A+1, and nothing new: A never passes B
SOLVED_BOARD = "oooooo" "ooBooo" "ooBoAA" "oooooo" "CCCooo" "oooooo"


def fewest_cells(problem: RushHourProblem) -> float:
    """Dijkstra over the slide model's graph with each move costing the cells it moves."""
    sp = space(problem)
    goals = {i for i, k in enumerate(sp.keys) if problem.is_goal(np.array(k, dtype=np.uint64))}
    best = [float("inf")] * len(sp.keys)
    best[0] = 0
    heap = [(0, 0)]
    while heap:
        d, i = heapq.heappop(heap)
        if d > best[i]:
            continue
        if i in goals:
            return d
        for j, cells in sp.edges[i]:
            if d + cells < best[j]:
                best[j] = d + cells
                heapq.heappush(heap, (d + cells, j))
    return float("inf")


# --- 1. known optima --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SMALL + ["9x9_4"])
def test_bfs_finds_the_known_optimum(name):
    problem = course(name)
    result = run(problem, "bfs")
    assert_solution(problem, result)
    assert result.moves == SLIDE_OPTIMA[name]


@pytest.mark.parametrize("heuristic", ["blockers", "blockers-lb"])
@pytest.mark.parametrize("name", SMALL + ["9x9_4"])
def test_astar_with_admissible_heuristics_agrees_with_bfs(name, heuristic):
    problem = course(name)
    result = run(problem, "astar", (("heuristic", heuristic),))
    assert_solution(problem, result)
    assert result.moves == run(problem, "bfs").moves == SLIDE_OPTIMA[name]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("9x9_5", marks=pytest.mark.slow),  # measured: 35-60 s (BFS: about 150 s)
        "9x9_6",  # measured: 7-15 s
    ],
)
def test_astar_blockers_lb_on_the_larger_nine_by_nine_boards(name):
    problem = course(name)
    result = run(problem, "astar", (("heuristic", "blockers-lb"),))
    assert_solution(problem, result)
    assert result.moves == SLIDE_OPTIMA[name]
    # a one-word key, parent, cost and two table slots (24 bytes) per node of capacity, grown by two thirds at most
    assert problem.start_key().shape[0] == 1
    assert 24 <= result.extra["bytes_per_state"] <= 40


def test_fogleman_hardest_walled_puzzle_needs_60_moves():
    problem = letters(FOGLEMAN)
    for result in (run(problem, "bfs"), run(problem, "astar", (("heuristic", "blockers-lb"),))):
        assert_solution(problem, result)
        assert result.moves == 60
    assert goal_distances(problem)[0] == 60


# Ours, from `orchestrate solve .../Rushhour12x12_7.csv --algo layered --heuristic blocking-tree --upper-bound 26`
# (docs/performance.md); the same search with --upper-bound 25 proves that none is shorter.
OPTIMAL_12X12_7 = ("O+1 D+1 A-5 B-2 I-1 H+2 G-1 D-1 F+4 E+3 R-2 AL-1 AH+2 X-1 W-1 Y-1 AI-2"
                   " M-1 AE-1 T-2 U+3 O-1 Y+1 W+1 X+9")


def test_our_optimal_solution_of_12x12_7_replays_in_the_proven_optimum_of_25_moves():
    problem = course("12x12_7")
    moves = OPTIMAL_12X12_7.split()
    assert len(moves) == COURSE_OPTIMA["Rushhour12x12_7"] == 25
    assert replayed(problem, moves).is_solved()
    assert not replayed(problem, moves[:-1]).is_solved()


@pytest.mark.parametrize("model", ["slide", "step"])
@pytest.mark.parametrize("text", list(CRAFTED))
def test_iddfs_bfs_and_astar_agree_on_small_boards(text, model):
    problem = letters(text, model)
    optimum = CRAFTED[text][model == "step"]
    assert goal_distances(problem)[0] == optimum  # the pure-Python BFS
    results = [run(problem, "bfs")]
    if optimum <= 12:  # iterative deepening's tree grows too fast beyond
        results.append(run(problem, "iddfs", time_limit=30.0))
    results += [run(problem, "astar", (("heuristic", h),)) for h in ("blockers", "blockers-lb")]
    for result in results:
        assert_solution(problem, result)
        assert result.moves == optimum, result.algorithm


ALL_ALGORITHMS = [
    ("bfs", (), None),
    ("astar", (("heuristic", "blockers"),), None),
    ("astar", (("heuristic", "blockers-lb"),), None),
    ("beam", (("k", 5),), None),
    ("beam", (("k", 20),), None),
    ("beam", (("k", 20), ("heuristic", "blockers-lb")), None),
    ("moves-freed", (), None),
    ("random", (), 7),
    ("spr", (("batches", 3), ("batch_size", 5)), 7),
]


@pytest.mark.parametrize("algorithm, params, seed", ALL_ALGORITHMS, ids=lambda x: str(x))
@pytest.mark.parametrize("name", SMALL)
def test_every_algorithm_returns_a_legal_solution(name, algorithm, params, seed):
    problem = course(name)
    result = run(problem, algorithm, params, seed)
    if algorithm == "beam" and result.outcome == "failed":  # beam search is incomplete
        assert result.reason and "beam" in result.reason and result.moves is None
        return
    assert_solution(problem, result)
    assert result.moves >= SLIDE_OPTIMA[name]
    assert result.steps >= STEP_OPTIMA[name]
    if algorithm == "spr":  # compressed: never longer than its shortest walk, never back to a board
        assert result.moves <= result.extra["shortest_run"]
        keys = [tuple(k) for k in problem.play(result.move_codes)]
        assert len(set(keys)) == len(keys)
    if algorithm in ("random", "spr"):
        assert result.seed == seed
        again = solve(problem, algorithm, dict(params), Limits(), seed)
        assert again.solution == result.solution  # a seed repeats the run


@pytest.mark.parametrize("name", SMALL)
def test_moves_freed_weights_reach_the_heuristic(name):
    # with only the blockers term left, the moves-freed search is A* on blockers: optimal
    problem = course(name)
    result = run(problem, "moves-freed", (("w_exit", 0.0), ("w_blockers", 1.0), ("w_freed", 0.0)))
    assert_solution(problem, result)
    assert result.moves == SLIDE_OPTIMA[name]
    assert result.expanded == run(problem, "astar", (("heuristic", "blockers"),)).expanded


def test_beam_solves_6x6_1_with_either_width():
    problem = course("6x6_1")
    results = {k: run(problem, "beam", (("k", k),)) for k in (5, 20)}
    for k, result in results.items():
        assert_solution(problem, result)  # legal moves that end on a solved board
        assert result.params["k"] == k and result.moves >= SLIDE_OPTIMA["6x6_1"]
    assert results[5].expanded < results[20].expanded  # each width was the one searched with


def test_iddfs_returns_a_legal_solution_on_a_walled_board():
    problem = letters("BoDDFBoooFAACoEoGCoEoGxoo")
    result = run(problem, "iddfs", time_limit=30.0)
    assert_solution(problem, result)
    assert result.extra["bound"] == result.moves == 12


# --- 2. the step move model ---------------------------------------------------------------------


@pytest.mark.parametrize("name", SMALL)
def test_step_model_bfs_finds_the_fewest_cells(name):
    slide, step = course(name), course(name, "step")
    result = run(step, "bfs")
    assert_solution(step, result)
    assert result.moves == result.steps == STEP_OPTIMA[name]
    assert result.moves >= run(slide, "bfs").moves
    assert run(slide, "bfs").steps >= result.steps  # a fewest-moves solution need not move the fewest cells
    assert fewest_cells(slide) == STEP_OPTIMA[name]  # Dijkstra on the slide graph weighted by cells
    assert goal_distances(step)[0] == STEP_OPTIMA[name]


@pytest.mark.parametrize("heuristic", ["blockers", "blockers-lb"])
@pytest.mark.parametrize("name", SMALL)
def test_step_model_astar_agrees_with_bfs(name, heuristic):
    step = course(name, "step")
    result = run(step, "astar", (("heuristic", heuristic),))
    assert_solution(step, result)
    assert result.moves == run(step, "bfs").moves == STEP_OPTIMA[name]


# --- 3. unsolvable and solved boards ----------------------------------------------------------


def searched(problem: RushHourProblem, algorithm: str, monkeypatch, params: dict | None = None, seed: int | None = None):
    """The result of a search that proves by itself: the static check of a blocked exit switched off."""
    monkeypatch.setattr(type(problem), "unsolvable_reason", lambda _: None)
    result = solve(problem, algorithm, params or {}, seed=seed)
    monkeypatch.undo()
    return result


@pytest.mark.parametrize("model", ["slide", "step"])
def test_red_car_blocked_by_a_horizontal_car_is_unsolvable(model, monkeypatch):
    problem = letters(UNSOLVABLE, model)
    sp = space(problem)
    assert all(d == float("inf") for d in goal_distances(problem))
    for algorithm in ("bfs", "astar", "beam", "moves-freed", "random"):  # the blocked exit seen before any search
        found = run(problem, algorithm, (), 1 if algorithm == "random" else None)
        assert found.outcome == "unsolvable" and found.expanded == 0 and found.reason.endswith("nothing searched")
    exhaustive = run(problem, "bfs", (("exhaustive", True),))  # an enumeration is asked for: it counts the states
    assert exhaustive.outcome == "unsolvable" and exhaustive.extra["reachable"] == len(sp.keys)
    bfs = searched(problem, "bfs", monkeypatch)
    assert bfs.outcome == "unsolvable" and bfs.moves is None and bfs.solution == [] and bfs.expanded == len(sp.keys)
    for heuristic in ("blockers", "blockers-lb"):
        assert searched(problem, "astar", monkeypatch, {"heuristic": heuristic}).outcome == "unsolvable"
    assert searched(problem, "moves-freed", monkeypatch).outcome == "unsolvable"
    for k in (5, 20):
        beam = searched(problem, "beam", monkeypatch, {"k": k})
        assert beam.outcome == "failed" and beam.reason
    random = searched(problem, "random", monkeypatch, {"max_steps": 500}, 3)
    assert random.outcome == "failed" and "500" in random.reason


def test_board_without_moves_is_unsolvable_for_iddfs_too(monkeypatch):
    problem = letters(STUCK)
    assert problem.successors(problem.start_key()) == []
    for algorithm in ("bfs", "iddfs", "astar"):
        assert run(problem, algorithm).outcome == "unsolvable"
        assert searched(problem, algorithm, monkeypatch).outcome == "unsolvable"
    assert searched(problem, "beam", monkeypatch).outcome == "failed"
    assert searched(problem, "random", monkeypatch, seed=1).outcome == "failed"
    assert run(problem, "bfs", (("exhaustive", True),)).extra["reachable"] == 1


def test_iddfs_proves_unsolvable_when_its_pruned_tree_is_finite(monkeypatch):
    # skipping the move that undoes the last one leaves the single path B+1, A+1: the tree ends at depth 2
    for model in ("slide", "step"):
        problem = letters(SHUTTLE, model)
        result = run(problem, "iddfs")
        assert result.outcome == "unsolvable" and result.moves is None
        assert searched(problem, "iddfs", monkeypatch).outcome == "unsolvable"
        assert run(problem, "bfs", (("exhaustive", True),)).extra["reachable"] == 3


def test_exhaustive_bfs_from_a_solved_board():
    problem = letters(SOLVED_BOARD)
    result = run(problem, "bfs", (("exhaustive", True),))
    assert result.outcome == "solved" and result.moves == 0
    assert result.extra["reachable"] == len(space(problem).keys)
    assert result.extra["depth_counts"] == space(problem).layers


@pytest.mark.parametrize("algorithm, params, seed", ALL_ALGORITHMS + [("iddfs", (), None)], ids=lambda x: str(x))
@pytest.mark.parametrize("model", ["slide", "step"])
def test_solved_board_takes_zero_moves(model, algorithm, params, seed):
    problem = letters(SOLVED_BOARD, model)
    result = run(problem, algorithm, params, seed)
    assert result.outcome == "solved"
    assert result.moves == result.steps == 0
    assert result.solution == [] and problem.check_solution(result.move_codes)


# --- 4. limits ----------------------------------------------------------------------------------


LIMITED = [
    ("bfs", ()),
    ("astar", (("heuristic", "blockers"),)),
    ("astar", (("heuristic", "blockers-lb"),)),
    ("iddfs", ()),
    ("moves-freed", ()),
]


@pytest.mark.parametrize("algorithm, params", LIMITED, ids=lambda x: str(x))
def test_node_limit(algorithm, params):
    problem = course("6x6_3")
    result = run(problem, algorithm, params, max_nodes=10)
    assert result.outcome == "limit"
    assert result.reason and "node limit" in result.reason and "10" in result.reason
    assert result.moves is None and result.solution == []


@pytest.mark.parametrize(
    "algorithm, params",
    [*LIMITED, ("beam", ()), ("random", ())],
    ids=lambda x: str(x),
)
def test_node_limit_is_not_overshot(algorithm, params):
    problem = course("6x6_3")
    result = run(problem, algorithm, params, seed=1 if algorithm == "random" else None, max_nodes=10)
    assert result.outcome == "limit"
    assert result.expanded <= 10


@pytest.mark.parametrize("algorithm, params", LIMITED, ids=lambda x: str(x))
def test_time_limit_of_zero(algorithm, params):
    problem = course("6x6_3")
    result = run(problem, algorithm, params, time_limit=0.0)
    assert result.outcome == "limit"
    assert result.reason and "time limit" in result.reason
    assert result.moves is None and result.solution == []


@pytest.mark.parametrize("algorithm, params", LIMITED[:3], ids=lambda x: str(x))
def test_time_limit_stops_a_long_search_promptly(algorithm, params):
    # 12x12_7 is far beyond these searches. A search ignoring the time limit would end on the node cap (measured:
    # 0.8 s for BFS, 1.5 s for A*) with another reason. The clock is read every 1024 expansions, so the search
    # stops within a millisecond of 0.3 s; the rest of 5 s is for a starved process on a busy machine.
    problem = course("12x12_7")
    result = solve(problem, algorithm, dict(params), Limits(time_limit=0.3, max_nodes=400_000))
    assert result.outcome == "limit"
    assert result.reason == "time limit of 0.3 s reached"
    assert 0.29 <= result.elapsed_s < 5.0
