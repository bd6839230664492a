"""Numba plugin heuristics inside slidelab's compiled searches (`puzzles.plugin_kernels`).

The example package's `blockers_nb` computes slidelab's own `blockers` from
the key: with it, A*, IDA* and beam must search exactly as with the built-in
(same moves, same states expanded and generated). So must an N-puzzle
Manhattan distance written against `slidelab.plugin.npuzzle`. A plugin's
writes to its spec are lost with its search, a write to the key does not
compile, and a plain-Python heuristic in a compiled search is one line.
The plugins are registered under test names, the registries restored after.
"""

import importlib
import importlib.util
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from puzzles.domains import load_problem
from puzzles.errors import PuzzleError
from puzzles.plugged import PythonHeuristic, estimator, heuristic_for
from puzzles.plugins import Origin, _register
from puzzles.registry import heuristic_entry, loaded
from puzzles.result import Limits
from puzzles.rushhour.formats import load_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.search.astar import search as astar
from puzzles.solver import solve
from slidelab.plugin import heuristic, npuzzle, rushhour
from tests.puzzles.rushhour_truth import assert_solution, course
from tests.workers.test_plugin_jobs import restored_registry

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "greedy-search" / "src"
FORTY = [line.split() for line in (ROOT / "data" / "boards" / "fogleman" / "forty.txt").read_text().splitlines()
         if line and not line.startswith("#")]
EIGHT = [line.split(",") for line in (ROOT / "data" / "boards" / "npuzzle" / "eight-puzzle-seed.csv").read_text()
         .splitlines()[3:]]
ORIGIN = Origin("plugin-kernels-test", "1.0", "0" * 64)


@heuristic(domain="npuzzle", admissible=True)
@numba.njit(cache=True)
def manhattan_nb(spec, work, key):
    """The tiles' Manhattan distances to their goal cells, the blank's not counted."""
    cells, width = spec.cells, spec.width
    npuzzle.tiles(spec, key, work)  # work[cells + t]: the cell of tile t
    npuzzle.tiles(spec, spec.goal, work[2 * cells:])  # work[3 * cells + t]: its goal cell
    total = 0
    for tile in range(1, cells):
        here, there = work[cells + tile], work[3 * cells + tile]
        total += abs(here // width - there // width) + abs(here % width - there % width)
    return total


@heuristic(domain="rushhour", admissible=True)
@numba.njit(cache=True)
def scribbler(spec, work, key):
    """0, after writing over the spec's walls and reading the key."""
    spec.walls[:] = 7
    rushhour.positions(spec, key, work.positions)
    return 0


@heuristic(domain="rushhour", admissible=True)
@numba.njit(cache=True)
def key_writer(spec, work, key):
    """Writes into the key it is given."""
    key[0] = 0
    return 0


@pytest.fixture(scope="module", autouse=True)
def plugins():
    """The test plugins registered under test names, for this module's tests only."""
    loaded()
    importlib.import_module("puzzles.npuzzle.problem")  # its kernels list the heuristics registered when imported
    if importlib.util.find_spec("greedy_search") is None:  # the example package is not installed: the checkout's
        sys.path.append(str(EXAMPLE))
    example = importlib.import_module("greedy_search.heuristics")
    with restored_registry():
        for name, function in {"test-blockers-nb": example.blockers_nb, "test-blockers-py": example.blockers_py,
                               "test-manhattan-nb": manhattan_nb, "test-scribbler": scribbler,
                               "test-key-writer": key_writer}.items():
            _register(name, function, ORIGIN)
        yield


def counts(result):
    return result.outcome, result.moves, result.solution, result.expanded, result.generated


COURSE_OPTIMA = {"6x6_1": 21, "6x6_3": 33, "9x9_4": 27}  # docs/performance.md
FORTY_CASES = (1, 21, 30, 40)  # 9, 28, 45 and 44 moves


def rush_hour(board: str) -> tuple[RushHourProblem, int]:
    """A course board or one of Fogleman's 40 puzzles (`forty 21`), and its optimum."""
    if board.startswith("forty"):
        text, moves = FORTY[int(board.split()[1]) - 1]
        return RushHourProblem(load_board(text)), int(moves)
    return course(board), COURSE_OPTIMA[board]


@pytest.mark.parametrize("board", [*COURSE_OPTIMA, *(f"forty {number}" for number in FORTY_CASES)])
@pytest.mark.parametrize(("algorithm", "params"), [("astar", {}), ("idastar", {}), ("beam", {"k": 20})])
def test_numba_blockers_searches_exactly_as_the_built_in(board, algorithm, params):
    problem, optimum = rush_hour(board)
    built_in = solve(problem, algorithm, {**params, "heuristic": "blockers"})
    plugged = solve(problem, algorithm, {**params, "heuristic": "test-blockers-nb"})
    assert counts(plugged) == counts(built_in)
    if algorithm != "beam" or plugged.outcome == "solved":
        assert_solution(problem, plugged)
    if algorithm != "beam":
        assert plugged.moves == optimum


def test_idastar_without_memo_and_layered_take_the_plugin_too():
    problem, optimum = rush_hour("forty 1")
    for algorithm, params in (("idastar", {"memo": False}), ("layered", {})):
        built_in = solve(problem, algorithm, {**params, "heuristic": "blockers"})
        plugged = solve(problem, algorithm, {**params, "heuristic": "test-blockers-nb"})
        assert counts(plugged) == counts(built_in)
        assert plugged.moves == optimum


def states_near_start(problem, count: int) -> list[np.ndarray]:
    """The first `count` states of a breadth-first search from the start."""
    keys, seen = [problem.start_key()], {problem.start_key().tobytes()}
    for key in keys:
        for _, child in problem.successors(key):
            if len(keys) < count and child.tobytes() not in seen:
                seen.add(child.tobytes())
                keys.append(child)
    return keys


def test_plugin_algorithms_estimate_with_the_numba_and_plain_python_blockers_as_the_built_in():
    problem = course("9x9_4")
    built_in = estimator(problem, problem.heuristic("blockers"))
    compiled, plain = (estimator(problem, PythonHeuristic(heuristic_entry("rushhour", name)))
                       for name in ("test-blockers-nb", "test-blockers-py"))
    values = [(built_in(key), compiled(key), plain(key)) for key in states_near_start(problem, 300)]
    assert all(a == b == c for a, b, c in values)
    assert len({a for a, _, _ in values}) > 1  # the states differ in blockers


@pytest.mark.parametrize(("number", "optimum", "tiles"), [case for case in EIGHT if case[1]])
def test_numba_manhattan_searches_the_eight_puzzle_as_the_built_in(number, optimum, tiles):
    problem = load_problem(" ".join(tiles))
    built_in, plugged = (solve(problem, "astar", {"heuristic": name}) for name in ("manhattan", "test-manhattan-nb"))
    assert counts(plugged) == counts(built_in)
    assert plugged.moves == int(optimum)
    assert solve(problem, "idastar", {"heuristic": "test-manhattan-nb"}).moves == int(optimum)
    manhattan = estimator(problem, problem.heuristic("manhattan"))
    plugin = estimator(problem, PythonHeuristic(heuristic_entry("npuzzle", "test-manhattan-nb")))
    assert [manhattan(key) for key in states_near_start(problem, 100)] == [
        plugin(key) for key in states_near_start(problem, 100)]


def test_a_plugin_that_writes_its_spec_writes_a_copy():
    problem = course("6x6_1")
    walls = problem.kernels.spec.walls.copy()
    plugged = heuristic_for(problem, "astar", "test-scribbler", {})
    report = astar(problem, Limits(), heuristic=plugged)
    assert report.outcome == "solved"
    assert (plugged.spec.base.walls == 7).all()  # it wrote, into its own copy
    assert np.array_equal(problem.kernels.spec.walls, walls)
    again = heuristic_for(problem, "astar", "test-scribbler", {})
    assert np.array_equal(again.spec.base.walls, walls)  # the next search starts from the problem's spec


def test_a_plugin_that_writes_the_key_does_not_compile():
    with pytest.raises(PuzzleError) as error:
        solve(course("6x6_1"), "astar", {"heuristic": "test-key-writer"})
    message = str(error.value)
    assert message.startswith("heuristic test-key-writer (plugin-kernels-test 1.0) does not compile as"
                              " h(spec, work, key) for rushhour: NumbaTypeError: Cannot modify readonly array")
    write = key_writer.py_func.__code__.co_firstlineno + 4  # two decorators, def, docstring, then the write
    assert message.endswith(f"(test_plugin_kernels.py, line {write})") and "\n" not in message


def test_a_plain_python_heuristic_in_a_compiled_search_is_one_line():
    for algorithm in ("astar", "idastar", "beam"):
        with pytest.raises(PuzzleError) as error:
            solve(course("6x6_1"), algorithm, {"heuristic": "test-blockers-py"})
        assert str(error.value) == (
            f"heuristic test-blockers-py (plugin-kernels-test 1.0) is plain Python, and {algorithm} is compiled:"
            " decorate the heuristic with @numba.njit to run it there, or use it with a plugin algorithm")
