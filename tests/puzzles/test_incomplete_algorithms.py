"""Random, Shortened-Path Random, beam search and iterative deepening on Rush Hour boards.

Random, SPR and beam search are incomplete and not optimal: they are checked for
legal solutions, reproducibility, the seed's promises (SPR never longer than its
shortest walk; a narrow beam can empty) and their limits. Iterative deepening is
optimal but slow: it is checked on boards a few moves from the goal.
"""

from functools import cache
from pathlib import Path

import pytest

from puzzles.errors import PuzzleError
from puzzles.result import Limits
from puzzles.rushhour.formats import load_board
from puzzles.rushhour.kernels import pack_move, unpack_move
from puzzles.rushhour.problem import RushHourProblem
from puzzles.search import astar, beam, iddfs, randomwalk, spr
from puzzles.solver import solve

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"
OPTIMA = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27}  # slide model, by A* and BFS

# Fogleman strings (row by row, "o" empty, "x" wall, "A" the red car) with their optima.
SHORT = {
    # ....C.
    # ....C.
    # AA.DC.   E left, C down, D down, A out
    # ...D..
    # ..EEE.
    # ......
    "ooooCoooooCoAAoDCooooDooooEEEooooooo": 4,
    # .BCCC.
    # .B.D..
    # AA.DE.
    # FFGGE.
    # ..H...
    # ..HIII
    "oBCCCooBoDooAAoDEoFFGGEoooHoooooHIII": 8,
    # MMBB.H
    # CCDD.H
    # AA..GH   Rushhour6x6_2 after 6 moves of a shortest solution
    # EEFFG.
    # J..KII
    # J..KLL
    "MMBBoHCCDDoHAAooGHEEFFGoJooKIIJooKLL": 9,
}
# xxxxxx
# xxxxxx
# AABxxx   nothing can move
# xxBxxx
# xxxxxx
# xxxxxx
STUCK = "xxxxxxxxxxxxAABxxxxxBxxxxxxxxxxxxxxx"


@cache
def course(name: str) -> RushHourProblem:
    """A course board, e.g. "6x6_1"."""
    return RushHourProblem(load_board(str(BOARDS / f"Rushhour{name}.csv")))


def letters(text: str) -> RushHourProblem:
    """A board from a Fogleman string."""
    return RushHourProblem(load_board(text))


def walk(problem, seed, max_steps=10**6, limits=Limits()):
    """Random on `problem`."""
    return randomwalk.search(problem, limits, max_steps=max_steps, seed=seed)


def shortened(problem, seed, batches=3, batch_size=5, max_steps=10**6, limits=Limits()):
    """Shortened-Path Random on `problem`."""
    return spr.search(problem, limits, batches=batches, batch_size=batch_size, max_steps=max_steps, seed=seed)


def beam_search(problem, k, heuristic="blockers", limits=Limits()):
    """Beam search on `problem`."""
    return beam.search(problem, limits, k=k, heuristic=problem.heuristic(heuristic))


# --- every algorithm --------------------------------------------------------------------------


@pytest.mark.parametrize("name", OPTIMA)
def test_astar_confirms_the_known_optima(name):
    problem = course(name)
    result = astar.search(problem, Limits(), heuristic=problem.heuristic("blockers-lb"))
    assert len(result.path) == OPTIMA[name] and problem.check_solution(result.path)


@pytest.mark.parametrize(
    "algorithm, params, seed",
    [
        ("random", {}, 11),
        ("spr", {"batches": 3, "batch_size": 5}, 11),
        ("beam", {"k": 5}, None),
        ("beam", {"k": 100, "heuristic": "blockers-lb"}, None),
        ("beam", {"k": 20, "heuristic": "moves-freed"}, None),
    ],
)
@pytest.mark.parametrize("name", OPTIMA)
def test_solutions_replay(name, algorithm, params, seed):
    problem = course(name)
    result = solve(problem, algorithm, params, Limits(), seed=seed)
    if result.outcome == "failed":  # only a narrow beam may give up here
        assert algorithm == "beam" and result.reason.startswith("beam emptied at depth ")
        return
    assert result.outcome == "solved" and problem.check_solution(result.move_codes)
    assert result.moves == len(result.move_codes) >= OPTIMA[name]


@pytest.mark.parametrize(
    "search",
    [
        lambda p, limits: walk(p, 1, limits=limits),
        lambda p, limits: shortened(p, 1, limits=limits),
        lambda p, limits: beam_search(p, 5, limits=limits),
        iddfs.search,
    ],
    ids=["random", "spr", "beam", "iddfs"],
)
def test_node_limit(search):
    result = search(course("6x6_3"), Limits(max_nodes=10))
    assert result.outcome == "limit" and result.path == []
    assert result.expanded == 10 and "node limit of 10" in result.reason


@pytest.mark.parametrize(
    "algorithm, params", [("random", {}), ("spr", {}), ("beam", {"k": 10**6}), ("iddfs", {})]
)
def test_time_limit_of_zero(algorithm, params):
    # Without the limit, seed 1 solves 9x9_4 in 8447 random steps, SPR in 1.2 million, the beam in 171,503
    # expansions, and iterative deepening is still at it after 20 s: a limit of zero stops each before its first expansion.
    result = solve(course("9x9_4"), algorithm, params, Limits(time_limit=0.0), seed=1)
    assert result.outcome == "limit" and "time limit" in result.reason
    assert result.expanded == 0
    assert result.elapsed_s < 5.0  # measured: 0.2 ms; the rest is for a starved process on a busy machine


def test_a_board_without_moves():
    problem = letters(STUCK)
    assert iddfs.search(problem, Limits()).outcome == "unsolvable"
    assert walk(problem, 1).reason == "no legal move after 0 steps"
    assert shortened(problem, 1).outcome == "failed"
    assert beam_search(problem, 3).reason == "beam emptied at depth 1"


# --- Random -----------------------------------------------------------------------------------


def test_random_is_reproducible_from_its_seed():
    problem = course("6x6_1")
    walks = [walk(problem, seed).path for seed in (1, 2, 3, 1)]
    assert walks[0] == walks[3]
    assert len({tuple(w) for w in walks}) == 3


def test_random_gives_up_after_max_steps():
    result = walk(course("6x6_3"), 1, max_steps=20)
    assert (result.outcome, result.reason) == ("failed", "goal not reached in 20 steps")
    assert result.expanded == 20 and result.path == []


# --- Shortened-Path Random --------------------------------------------------------------------


def test_spr_is_reproducible_from_its_seed():
    problem = course("6x6_2")
    runs = [shortened(problem, seed) for seed in (1, 2, 3, 1)]
    assert runs[0].path == runs[3].path and runs[0].extra == runs[3].extra
    assert len({r.extra["shortest_run"] for r in runs}) == 3


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", OPTIMA)
def test_spr_is_never_longer_than_its_shortest_walk(name, seed):
    problem = course(name)
    result = shortened(problem, seed, batches=2, batch_size=4)
    assert result.outcome == "solved" and problem.check_solution(result.path)
    assert OPTIMA[name] <= len(result.path) <= result.extra["shortest_run"]
    assert result.extra["runs"] == result.extra["solved_runs"] == 8


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["6x6_1", "6x6_3", "9x9_4"])
def test_spr_never_slides_one_vehicle_twice_in_a_row(name, seed):
    problem = course(name)
    result = shortened(problem, seed, batches=2, batch_size=5)
    vehicles = [unpack_move(move)[0] for move in result.path]
    assert all(a != b for a, b in zip(vehicles, vehicles[1:])), result.path
    assert problem.check_solution(result.path) and len(result.path) <= result.extra["shortest_run"]


@pytest.mark.parametrize("moves, merged", [
    ([(0, 2), (0, 1)], [(0, 3)]),  # X+2 X+1: X+3
    ([(0, 3), (0, -3)], []),  # slid there and back: nothing
    ([(1, 1), (0, 3), (0, -3), (1, 2)], [(1, 3)]),  # what cancels out lets its neighbours meet
    ([(0, 1), (1, -1), (0, 1)], [(0, 1), (1, -1), (0, 1)]),  # another vehicle in between: nothing merges
])
def test_consecutive_slides_of_one_vehicle_merge_only_in_the_slide_model(moves, merged):
    codes = [pack_move(vehicle, delta) for vehicle, delta in moves]
    slide, step = course("6x6_1"), RushHourProblem(load_board(str(BOARDS / "Rushhour6x6_1.csv")), move_model="step")
    assert [unpack_move(move) for move in slide.merged(codes)] == merged
    assert step.merged(codes) == codes


def test_spr_of_one_walk_compresses_that_walk():
    problem = course("6x6_3")
    single = walk(problem, 5)
    compressed = shortened(problem, 5, batches=1, batch_size=1)
    assert compressed.extra["shortest_run"] == len(single.path) == compressed.expanded
    assert len(compressed.path) < len(single.path)


def test_spr_skips_walks_that_give_up():
    result = shortened(course("6x6_3"), 1, batches=2, batch_size=3, max_steps=20)
    assert result.outcome == "failed" and result.path == []
    assert result.extra == {"runs": 6, "solved_runs": 0, "shortest_run": None}
    assert result.reason == "none of 6 random walks reached the goal in 20 steps"


# --- beam search ------------------------------------------------------------------------------


def test_a_beam_of_one_empties_on_6x6_1():
    result = beam_search(course("6x6_1"), 1)
    assert result.outcome == "failed" and result.path == []
    assert result.reason.startswith("beam emptied at depth ")
    assert result == beam_search(course("6x6_1"), 1)  # deterministic


@pytest.mark.parametrize("name, k", [("6x6_1", 10**6), ("6x6_2", 10**6), ("6x6_3", 10**6), ("6x6_3", 10**12)])
def test_a_beam_wider_than_any_layer_is_breadth_first(name, k):
    problem = course(name)
    result = beam_search(problem, k)  # no beam is allocated k wide ahead of need: 10^12 boards would be 8 TB
    assert len(result.path) == OPTIMA[name] and problem.check_solution(result.path)
    assert result.stored <= result.generated + 1


# --- iterative deepening ----------------------------------------------------------------------


@pytest.mark.parametrize("text", SHORT)
def test_iddfs_finds_the_optimum(text):
    problem = letters(text)
    result = iddfs.search(problem, Limits(time_limit=30.0))
    assert result.outcome == "solved" and problem.check_solution(result.path)
    assert len(result.path) == result.extra["bound"] == SHORT[text]


def test_iddfs_stops_only_on_limits():
    result = iddfs.search(course("6x6_2"), Limits(max_nodes=100_000))
    assert result.outcome == "limit" and 0 < result.extra["bound"] < OPTIMA["6x6_2"]


@pytest.mark.parametrize("seed", [-1, 2**32])
def test_seeds_outside_32_bits_are_refused(seed):
    with pytest.raises(PuzzleError, match="seed must be between 0 and 4294967295"):
        solve(course("6x6_2"), "random", {}, Limits(), seed=seed)


def test_a_drawn_seed_is_reported_and_repeats_the_run():
    drawn = solve(course("6x6_2"), "random", {}, Limits())
    again = solve(course("6x6_2"), "random", {}, Limits(), seed=drawn.seed)
    assert drawn.seed is not None and again.solution == drawn.solution
