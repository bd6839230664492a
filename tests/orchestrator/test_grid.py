"""Sweep value lists and grids."""

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from orchestrator.sweeps.grid import MAX_VALUES, SweepGrid, combinations, flag_name, parse_values, values_text
from orchestrator.sweeps.status_view import jobs_table
from puzzles.algorithms import ALGORITHMS, OFFERED
from puzzles.errors import PuzzleError
from tests.orchestrator.clirun import assert_usage_error, orchestrate
from workers.store.states import JobState

VALUES = st.lists(st.one_of(st.integers(-50, 500), st.sampled_from(["blockers", "blockers-lb"]), st.sampled_from([0.5, 2.5])),
                  min_size=1, max_size=40, unique=True)
GRIDS = st.builds(
    SweepGrid,
    algorithms=st.lists(st.sampled_from(sorted(ALGORITHMS)), min_size=1, max_size=4, unique=True),
    params=st.dictionaries(st.sampled_from(["k", "heuristic", "batch_size", "max_steps", "w_exit"]), VALUES, max_size=3),
    seeds=st.none() | st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=10, unique=True),
    repeat=st.integers(1, 100),
    seed_namespace=st.none() | st.text(min_size=1, max_size=12),
    boards=st.lists(st.text(min_size=1, max_size=12), max_size=4),
)


@pytest.mark.parametrize(
    "text, values",
    [
        ("1..50", list(range(1, 51))),
        ("1..50:5", [1, 6, 11, 16, 21, 26, 31, 36, 41, 46]),
        ("10,100", [10, 100]),
        ("1..3,10,blockers", [1, 2, 3, 10, "blockers"]),
        ("blockers, blockers-lb", ["blockers", "blockers-lb"]),
        ("0.5..2:0.5", [0.5, 1.0, 1.5, 2.0]),
        ("0.1..0.3:0.1", [0.1, 0.2, 0.3]),
        ("-20..-10:5", [-20, -15, -10]),
        ("3..3", [3]),
        ("1..3,2..4", [1, 2, 3, 4]),
        ("-14", [-14]),
        ("2.5", [2.5]),
    ],
)
def test_values(text, values):
    assert parse_values(text, "--k") == values
    assert [type(v) for v in parse_values(text, "--k")] == [type(v) for v in values]


@given(st.integers(-1000, 1000), st.integers(0, 300), st.integers(1, 50))
def test_an_integer_range_is_python_s_inclusive_range(low, span, step):
    assert parse_values(f"{low}..{low + span}:{step}", "--k") == list(range(low, low + span + 1, step))


@given(VALUES)
def test_values_are_written_as_they_are_read(values):
    assert parse_values(values_text(values), "--k") == values


@given(GRIDS)
def test_a_grid_reads_back_as_a_sweep_row_or_a_spec_file_keeps_it(grid):
    assert SweepGrid.from_json(json.loads(json.dumps(grid.to_json()))) == grid


@given(GRIDS)
def test_a_grid_written_as_options_reads_back_from_them(grid):
    words = grid.options_text().split(" ")
    options = dict(zip(words[::2], words[1::2]))
    params = {name: options[flag_name(name)] for name in grid.params}
    seeds = values_text(grid.seeds) if grid.seeds else None
    read = SweepGrid.from_options(options["--algo"], params, seeds, grid.repeat)
    assert read == replace(grid, seed_namespace=None, boards=[])


def test_a_parameter_s_option_is_its_name_with_hyphens():
    assert [flag_name(name) for name in ("k", "batch_size", "max_nodes")] == ["--k", "--batch-size", "--max-nodes"]


def test_evenly_spaced_integers_are_written_as_a_range():
    assert [values_text(v) for v in ([1, 2, 3, 4], list(range(50, 3001, 50)), [1, 2, 3], [1, 2, 4, 8])] == [
        "1..4", "50..3000:50", "1,2,3", "1,2,4,8"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("5..1", "--k: the range '5..1' is empty"),
        ("1..5:0", "--k: the step of '1..5:0' must be positive"),
        ("1..5:-1", "must be positive"),
        ("a..b", "'a..b' is not a range of numbers"),
        ("1..", "is not a range of numbers"),
        ("1,,2", "--k: an empty value"),
        ("", "an empty value"),
        (f"1..{MAX_VALUES + 1}", "has more than 100,000 values"),
    ],
)
def test_bad_values(text, message):
    with pytest.raises(PuzzleError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_values(text, "--k")


def test_beam_over_k_and_heuristics():
    grid = combinations(["beam"], {"k": [1, 2, 3], "heuristic": ["blockers", "blockers-lb"]})
    assert len(grid) == 6
    assert ("beam", {"k": 2, "heuristic": "blockers-lb"}) in grid


def test_each_algorithm_gets_only_the_parameters_it_takes():
    grid = combinations(["beam", "astar", "bfs"], {"k": [5, 10], "heuristic": ["blockers"]})
    assert grid == [
        ("beam", {"k": 5, "heuristic": "blockers"}),
        ("beam", {"k": 10, "heuristic": "blockers"}),
        ("astar", {"heuristic": "blockers"}),
        ("bfs", {"exhaustive": False}),
    ]


def test_spr_batches_and_batch_sizes():
    grid = combinations(["spr"], {"batches": parse_values("1..10", "--batches"), "batch_size": [10, 100]})
    assert len(grid) == 20 and all(params["max_steps"] == 1_000_000 for _, params in grid)


@pytest.mark.parametrize(
    "algorithms, params, message",
    [
        (["bfs"], {"k": [1]}, "no algorithm among bfs takes k"),
        (["dijkstra"], {}, "unknown algorithm 'dijkstra'"),
        (["beam"], {"k": [0]}, "k must be at least 1"),
        (["beam"], {"k": [1.5]}, "k must be a whole number"),
    ],
)
def test_bad_grids(algorithms, params, message):
    with pytest.raises(PuzzleError, match=message):
        combinations(algorithms, params)


BOARD = "data/boards/rushhour/Rushhour6x6_1.csv"


@pytest.mark.parametrize(
    "args, message",
    [
        (["sweep", "--algo", "beam", "--k", "1-50"], "--k: '1-50' is not a number; write ranges as 1..50"),
        (["sweep", "--algo", "spr", "--seeds", "3 - 9"], "--seeds: '3 - 9' is not a number; write ranges as 3..9"),
        (["sweep", "--algo", "bema"], "unknown algorithm 'bema' (did you mean beam? choose from random, spr, iddfs, bfs,"
                                      " beam, astar, idastar, layered, moves-freed"),
        (["solve", BOARD, "--algo", "idastr"], "unknown algorithm 'idastr' (did you mean idastar? choose from"),
        (["solve", BOARD, "--algo", "xyz"], "unknown algorithm 'xyz' (choose from random,"),
    ],
)
def test_a_mistyped_range_or_algorithm_says_what_was_meant(args, message):
    boards = ["--boards", BOARD, "--dry-run"] if args[0] == "sweep" else []
    result = orchestrate(*args, *boards)
    assert_usage_error(result, message)
    assert "idastar-subtree" not in result.stderr  # split's own jobs, never offered


def test_a_dashed_word_stays_a_word_where_words_are_values():
    assert SweepGrid.from_options("astar", {"pdb": "4-4"}).params == {"pdb": ["4-4"]}


def test_the_algorithms_share_one_default_heuristic():
    defaults = {name: ALGORITHMS[name].params["heuristic"].default for name in OFFERED
                if ALGORITHMS[name].origin is None and "heuristic" in ALGORITHMS[name].params}
    assert set(defaults) == {"beam", "astar", "idastar", "layered"} and set(defaults.values()) == {"blockers-lb"}
    assert "layered,greedy,wastar:theheuristic:" in "".join(orchestrate("sweep", "--help").stdout.split())  # no subtree
    assert "(defaultblockers-lb)" in "".join(orchestrate("sweep", "--help").stdout.split())


def test_the_jobs_view_shows_every_parameter_of_a_job_defaults_too():
    row = {"id": 7, "board": "Rushhour6x6_1", "algorithm": "beam", "params": {"heuristic": "blockers-lb", "k": 10},
           "seed": None, "state": JobState.DONE, "outcome": "solved", "moves": 30, "elapsed_s": 0.5, "host": "h",
           "error": None}
    console = Console(width=200, record=True)
    console.print(jobs_table([row]))
    assert "beam heuristic=blockers-lb k=10" in console.export_text()
