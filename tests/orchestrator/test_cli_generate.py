"""`orchestrate boards generate`: generated boards stored in a set, with the optima the generator proved."""

import pytest
from typer.testing import CliRunner

from orchestrator.boards.catalogue import members
from orchestrator.cli import app
from puzzles.domains import problem_for
from puzzles.npuzzle.board import is_solvable
from puzzles.npuzzle.formats import parse_npuzzle
from puzzles.solver import solve
from workers.store import connect

runner = CliRunner()


def generate(db: str, *args: str):
    return runner.invoke(app, ["boards", "generate", *args, "--db", db])


def test_rush_hour_boards_are_stored_with_the_optimum_bfs_confirms(tmp_path):
    db = f"sqlite:///{tmp_path / 'gen.db'}"
    result = generate(db, "rushhour", "--size", "6", "--count", "3", "--seed", "4", "--min-moves", "12")
    assert result.exit_code == 0, result.output
    assert "set rushhour-6x6-s4-min12: 3 added" in result.output
    boards = members(connect(db), "rushhour-6x6-s4-min12")
    assert [board.name for board in boards] == [f"rushhour-6x6-s4-min12-00{i}" for i in (1, 2, 3)]
    for board in boards:
        bfs = solve(problem_for(board.domain, board.canonical_text), "bfs")
        assert board.known_optimum == bfs.moves >= 12
    again = generate(db, "rushhour", "--size", "6", "--count", "3", "--seed", "4", "--min-moves", "12")
    assert again.exit_code == 0 and "3 added" not in again.output and "0 added" in again.output


def test_npuzzle_walks_go_into_the_named_set_and_sweep_from_it(tmp_path):
    db = f"sqlite:///{tmp_path / 'gen.db'}"
    result = generate(db, "npuzzle", "--size", "3", "--count", "4", "--seed", "9", "--walk", "6", "--set", "walks")
    assert result.exit_code == 0, result.output
    boards = members(connect(db), "walks")
    assert len(boards) == 4
    for board in boards:
        assert is_solvable(parse_npuzzle(board.canonical_text, fmt="json"))
        assert solve(problem_for("npuzzle", board.canonical_text), "bfs").moves <= 6
    planned = runner.invoke(app, ["sweep", "--name", "w", "--algo", "bfs", "--boards", "set:walks", "--dry-run", "--db", db])
    assert planned.exit_code == 0, planned.output
    assert "4 boards" in planned.output or "4 jobs" in planned.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["rushhour", "--size", "6", "--walk", "3"], "--walk and --height are N-puzzle options"),
        (["npuzzle", "--size", "3", "--min-moves", "3"], "--min-moves, --moves and --max-attempts are Rush Hour options"),
        (["npuzzle", "--size", "3", "--max-attempts", "3"], "--min-moves, --moves and --max-attempts are Rush Hour options"),
        (["chess", "--size", "8"], "unknown domain 'chess'"),
    ],
)
def test_options_of_the_other_domain_are_usage_errors(tmp_path, args, message):
    result = generate(f"sqlite:///{tmp_path / 'gen.db'}", *args)
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.timeout(30)
def test_an_impossible_request_gives_up_after_max_attempts_with_one_line_saying_what_to_ask(tmp_path):
    result = generate(f"sqlite:///{tmp_path / 'gen.db'}", "rushhour", "--size", "6", "--min-moves", "200", "--max-attempts", "5")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: 5 placements on 6x6 gave 0 of 10 boards needing at least 200 moves (the hardest reached")
    assert line.endswith("allow more with --max-attempts, or ask for an easier --min-moves")
    exact = generate(f"sqlite:///{tmp_path / 'gen.db'}", "rushhour", "--size", "6", "--moves", "200", "--max-attempts", "5")
    assert exact.exit_code == 2 and exact.output.strip().endswith("or ask for an easier --moves")


def test_generations_with_other_options_go_to_other_sets_under_other_names(tmp_path):
    db = f"sqlite:///{tmp_path / 'gen.db'}"
    uniform = generate(db, "npuzzle", "--size", "4", "--count", "5", "--seed", "1")
    walks = generate(db, "npuzzle", "--size", "4", "--count", "5", "--seed", "1", "--walk", "40")
    korf = generate(db, "npuzzle", "--size", "4", "--count", "5", "--seed", "1", "--goal", "blank-first")
    assert all(result.exit_code == 0 for result in (uniform, walks, korf)), (uniform.output, walks.output, korf.output)
    sets = {name: [board.name for board in members(connect(db), name)]
            for name in ("npuzzle-4x4-s1", "npuzzle-4x4-s1-walk40", "npuzzle-4x4-s1-blank-first")}
    assert sets["npuzzle-4x4-s1"] == [f"npuzzle-4x4-s1-00{i}" for i in range(1, 6)]
    assert sets["npuzzle-4x4-s1-walk40"] == [f"npuzzle-4x4-s1-walk40-00{i}" for i in range(1, 6)]
    assert len({name for names in sets.values() for name in names}) == 15  # no name names two boards
    shown = runner.invoke(app, ["boards", "show", "npuzzle-4x4-s1-walk40-001", "--db", db])
    assert shown.exit_code == 0 and "npuzzle-4x4-s1-walk40" in shown.output


def test_a_set_never_holds_two_boards_of_one_name(tmp_path, boards_dir):
    db = f"sqlite:///{tmp_path / 'gen.db'}"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "Rushhour6x6_1.csv").write_text((boards_dir / "Rushhour6x6_2.csv").read_text())  # same name, other board
    first = runner.invoke(app, ["boards", "import", str(boards_dir / "Rushhour6x6_1.csv"), "--set", "mine", "--db", db])
    assert first.exit_code == 0, first.output
    clash = runner.invoke(app, ["boards", "import", str(elsewhere / "Rushhour6x6_1.csv"), "--set", "mine", "--db", db])
    assert clash.exit_code == 2 and "would hold several boards named Rushhour6x6_1" in clash.output
    assert [board.name for board in members(connect(db), "mine")] == ["Rushhour6x6_1"]
