"""Rush Hour boards with known answers, and ground truth rebuilt in pure Python, for the search tests.

Known answers come from two sides: the course boards' optima (slide model,
found by BFS) and Fogleman's database, whose hardest walled puzzle
IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM needs 60 moves in a cluster of 2332
states. Where a test needs ground truth over a whole state space it rebuilds it
here from `problem.successors`, independently of the compiled searches, and
every solution is replayed against a move oracle written from the rules alone.
"""

from collections import deque
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

from puzzles.kernels import estimates
from puzzles.result import Limits, SolveResult
from puzzles.rushhour.board import RushHourBoard
from puzzles.rushhour.formats import load_board, parse_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"

SLIDE_OPTIMA = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27, "9x9_5": 22, "9x9_6": 18}
STEP_OPTIMA = {"6x6_1": 35, "6x6_2": 29, "6x6_3": 83}  # the fewest cells moved in all
SMALL = ["6x6_1", "6x6_2", "6x6_3"]

FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"  # Fogleman's database: 60 moves, 2332 states
# Small boards (some with walls "x") with their (slide, step) optima, cross-checked in the tests
# against the pure-Python BFS below; small enough for iterative deepening.
CRAFTED = {
    "BoDDFBoooFAACoEoGCoEoGxoo": (12, 19),
    "GooooGFDEEoFDoBoFCCBAAooB": (6, 9),
    "EoooGoEBBBGoEFoCoDoFoCIDoAACIDJJJHHx": (6, 9),
    "oooxDooAAHDJooBHoJGoBCooGEICoooEIFFo": (6, 9),
}


@cache
def course(name: str, model: str = "slide") -> RushHourProblem:
    return RushHourProblem(load_board(str(BOARDS / f"Rushhour{name}.csv")), model)


@cache
def letters(text: str, model: str = "slide") -> RushHourProblem:
    return RushHourProblem(parse_board(text), model)


@cache
def run(problem: RushHourProblem, algorithm: str, params: tuple = (), seed: int | None = None, **limits) -> SolveResult:
    """`solve`, once per problem and arguments in a test process."""
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


# --- the admissible heuristics against the true distances ------------------------------------


def heuristic_values(problem: RushHourProblem, sp: Space, name: str) -> list[int]:
    h = problem.heuristic(name)
    return [int(value) for value in estimates(h.spec, h.code, h.args, np.array(sp.keys, dtype=np.uint64))]


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


# --- the rules as a move oracle ---------------------------------------------------------------


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
