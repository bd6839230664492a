"""`orchestrate solve` (and the other commands' help) through Typer's CliRunner."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from puzzles.result import Limits
from puzzles.rushhour.formats import format_board, load_board
from puzzles.rushhour.problem import RushHourProblem
from puzzles.solver import solve

runner = CliRunner()

# A 6x6 board from Fogleman's database, with a wall (x); the red car is A.
FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"


def orchestrate(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def solve_json(*args: str) -> dict:
    result = orchestrate("solve", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_usage_error(result) -> None:
    """Exit 2 with one `error:` line on stderr and no traceback anywhere."""
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_a_layered_solve_shows_each_layer_proven_on_stderr(boards_dir, tmp_path):
    result = orchestrate("solve", boards_dir / "Rushhour6x6_2.csv", "--algo", "layered", "--checkpoint", tmp_path / "cp")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 14 and lines[-1].endswith(" layer 14: 478 states in 1 part(s); no solution within 14 moves")
    assert "moves:           15" in result.stdout and "no solution within" not in result.stdout


def test_bfs_json_solves_course_board(boards_dir):
    data = solve_json(boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs")
    assert data["outcome"] == "solved"
    assert isinstance(data["moves"], int) and data["moves"] > 0
    assert len(data["solution"]) == data["moves"]
    assert data["steps"] >= data["moves"]
    assert "move_codes" not in data


def test_json_is_one_object_and_nothing_else(boards_dir):
    result = orchestrate("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs", "--json")
    assert result.stdout.count("\n") == 1
    assert isinstance(json.loads(result.stdout), dict)


def test_astar_blockers_lb_is_optimal_like_bfs(boards_dir):
    board = boards_dir / "Rushhour6x6_1.csv"
    bfs = solve_json(board, "--algo", "bfs")
    astar = solve_json(board, "--algo", "astar", "--heuristic", "blockers-lb")
    assert astar["outcome"] == "solved"
    assert astar["moves"] == bfs["moves"]


def test_fogleman_string_is_a_board():
    data = solve_json(FOGLEMAN, "--algo", "bfs")
    assert data["outcome"] == "solved"
    assert len(data["solution"]) == data["moves"] > 0


def test_step_model_counts_one_cell_per_move(boards_dir):
    data = solve_json(boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs", "--move-model", "step")
    assert data["outcome"] == "solved"
    assert data["steps"] == data["moves"]


def test_summary_is_readable(boards_dir):
    result = orchestrate("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs")
    assert result.exit_code == 0, result.output
    assert "outcome:" in result.stdout and "solved" in result.stdout
    assert "solution:" in result.stdout and "peak memory:" in result.stdout


def test_show_piped_prints_plain_frames_ending_on_the_goal():
    result = orchestrate("solve", FOGLEMAN, "--algo", "bfs", "--show")
    assert result.exit_code == 0, result.output
    problem = RushHourProblem(load_board(FOGLEMAN))
    solved = solve(problem, "bfs", {}, Limits())
    final = problem.board_at(problem.play(solved.move_codes)[-1])
    n = solved.moves
    assert f"move {n}/{n}: {solved.solution[-1]}" in result.stdout
    assert sum(line.startswith("move ") for line in result.stdout.splitlines()) == n
    assert format_board(final, "grid").rstrip("\n") in result.stdout
    assert "\x1b[" not in result.stdout  # no colour codes when piped


def test_show_course_board_uses_its_labels(boards_dir):
    result = orchestrate("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs", "--show")
    assert result.exit_code == 0, result.output
    frames = result.stdout.split("\n\n")
    last = next(f for f in reversed(frames) if f.startswith("move "))
    caption, *rows = last.splitlines()
    assert caption.split(": ")[1].startswith("X+")  # the red car makes the last move
    assert any(row.endswith("XX") for row in rows)  # ... and ends at the exit


def test_missing_file_is_a_usage_error(tmp_path):
    assert_usage_error(orchestrate("solve", tmp_path / "Rushhour6x6_9.csv", "--algo", "bfs"))


def test_bad_board_string_is_a_usage_error():
    assert_usage_error(orchestrate("solve", "IBBxooIooLDDJAAL", "--algo", "bfs"))


def test_unknown_algorithm_is_a_usage_error(boards_dir):
    assert_usage_error(orchestrate("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "dijkstra-ish"))


def test_parameter_the_algorithm_does_not_take_is_a_usage_error(boards_dir):
    assert_usage_error(orchestrate("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs", "--k", "3"))


def test_unknown_move_model_is_a_usage_error(boards_dir):
    board = boards_dir / "Rushhour6x6_1.csv"
    assert_usage_error(orchestrate("solve", board, "--algo", "bfs", "--move-model", "hop"))


def test_json_and_show_together_are_a_usage_error(boards_dir):
    board = boards_dir / "Rushhour6x6_1.csv"
    assert_usage_error(orchestrate("solve", board, "--algo", "bfs", "--json", "--show"))


def test_limit_is_a_result_not_an_error(boards_dir):
    data = solve_json(boards_dir / "Rushhour9x9_4.csv", "--algo", "bfs", "--max-nodes", "10")
    assert data["outcome"] == "limit"


def test_demo_compares_algorithms_on_a_board(boards_dir):
    result = orchestrate("demo", boards_dir / "Rushhour6x6_1.csv")
    assert result.exit_code == 0, result.output
    for label in ("bfs", "astar(lb)", "beam(k=50, lb)", "moves-freed", "spr(5x10, seed=1)"):
        assert label in result.stdout


@pytest.mark.parametrize("command", [[], ["solve"], ["demo"]], ids=["app", "solve", "demo"])
def test_help_shows_an_example(command):
    result = orchestrate(*command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout


def test_solve_needs_no_database_and_loads_no_sqlalchemy(boards_dir):
    """A database URL is checked where a database is opened: a broken one does not stop a search, which never
    loads SQLAlchemy (a quarter of a second of every start)."""
    child = ("import sys\nfrom orchestrator.cli import run\nsys.argv = ['orchestrate', 'solve', sys.argv[1], '--algo', 'bfs', '--json']\n"
             "try:\n    run()\nfinally:\n    print('sqlalchemy' in sys.modules)")
    environment = {**os.environ, "SLIDELAB_DATABASE_URL": "mysql://nowhere/x"}
    solved = subprocess.run([sys.executable, "-c", child, str(boards_dir / "Rushhour6x6_1.csv")], env=environment,
                            capture_output=True, text=True, timeout=300)
    assert solved.returncode == 0, solved.stderr
    result, loaded = solved.stdout.splitlines()
    assert (json.loads(result)["moves"], loaded) == (21, "False")
