"""The N-puzzle through the command line and the runner: detection, known answers, sweeps."""

import json

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from puzzles.domains import detect_domain, load_instance

KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf (1985) instance 1, 57 moves to the blank-first goal


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
    assert (data["status"], data["moves"]) == ("solved", 57)
    assert set("".join(data["solution"])) <= set("UDLR")


def test_an_unsolvable_board_is_answered_without_search():
    data = json.loads(run("solve", "134805726", "--algo", "bfs", "--json").output)
    assert (data["status"], data["expanded"]) == ("unsolvable", 0)


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
    assert status["results"] == {"solved": 8, "unsolvable": 4}
    table = run("report", "eight", "--by", "board", "--format", "csv", "--db", db).output.splitlines()
    moves = {line.split(",")[0]: line.split(",")[3] for line in table[1:]}
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
