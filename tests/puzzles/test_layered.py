"""Layered BFS with checkpoints: BFS's optima on the course boards, a bound that rises run by run, resuming.

Known answers: the course boards' optima in moves (slide model, proven by BFS)
and a walled board whose red car can never leave.
"""

import json
import logging
import re
from pathlib import Path

import pytest

from puzzles.errors import PuzzleError
from puzzles.npuzzle.formats import parse_npuzzle
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.result import Limits, Outcome
from puzzles.rushhour.formats import load_board, parse_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"
OPTIMA = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27}
# Tables of a few KiB (6x6) or 0.5 MiB (9x9): the larger layers are built in 2 to 8 parts.
BUDGETS = {"6x6_1": 2e-6, "6x6_2": 2e-6, "6x6_3": 2e-6, "9x9_4": 5e-4}


def course(name: str) -> RushHourProblem:
    return RushHourProblem(load_board(str(BOARDS / f"Rushhour{name}.csv")))


@pytest.mark.parametrize("name", sorted(OPTIMA))
def test_layered_finds_the_optimum_bfs_proves(name, tmp_path):
    problem = course(name)
    result = solve(problem, "layered", {"checkpoint": str(tmp_path), "memory_gib": BUDGETS[name]})
    assert result.outcome == Outcome.SOLVED and result.moves == OPTIMA[name]
    assert problem.check_solution(result.move_codes)
    assert result.extra["lower_bound"] == OPTIMA[name] and result.extra["depth_completed"] == OPTIMA[name] - 1
    assert max(result.extra["layer_parts"]) > 1  # some layers were built part by part


def test_the_layers_are_bfs_layers(tmp_path):
    problem = course("6x6_2")
    bfs = solve(problem, "bfs", {"exhaustive": True})
    layered = solve(problem, "layered", {"checkpoint": str(tmp_path), "memory_gib": BUDGETS["6x6_2"]})
    assert layered.extra["layer_counts"] == bfs.extra["depth_counts"][: OPTIMA["6x6_2"]]


def test_a_run_cut_short_reports_its_bound_and_the_next_resumes(tmp_path):
    # A run keeps the parts it finished: each must be given more expansions than one part's pass takes.
    problem = course("9x9_4")
    params = {"checkpoint": str(tmp_path), "memory_gib": BUDGETS["9x9_4"]}
    bounds = []
    for _ in range(100):
        result = solve(problem, "layered", params, Limits(max_nodes=40_000))
        if result.outcome == Outcome.SOLVED:
            break
        assert result.outcome == Outcome.LIMIT
        bound = result.extra["lower_bound"]
        assert result.reason.startswith(f"no solution within {bound - 1} moves (node limit")
        bounds.append(bound)
    assert result.moves == 27 and problem.check_solution(result.move_codes)
    assert bounds == sorted(bounds) and len(set(bounds)) >= 5 and bounds[-1] <= 27  # it rose run by run
    assert result.extra["total_expanded"] > 40_000 * len(bounds)
    again = solve(problem, "layered", params)  # a finished proof resumes into its solution
    assert again.moves == 27 and again.extra["total_expanded"] >= result.extra["total_expanded"]


def test_every_layer_reaches_the_manifest_as_it_is_proven(tmp_path):
    solve(course("6x6_1"), "layered", {"checkpoint": str(tmp_path)}, Limits(max_nodes=300))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    layers = manifest["layers"]
    assert len(layers) > 5 and layers[0] == {"count": 1, "parts": 1, "min_h": layers[0]["min_h"]}
    assert all((tmp_path / f"layer-{d:03d}-part-0000-of-0001.npy").exists() for d in range(len(layers)))


def test_an_upper_bound_decides_whether_a_shorter_solution_exists(tmp_path):
    problem = course("6x6_1")  # 21 moves
    proof = solve(problem, "layered", {"checkpoint": str(tmp_path / "20"), "upper_bound": 20})
    assert proof.outcome == Outcome.LIMIT
    assert proof.reason == "no solution within 19 moves: every state within the bound searched"
    assert proof.extra["lower_bound"] == 20 and proof.extra["upper_bound"] == 20
    assert proof.expanded == proof.extra["total_expanded"] == sum(proof.extra["layer_counts"])  # each kept state, once
    assert proof.generated == proof.extra["total_generated"] > proof.expanded
    unpruned = solve(problem, "layered", {"checkpoint": str(tmp_path / "none")})
    assert sum(proof.extra["layer_counts"]) < sum(unpruned.extra["layer_counts"][:20])  # states over the bound dropped
    for upper in (21, 22):  # a goal at the bound itself is found when a state one move before it is kept
        solved = solve(problem, "layered", {"checkpoint": str(tmp_path / str(upper)), "upper_bound": upper})
        assert solved.moves == 21 and problem.check_solution(solved.move_codes)


def test_each_layer_is_logged_as_it_is_proven_with_the_bound_so_far(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="puzzles.search.layered")
    proof = solve(course("6x6_1"), "layered", {"checkpoint": str(tmp_path), "upper_bound": 20})
    lines = [re.fullmatch(r"layer (\d+): ([\d,]+) states in 1 part\(s\); no solution within (\d+) moves", record.message)
             for record in caplog.records]
    assert all(lines) and [int(line[1]) for line in lines] == list(range(1, len(proof.extra["layer_counts"])))
    assert [int(line[2].replace(",", "")) for line in lines] == proof.extra["layer_counts"][1:]
    bounds = [int(line[3]) for line in lines]
    assert bounds == sorted(bounds) and bounds[-1] == 19 and bounds[0] < 10


def test_a_board_whose_red_car_cannot_leave_is_unsolvable(tmp_path):
    walled = parse_board("....../....../AA..x./....../....../......")
    result = solve(RushHourProblem(walled), "layered", {"checkpoint": str(tmp_path)})
    assert result.outcome == Outcome.UNSOLVABLE and result.extra["layer_counts"] == [1, 2, 0]
    assert result.expanded == 3 and result.generated == 6  # A+1, A+2; then from each, two slides


def test_the_n_puzzle_too(tmp_path):
    problem = NPuzzleProblem(parse_npuzzle("1 2 3/4 5 6/0 7 8"))
    assert solve(problem, "layered", {"heuristic": "manhattan", "checkpoint": str(tmp_path)}).moves == 2


def test_a_checkpoint_of_another_search_is_refused(tmp_path):
    solve(course("6x6_1"), "layered", {"checkpoint": str(tmp_path)}, Limits(max_nodes=100))
    with pytest.raises(PuzzleError, match="belongs to another search"):
        solve(course("6x6_2"), "layered", {"checkpoint": str(tmp_path)})
    with pytest.raises(PuzzleError, match="belongs to another search"):
        solve(course("6x6_1"), "layered", {"checkpoint": str(tmp_path), "heuristic": "blockers"})
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(PuzzleError, match="cannot be read"):
        solve(course("6x6_1"), "layered", {"checkpoint": str(tmp_path)})


def test_an_upper_bound_needs_an_admissible_heuristic():
    with pytest.raises(PuzzleError, match="admissible"):
        solve(course("6x6_1"), "layered", {"heuristic": "moves-freed", "upper_bound": 30})


def test_a_layer_that_outgrows_its_memory_is_split_finer_by_the_next_run(tmp_path, monkeypatch):
    from puzzles.search import layered

    problem = course("6x6_3")
    params = {"checkpoint": str(tmp_path)}
    solve(problem, "layered", params, Limits(max_nodes=2_000))
    real = layered.expand_part
    monkeypatch.setattr(layered, "expand_part", lambda *args: (layered.stops.MEMORY_LIMIT, args[4], args[5]))
    cut = solve(problem, "layered", params)
    assert cut.outcome == Outcome.LIMIT and "out of memory" in cut.reason
    assert json.loads((tmp_path / "manifest.json").read_text())["building"]["parts"] == 2
    monkeypatch.setattr(layered, "expand_part", real)
    result = solve(problem, "layered", params)
    assert result.moves == 33 and 2 in result.extra["layer_parts"]


def test_a_memory_error_anywhere_in_a_part_is_a_memory_limit_and_the_next_run_splits_finer(tmp_path, monkeypatch):
    from puzzles.search import layered

    problem = course("6x6_3")
    params = {"checkpoint": str(tmp_path)}
    solve(problem, "layered", params, Limits(max_nodes=2_000))
    real = layered.Checkpoint.slices

    def no_room(*args):
        raise MemoryError

    monkeypatch.setattr(layered.Checkpoint, "slices", no_room)  # reading the layers before: past the table's np.zeros
    cut = solve(problem, "layered", params)
    assert cut.outcome == Outcome.LIMIT and "out of memory" in cut.reason
    assert json.loads((tmp_path / "manifest.json").read_text())["building"]["parts"] == 2
    monkeypatch.setattr(layered.Checkpoint, "slices", real)
    assert solve(problem, "layered", params).moves == 33


@pytest.mark.parametrize("name", ["6x6_3", "9x9_4"])
def test_parts_built_in_two_processes_give_the_layers_and_optimum_of_one(name, tmp_path):
    problem = course(name)
    one = solve(problem, "layered", {"checkpoint": str(tmp_path / "one"), "memory_gib": BUDGETS[name]})
    two = solve(problem, "layered", {"checkpoint": str(tmp_path / "two"), "memory_gib": BUDGETS[name], "processes": 2})
    assert two.outcome == Outcome.SOLVED and two.moves == one.moves == OPTIMA[name]
    assert problem.check_solution(two.move_codes)
    assert two.extra["layer_counts"] == one.extra["layer_counts"] and min(two.extra["layer_parts"][1:]) >= 2
    assert two.extra["total_expanded"] >= one.extra["total_expanded"] * 0.9  # the last layer may stop sooner or later


def test_only_an_admissible_estimate_raises_the_bound(tmp_path):
    # blockers-lb is 4 on 9x9_4's start and stays 4 for 12 layers: the bound is depth + 4 there, plain depth + 1 with
    # moves-freed, which is not admissible.
    params = {"checkpoint": str(tmp_path / "lb")}
    admissible = solve(course("9x9_4"), "layered", params, Limits(max_nodes=1_000))
    assert admissible.extra["lower_bound"] == admissible.extra["depth_completed"] + 4
    inadmissible = solve(course("9x9_4"), "layered", {"checkpoint": str(tmp_path / "mf"), "heuristic": "moves-freed"},
                         Limits(max_nodes=1_000))
    assert inadmissible.extra["lower_bound"] == inadmissible.extra["depth_completed"] + 1
    assert set(inadmissible.extra["layer_min_h"]) == {None}


@pytest.mark.parametrize("model", ["slide", "step"])
def test_a_solved_board_takes_no_moves_and_the_step_model_counts_cells(model, tmp_path):
    solved = RushHourProblem(parse_board("....../....../....AA/....../....../......"), model)
    assert solve(solved, "layered", {"checkpoint": str(tmp_path / "solved")}).moves == 0
    result = solve(RushHourProblem(load_board(str(BOARDS / "Rushhour6x6_2.csv")), model), "layered",
                   {"checkpoint": str(tmp_path / "6x6_2")})
    assert result.moves == {"slide": 15, "step": 29}[model]


def test_a_resumed_search_may_lower_its_upper_bound_but_not_raise_it(tmp_path):
    problem = course("6x6_3")  # 33 moves
    params = {"checkpoint": str(tmp_path)}
    solve(problem, "layered", params, Limits(max_nodes=1_000))  # unbounded so far
    solve(problem, "layered", params | {"upper_bound": 40}, Limits(max_nodes=1_000))
    for looser in ({}, {"upper_bound": 41}):
        with pytest.raises(PuzzleError, match="upper bound of 40 moves: resume with that bound or a lower one"):
            solve(problem, "layered", params | looser)
    result = solve(problem, "layered", params | {"upper_bound": 34})
    assert result.moves == 33 and problem.check_solution(result.move_codes)
    below = solve(problem, "layered", {"checkpoint": str(tmp_path / "below")}, Limits(max_nodes=1_000))
    proof = solve(problem, "layered", {"checkpoint": str(tmp_path / "below"), "upper_bound": 32})
    assert below.outcome == Outcome.LIMIT
    assert proof.reason == "no solution within 31 moves: every state within the bound searched"
