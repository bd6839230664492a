"""Searching Rush Hour boards: known optima, both move models, exhaustive BFS, admissibility, limits.

Known answers come from two sides: the course boards' optima (slide model,
found by BFS) and Fogleman's database, whose hardest walled puzzle
IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM needs 60 moves in a cluster of 2332
states. Where a test needs ground truth over a whole state space it rebuilds it
here in pure Python from `problem.successors`, independently of the compiled
searches, and every solution is also replayed against a pure-Python move oracle.
"""

import heapq
from collections import deque
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from orchestrator.boards.catalogue import COURSE_OPTIMA
from puzzles.kernels import estimates
from puzzles.result import Limits, SolveResult
from puzzles.rushhour import heuristics as rh
from puzzles.rushhour import kernels as rk
from puzzles.rushhour.board import RushHourBoard
from puzzles.rushhour.formats import load_board, parse_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"

SLIDE_OPTIMA = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27, "9x9_5": 22, "9x9_6": 18}
STEP_OPTIMA = {"6x6_1": 35, "6x6_2": 29, "6x6_3": 83}  # the fewest cells moved in all
REACHABLE = {"6x6_1": 818, "6x6_2": 13841, "6x6_3": 11252}
SMALL = ["6x6_1", "6x6_2", "6x6_3"]

FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"  # Fogleman's database: 60 moves, 2332 states
# Small boards (some with walls "x") with their (slide, step) optima, cross-checked below
# against a pure-Python BFS; small enough for iterative deepening.
CRAFTED = {
    "BoDDFBoooFAACoEoGCoEoGxoo": (12, 19),
    "GooooGFDEEoFDoBoFCCBAAooB": (6, 9),
    "EoooGoEBBBGoEFoCoDoFoCIDoAACIDJJJHHx": (6, 9),
    "oooxDooAAHDJooBHoJGoBCooGEICoooEIFFo": (6, 9),
}
WALLED = [FOGLEMAN, "BoDDFBoooFAACoEoGCoEoGxoo", "EoooGoEBBBGoEFoCoDoFoCIDoAACIDJJJHHx",
          "oooxDooAAHDJooBHoJGoBCooGEICoooEIFFo"]  # fmt: skip

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


@cache
def course(name: str, model: str = "slide") -> RushHourProblem:
    return RushHourProblem(load_board(str(BOARDS / f"Rushhour{name}.csv")), model)


@cache
def letters(text: str, model: str = "slide") -> RushHourProblem:
    return RushHourProblem(parse_board(text), model)


@cache
def run(problem: RushHourProblem, algorithm: str, params: tuple = (), seed: int | None = None, **limits) -> SolveResult:
    """`solve`, once per problem and arguments in this module."""
    return solve(problem, algorithm, dict(params), Limits(**limits), seed)


# --- ground truth in pure Python ------------------------------------------------------------


class Space(NamedTuple):
    """A reachable state space: keys (tuples), their index, neighbours, BFS layer sizes from the start."""

    keys: list[tuple[int, ...]]
    index: dict[tuple[int, ...], int]
    edges: list[list[tuple[int, int]]]  # (neighbour, cells moved)
    layers: list[int]


def enumerate_space(problem: RushHourProblem, cap: int | None = None) -> Space | None:
    """Every state reachable from the start by `problem.successors`, breadth-first; None past `cap` states."""
    start = tuple(int(w) for w in problem.start_key())
    keys, index, edges, layers = [start], {start: 0}, [], [1]
    frontier_end = 1
    at = 0
    while at < len(keys):
        key = np.array(keys[at], dtype=np.uint64)
        out = []
        for move, child in problem.successors(key):
            t = tuple(int(w) for w in child)
            if t not in index:
                index[t] = len(keys)
                keys.append(t)
                if cap is not None and len(keys) > cap:
                    return None
            out.append((index[t], problem.move_steps(move)))
        edges.append(out)
        at += 1
        if at == frontier_end and at < len(keys):
            layers.append(len(keys) - frontier_end)
            frontier_end = len(keys)
    return Space(keys, index, edges, layers)


@cache
def space(problem: RushHourProblem) -> Space:
    return enumerate_space(problem)


def distances_to_goal(problem: RushHourProblem, sp: Space) -> list[float]:
    """The fewest moves from each state to a solved board (BFS from every goal; moves can be undone)."""
    dist = [float("inf")] * len(sp.keys)
    queue = deque()
    for i, key in enumerate(sp.keys):
        if problem.is_goal(np.array(key, dtype=np.uint64)):
            dist[i] = 0
            queue.append(i)
    while queue:
        i = queue.popleft()
        for j, _ in sp.edges[i]:
            if dist[j] == float("inf"):
                dist[j] = dist[i] + 1
                queue.append(j)
    return dist


@cache
def goal_distances(problem: RushHourProblem) -> list[float]:
    return distances_to_goal(problem, space(problem))


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


def heuristic_values(problem: RushHourProblem, sp: Space, name: str) -> list[int]:
    h = problem.heuristic(name)
    return [int(value) for value in estimates(h.spec, h.code, h.args, np.array(sp.keys, dtype=np.uint64))]


def oracle_moves(board: RushHourBoard, model: str) -> set[str]:
    """The legal moves of a board in notation, from the rules alone."""
    cells = {c: "#" for c in board.walls}
    for v in board.vehicles:
        for c in v.cells():
            assert c not in cells and 0 <= min(c) and max(c) < board.size
            cells[c] = v.name
    reach = 1 if model == "step" else board.size
    moves = set()
    for v in board.vehicles:
        dr, dc = (0, 1) if v.horizontal else (1, 0)
        for sign, (r0, c0) in ((1, v.cells()[-1]), (-1, v.cells()[0])):
            for d in range(1, reach + 1):
                r, c = r0 + sign * dr * d, c0 + sign * dc * d
                if not (0 <= r < board.size and 0 <= c < board.size) or (r, c) in cells:
                    break
                moves.add(f"{v.name}{'+' if sign > 0 else '-'}{d}")
    return moves


def parse_move(notation: str) -> tuple[str, int]:
    """`X+3` -> ("X", 3), `AB-2` -> ("AB", -2)."""
    at = next(i for i, char in enumerate(notation) if char in "+-")
    return notation[:at], int(notation[at:])


def cells_of(notation: str) -> int:
    """`X+3` -> 3, `AB-2` -> 2."""
    return abs(parse_move(notation)[1])


def assert_solution(problem: RushHourProblem, result: SolveResult) -> None:
    """A solved result whose moves are legal, end on a solved board and add up."""
    assert result.outcome == "solved", result.reason
    assert problem.check_solution(result.move_codes)
    assert len(result.solution) == result.moves == len(result.move_codes)
    assert result.steps == sum(cells_of(m) for m in result.solution)
    assert result.solution == [problem.format_move(m) for m in result.move_codes]
    assert replayed(problem, result.solution).is_solved()
    if problem.move_model == "step":
        assert result.steps == result.moves


def replayed(problem: RushHourProblem, notations: list[str]) -> RushHourBoard:
    """The board after the moves, each checked legal where it is played, in pure Python."""
    board = problem.board
    for notation in notations:
        assert notation in oracle_moves(board, problem.move_model)
        name, delta = parse_move(notation)
        board = board.with_positions([v.position + (delta if v.name == name else 0) for v in board.vehicles])
    return board


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
    for k in (5, 20):
        assert run(problem, "beam", (("k", k),)).outcome == "solved"


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


# --- 3. exhaustive BFS ------------------------------------------------------------------------


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


# --- 4. admissibility over whole state spaces -----------------------------------------------------


ADMISSIBILITY_BOARDS = [("course", n) for n in SMALL] + [("letters", t) for t in WALLED]


def board_problem(kind: str, ident: str, model: str) -> RushHourProblem:
    return course(ident, model) if kind == "course" else letters(ident, model)


def check_admissible(problem: RushHourProblem, sp: Space, dist: list[float]) -> tuple[int, int, int]:
    """Assert the admissible heuristics never overestimate and are ordered blockers <= blockers-lb < blocking-tree.

    Returns (states where lb > blockers, states where tree > lb + 1, solvable states).
    """
    blockers = heuristic_values(problem, sp, "blockers")
    lower = heuristic_values(problem, sp, "blockers-lb")
    tree = heuristic_values(problem, sp, "blocking-tree")
    solvable = 0
    for i, d in enumerate(dist):
        assert lower[i] >= blockers[i] >= 0
        assert tree[i] >= lower[i] + 1 if d > 0 else tree[i] == 0
        if d < float("inf"):
            solvable += 1
            assert blockers[i] <= d, f"blockers overestimates at {problem.board_at(np.array(sp.keys[i], np.uint64))}"
            assert lower[i] <= d, (
                f"blockers-lb = {lower[i]} > {d} at {problem.board_at(np.array(sp.keys[i], np.uint64)).grid()}"
            )
            assert tree[i] <= d, (
                f"blocking-tree = {tree[i]} > {d} at {problem.board_at(np.array(sp.keys[i], np.uint64)).grid()}"
            )
        if d == 0:
            assert blockers[i] == lower[i] == tree[i] == 0
    return sum(a > b for a, b in zip(lower, blockers)), sum(t > b + 1 for t, b in zip(tree, lower)), solvable


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


@st.composite
def small_boards(draw) -> str:
    """A 4x4 or 5x5 Fogleman string: the red car, up to 7 vehicles and up to 3 walls, placed at random."""
    size = draw(st.integers(4, 5))
    cells = [["o"] * size for _ in range(size)]
    red_row, red_col = draw(st.integers(0, size - 1)), draw(st.integers(0, size - 2))
    cells[red_row][red_col] = cells[red_row][red_col + 1] = "A"
    names = iter("BCDEFGH")
    spots = st.tuples(st.booleans(), st.integers(0, size - 1), st.integers(0, size - 1), st.sampled_from([2, 2, 3]))
    for horizontal, r, c, length in draw(st.lists(spots, max_size=10)):
        span = [(r, c + i) for i in range(length)] if horizontal else [(r + i, c) for i in range(length)]
        if all(a < size and b < size and cells[a][b] == "o" for a, b in span):
            name = next(names, None)
            if name is None:
                break
            for a, b in span:
                cells[a][b] = name
    for r, c in draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=3)):
        if cells[r][c] == "o":
            cells[r][c] = "x"
    return "".join("".join(row) for row in cells)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.sampled_from(["slide", "step"]))
def test_blockers_heuristics_are_admissible_on_random_small_boards(text, model):
    problem = RushHourProblem(parse_board(text), model)
    sp = enumerate_space(problem, cap=5000)
    assume(sp is not None)
    dist = distances_to_goal(problem, sp)
    check_admissible(problem, sp, dist)
    result = solve(problem, "bfs", {"exhaustive": True})
    assert result.extra["reachable"] == len(sp.keys)
    if dist[0] < float("inf"):
        assert result.moves == dist[0]
        astar = solve(problem, "astar", {"heuristic": "blockers-lb"})
        assert_solution(problem, astar)
        assert astar.moves == dist[0]
    else:
        assert result.outcome == "unsolvable"


# --- 5. unsolvable and solved boards ----------------------------------------------------------


@pytest.mark.parametrize("model", ["slide", "step"])
def test_red_car_blocked_by_a_horizontal_car_is_unsolvable(model):
    problem = letters(UNSOLVABLE, model)
    sp = space(problem)
    assert all(d == float("inf") for d in goal_distances(problem))
    bfs = run(problem, "bfs")
    assert bfs.outcome == "unsolvable" and bfs.moves is None and bfs.solution == []
    exhaustive = run(problem, "bfs", (("exhaustive", True),))
    assert exhaustive.outcome == "unsolvable"
    assert exhaustive.extra["reachable"] == len(sp.keys)
    for heuristic in ("blockers", "blockers-lb"):
        assert run(problem, "astar", (("heuristic", heuristic),)).outcome == "unsolvable"
    assert run(problem, "moves-freed").outcome == "unsolvable"
    for k in (5, 20):
        beam = run(problem, "beam", (("k", k),))
        assert beam.outcome == "failed" and beam.reason
    random = run(problem, "random", (("max_steps", 500),), 3)
    assert random.outcome == "failed" and "500" in random.reason


def test_board_without_moves_is_unsolvable_for_iddfs_too():
    problem = letters(STUCK)
    assert problem.successors(problem.start_key()) == []
    for algorithm in ("bfs", "iddfs", "astar"):
        assert run(problem, algorithm).outcome == "unsolvable"
    assert run(problem, "beam").outcome == "failed"
    assert run(problem, "random", (), 1).outcome == "failed"
    assert run(problem, "bfs", (("exhaustive", True),)).extra["reachable"] == 1


def test_iddfs_proves_unsolvable_when_its_pruned_tree_is_finite():
    # skipping the move that undoes the last one leaves the single path B+1, A+1: the tree ends at depth 2
    for model in ("slide", "step"):
        problem = letters(SHUTTLE, model)
        result = run(problem, "iddfs")
        assert result.outcome == "unsolvable" and result.moves is None
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


# --- 6. limits ----------------------------------------------------------------------------------


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
    # 12x12_7 is far beyond these searches; the node cap only guards against a limit that never fires
    problem = course("12x12_7")
    result = solve(problem, algorithm, dict(params), Limits(time_limit=0.3, max_nodes=400_000))
    assert result.outcome == "limit"
    assert result.reason == "time limit of 0.3 s reached"
    assert 0.29 <= result.elapsed_s < 1.5
