"""The N-puzzle through the command line and the runner: detection, known answers, goals, board lists, sweeps."""

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.sweeps.sources import load_boards
from puzzles.domains import detect_domain, load_instance, problem_for
from puzzles.npuzzle.board import apply_moves, goal_tiles
from puzzles.npuzzle.boardlist import load_npuzzle, read_board_list
from puzzles.solver import solve

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf (1985) instance 1, 57 moves to the blank-first goal
KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize(
    "source, domain",
    [("412763580", "npuzzle"), ("1 2 3/4 5 6/7 8 0", "npuzzle"), ('{"height":2,"tiles":[1,2,3,0],"width":2}', "npuzzle"),
     ("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", "rushhour")],
)
def test_the_domain_is_detected(source, domain):
    assert detect_domain(source) == domain
    assert load_instance(source).domain == domain


def test_a_file_of_rows_is_an_n_puzzle(tmp_path, boards_dir):
    path = tmp_path / "eight.txt"
    path.write_text("4 1 2\n7 6 3\n5 8 0\n")
    instance = load_instance(str(path))
    assert (instance.domain, instance.name, instance.size) == ("npuzzle", "eight", 3)
    assert detect_domain(str(boards_dir / "Rushhour6x6_1.csv")) == "rushhour"


def test_solve_idastar_finds_korf_1_in_57_moves():
    result = run("solve", KORF_1, "--goal", "blank-first", "--algo", "idastar", "--heuristic", "linear-conflict", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["outcome"], data["moves"]) == ("solved", 57)
    assert set(data["solution"]) <= set("UDLR") and len(data["solution"]) == 57


def test_an_unsolvable_board_is_answered_without_search():
    data = json.loads(run("solve", "134805726", "--algo", "bfs", "--json").output)
    assert (data["outcome"], data["expanded"]) == ("unsolvable", 0)


def test_show_and_unknown_goal_are_usage_errors():
    shown = run("solve", "123456780", "--algo", "bfs", "--show")
    assert shown.exit_code == 2 and "Rush Hour boards only" in shown.output
    goal = run("solve", "123456780", "--algo", "bfs", "--goal", "nowhere")
    assert goal.exit_code == 2 and "unknown goal 'nowhere'" in goal.output


def test_a_sweep_of_n_puzzles_runs_locally_and_reports(tmp_path):
    db = f"sqlite:///{tmp_path / 'n.db'}"
    swept = run("sweep", "--algo", "astar,idastar", "--heuristic", "manhattan,linear-conflict", "--boards",
                "412763580", "412053786", "134805726", "--name", "eight", "--workers", 2, "--db", db)
    assert swept.exit_code == 0, swept.output
    status = json.loads(run("status", "eight", "--json", "--db", db).output)
    assert status["outcomes"] == {"solved": 8, "unsolvable": 4}
    table = run("report", "eight", "--by", "board", "--format", "csv", "--db", db).stdout.splitlines()
    moves = {row["board"]: row["moves_mean"] for row in csv.DictReader(table)}
    assert moves == {"412053786": "5.0", "412763580": "10.0", "134805726": ""}


def test_without_a_heuristic_each_domain_gets_its_own_default(tmp_path, boards_dir):
    solved = json.loads(run("solve", "412763580", "--algo", "idastar", "--json").output)
    assert (solved["params"]["heuristic"], solved["moves"]) == ("linear-conflict", 10)
    db = f"sqlite:///{tmp_path / 'mixed.db'}"
    swept = run("sweep", "--algo", "astar", "--boards", "412763580", boards_dir / "Rushhour6x6_1.csv",
                "--name", "mixed", "--db", db)
    assert swept.exit_code == 0, swept.output
    rows = run("export", "mixed", "--db", db).output
    assert '""heuristic"":""linear-conflict""' in rows and '""heuristic"":""blockers-lb""' in rows
    foreign = run("sweep", "--algo", "astar", "--heuristic", "manhattan", "--boards", "412763580",
                  boards_dir / "Rushhour6x6_1.csv", "--db", db)
    assert foreign.exit_code == 2 and "unknown heuristic 'manhattan' for Rush Hour" in foreign.output


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_json_gives_an_n_puzzle_solution_as_one_string_of_blank_moves(goal):
    data = json.loads(run("solve", "412763580", "--goal", goal, "--algo", "astar", "--json").output)
    solution = data["solution"]
    assert isinstance(solution, str) and len(solution) == data["moves"] == data["steps"]
    assert apply_moves(load_npuzzle("412763580"), solution).tiles == goal_tiles(3, 3, goal)


def test_json_keeps_a_rush_hour_solution_as_a_list_of_moves(boards_dir):
    data = json.loads(run("solve", boards_dir / "Rushhour6x6_1.csv", "--algo", "bfs", "--json").output)
    assert isinstance(data["solution"], list) and len(data["solution"]) == data["moves"] == 21
    assert data["solution"][-1] == "X+1"


def test_a_korf_instance_from_the_board_list_solves_to_its_goal_through_the_runner_path():
    (instance,) = load_boards([f"{KORF100}#12"])
    problem = problem_for(instance.domain, instance.text)  # what a worker rebuilds from the stored text
    assert (instance.name, problem.goal) == ("korf100-12", "blank-first")
    result = solve(problem, "idastar", {"heuristic": "linear-conflict"})
    optimal = int(read_board_list(str(KORF100))[11].columns["optimal"])
    assert (result.outcome, result.moves) == ("solved", optimal) == ("solved", 45)
    assert apply_moves(problem.board, "".join(result.solution)).tiles == goal_tiles(4, 4, "blank-first")
    data = json.loads(run("solve", f"{KORF100}#12", "--algo", "idastar", "--json").output)
    assert (data["moves"], data["solution"]) == (45, "".join(result.solution))


def test_a_sweep_plans_korf_100_and_single_rows():
    whole = run("sweep", "--algo", "idastar", "--boards", KORF100, "--dry-run")
    assert whole.exit_code == 0, whole.output
    assert "100 jobs on 100 boards" in whole.output and "korf100-1 " in whole.output
    one = run("sweep", "--algo", "idastar", "--boards", f"{KORF100}#17", KORF100.parent, "--dry-run")
    # the row is also in the directory's korf100.csv: kept once (the directory also holds the 6 eight-puzzle-seed
    # boards and the 50 of korf24.csv)
    assert "156 jobs on 156 boards" in one.output
    assert "1 job on 1 board" in run("sweep", "--algo", "bfs", "--boards", f"{KORF100}#17", "--dry-run").output


def test_a_sweep_runs_boards_to_the_goal_given_with_goal(tmp_path):
    db = f"sqlite:///{tmp_path / 'goals.db'}"
    moves = {}
    for name, goal in (("first", ["--goal", "blank-first"]), ("last", [])):
        swept = run("sweep", "--algo", "bfs", "--boards", "102345678", *goal, "--name", name, "--workers", 1, "--db", db)
        assert swept.exit_code == 0, swept.output
        (row,) = csv.DictReader(io.StringIO(run("export", name, "--db", db).output))
        moves[name] = int(row["moves"])
    direct = json.loads(run("solve", "102345678", "--algo", "bfs", "--json").output)
    assert moves == {"first": 1, "last": direct["moves"]} and direct["moves"] > 1


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("id,tiles\n1,123456780\n2,1 2 3 4 5 6 7 8 8\n", ":3:", "8 is duplicated, 0 is missing"),
        ("id,goal,tiles\n1,up,123456780\n", ":2:", "unknown goal 'up'"),
        ("id,tiles\n1,123456780,5\n", ":2:", "the row has 3 fields but the header has 2"),
    ],
)
def test_a_bad_board_list_row_is_one_line_and_exit_2(tmp_path, text, where, message):
    path = tmp_path / "mine.csv"
    path.write_text(text)
    result = run("sweep", "--algo", "bfs", "--boards", path, "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}{where}") and message in result.output
    assert result.output.count("\n") == 1 and not (tmp_path / "x.db").exists()


def test_an_unknown_goal_for_a_sweep_is_refused_even_without_n_puzzles(boards_dir):
    result = run("sweep", "--algo", "bfs", "--goal", "nowhere", "--boards", boards_dir / "Rushhour6x6_1.csv", "--dry-run")
    assert result.exit_code == 2 and "unknown goal 'nowhere'" in result.output
