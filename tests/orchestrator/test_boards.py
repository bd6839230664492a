"""`orchestrate boards`: imports, sets, shipped sets, `show`, and known optima found by a real sweep.

Every test runs on SQLite and on PostgreSQL (`db_url`); the commands run in
this process through Typer's CliRunner, their job processes are real.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from orchestrator.boards.catalogue import members
from orchestrator.reports import rows as report_rows
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.optima import optimal_search, plan_optima
from orchestrator.sweeps.sources import load_boards
from puzzles.domains import load_instance
from puzzles.errors import PuzzleError
from tests.orchestrator.clirun import ok, orchestrate
from tests.tables import Board, BoardSet, BoardSetMember, Job, Result, Sweep
from workers.store import connect
from workers.store.database import engine_for

NPUZZLE = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle"
SIX = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33}
EIGHT = {"412763058": 8, "412053786": 5}  # from the 8-puzzle document
UNSOLVABLE = "134805726"
FIFTEEN = "1 2 3 4/5 6 7 8/9 10 11 12/13 0 14 15"  # two moves from the goal



def table_rows(output: str) -> list[list[str]]:
    """The numbered rows of a printed `boards list --set` table, split on spaces."""
    return [line.split() for line in output.splitlines() if line.split() and line.split()[0].isdigit()]


def counts(url: str) -> dict[str, int]:
    with Session(engine_for(url)) as session:
        return {
            model.__tablename__: session.scalar(select(func.count()).select_from(model))
            for model in (Board, BoardSet, BoardSetMember, Sweep, Job, Result)
        }


def snapshot(url: str) -> dict:
    """Everything a failed command must leave as it was."""
    with Session(engine_for(url)) as session:
        boards = session.execute(select(Board.id, Board.name, Board.known_optimum).order_by(Board.id)).all()
        sets = session.execute(
            select(BoardSetMember.set_id, BoardSetMember.board_id, BoardSetMember.position).order_by(BoardSetMember.board_id)
        ).all()
    return {"counts": counts(url), "boards": boards, "members": sets}


def optima_by_name(url: str, set_name: str) -> dict[str, int | None]:
    return {board.name: board.known_optimum for board in members(connect(url), set_name)}


def test_every_boards_command_has_help_with_an_example():
    for command in ("import", "list", "show", "optimum"):
        assert "Example" in ok(orchestrate("boards", command, "--help")).stdout


# --------------------------------------------------------------------------- imports and sets


def test_imports_store_each_board_once(db_url, boards_dir, tmp_path):
    one = boards_dir / "Rushhour6x6_1.csv"
    renamed = tmp_path / "Rushhour6x6_9.csv"  # the same board under another name
    shutil.copy(one, renamed)
    first = ok(orchestrate("boards", "import", one, one, "412763058", "4 1 2/7 6 3/0 5 8", "--set", "a", "--db", db_url))
    assert first.stdout == "2 boards, 2 new, 0 with a known optimum given; set a: 2 added\n"
    assert ok(orchestrate("boards", "import", renamed, "--set", "b", "--db", db_url)).stdout == (
        "1 board, 0 new, 0 with a known optimum given; set b: 1 added\n"
    )
    again = ok(orchestrate("boards", "import", renamed, one, "412763058", "--set", "a", "--db", db_url))
    assert again.stdout.endswith("set a: 0 added\n")
    ok(orchestrate("boards", "import", one, "--db", db_url))  # no set: only the board, stored already
    assert {k: v for k, v in counts(db_url).items() if k.startswith("board")} == {
        "boards": 2, "board_sets": 2, "board_set_members": 3,
    }
    assert optima_by_name(db_url, "b") == {"Rushhour6x6_1": 21}  # the name it was first stored under; the shipped optimum


def test_a_set_round_trips_into_a_sweep_in_order(db_url, boards_dir):
    sources = [boards_dir / "Rushhour6x6_3.csv", "412763058", boards_dir / "Rushhour6x6_1.csv"]
    names = ["Rushhour6x6_3", "412763058", "Rushhour6x6_1"]
    ok(orchestrate("boards", "import", *sources, "--set", "mix", "--db", db_url))
    assert [row[1] for row in table_rows(ok(orchestrate("boards", "list", "--set", "mix", "--db", db_url)).stdout)] == names
    db = connect(db_url)
    expected = [load_instance(str(source)).id for source in sources]
    assert [board.id for board in load_boards(["set:mix"], db=db)] == expected
    assert [board.id for board in load_boards(["set:mix", str(sources[2])], db=db)] == expected  # kept once

    planned = ok(orchestrate("sweep", "--algo", "bfs", "--boards", "set:mix", "--dry-run", "--db", db_url)).stdout
    lines = planned.splitlines()
    assert lines[0].endswith(": 3 jobs on 3 boards")
    assert [line.split()[0] for line in lines[1:]] == names
    ok(orchestrate("boards", "import", "set:mix", "--set", "copy", "--db", db_url))
    assert [board.name for board in members(db, "copy")] == names

    ok(orchestrate("sweep", "--algo", "bfs", "--boards", "set:mix", "--name", "on-mix", "--workers", 1, "--db", db_url))
    with Session(db.engine) as session:
        boards = session.scalars(select(Job.board_id).join(Sweep).where(Sweep.name == "on-mix").order_by(Job.id))
        assert list(boards) == expected


def test_a_board_given_as_a_file_has_its_known_optimum_in_the_sweep_and_its_report(db_url, tmp_path, boards_dir):
    copy = tmp_path / "Rushhour6x6_99.csv"  # the course board under another file name: its content names it
    shutil.copy(boards_dir / "Rushhour6x6_2.csv", copy)
    ok(orchestrate("sweep", "--algo", "bfs", "--boards", copy, "--name", "from-file", "--workers", 1, "--db", db_url))
    db = connect(db_url)
    with Session(db.engine) as session:
        assert session.execute(select(Board.name, Board.known_optimum)).all() == [("Rushhour6x6_99", 15)]
    rows = report_rows.load_rows(db, find_sweep(db, "from-file"))
    assert rows["known_optimum"].tolist() == [15] and rows["gap_moves"].tolist() == [0]
    shown = ok(orchestrate("boards", "show", copy, "--db", db_url)).stdout
    assert "known optimum: 15 moves\n" in shown


def test_a_set_needs_the_database():
    with pytest.raises(PuzzleError, match="set:mix: a board set is read from the results database"):
        load_boards(["set:mix"])


# --------------------------------------------------------------------------- shipped sets


def test_shipped_sets_are_listed_from_their_files_and_imported_once_when_swept(db_url):
    listed = ok(orchestrate("boards", "list", "--db", db_url)).stdout
    for name, boards, optima in (("eight-puzzle-seed", 6, 5), ("korf100", 100, 100), ("korf24", 50, 50), ("rushhour-course", 7, 7)):
        assert f"{name} {boards} {optima} imported on first use (shipped)" in " ".join(listed.split())
    assert counts(db_url)["boards"] == 0

    db = connect(db_url)
    course = optima_by_name(db_url, "rushhour-course")
    assert course == {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33, "Rushhour9x9_4": 27,
                      "Rushhour9x9_5": 22, "Rushhour9x9_6": 18, "Rushhour12x12_7": 25}
    with open(NPUZZLE / "korf100.csv") as file:
        published = [int(row["optimal"]) for row in csv.DictReader(line for line in file if not line.startswith("#"))]
    korf = members(db, "korf100")
    assert [board.known_optimum for board in korf] == published and len(korf) == 100
    assert sum(published) / 100 == 53.05
    korf24 = members(db, "korf24")
    assert [board.known_optimum for board in korf24][:5] == [95, 96, 97, 98, 100] and len(korf24) == 50
    assert sum(board.known_optimum for board in korf24) / 50 == 100.78
    eight = members(db, "eight-puzzle-seed")
    assert [("".join(map(str, json.loads(b.canonical_text)["tiles"])), b.known_optimum) for b in eight] == [
        ("123456078", 2), ("123460758", 3), ("412053786", 5), ("412763058", 8), ("412763580", 10), ("134805726", None),
    ]
    for name in ("korf100", "korf24", "rushhour-course", "eight-puzzle-seed"):
        ok(orchestrate("boards", "list", "--set", name, "--db", db_url))
        ok(orchestrate("sweep", "--algo", "bfs", "--boards", f"set:{name}", "--dry-run", "--db", db_url))
    assert counts(db_url)["boards"] == 0  # listing, showing and a dry run write nothing
    ok(orchestrate("sweep", "--algo", "bfs", "--boards", "set:eight-puzzle-seed", "--name", "eight", "--db", db_url))
    ok(orchestrate("sweep", "--algo", "bfs", "--boards", "set:eight-puzzle-seed", "--name", "again", "--db", db_url))
    assert counts(db_url)["board_set_members"] == 6  # imported once, by the first sweep that used it
    assert optima_by_name(db_url, "eight-puzzle-seed")["eight-puzzle-seed-5"] == 10


def test_show_prints_the_picture_the_size_and_the_known_optimum(db_url):
    rush = ok(orchestrate("boards", "show", "Rushhour6x6_1", "--db", db_url)).stdout
    assert "domain:        Rush Hour, 6x6\n" in rush and "vehicles:      13, red car X\n" in rush
    assert "X H 1,3 2" in rush and "known optimum: 21 moves\n" in rush
    assert "sets:          rushhour-course (shipped)\n" in rush  # described from the set's files: nothing is imported
    assert rush.endswith("\n.AABBB\n.CCEDD\nXXGE.I\nFFGHHI\nK.L.JJ\nK.L...\n")

    korf = ok(orchestrate("boards", "show", "korf100-1", "--db", db_url)).stdout
    assert "domain:        N-puzzle, 4x4\n" in korf and "goal:          blank-first\n" in korf
    assert "tiles:         14 13 15 7/11 12 9 5/6 0 2 1/4 8 10 3\n" in korf and "known optimum: 57 moves\n" in korf
    assert korf.endswith("\n14 13 15  7\n11 12  9  5\n 6  0  2  1\n 4  8 10  3\n")
    board_id = korf.split("id:")[1].split()[0]
    assert ok(orchestrate("boards", "show", board_id[:8], "--db", db_url)).stdout == korf
    assert ok(orchestrate("boards", "show", f"{NPUZZLE / 'korf100.csv'}#1", "--db", db_url)).stdout == korf

    loose = ok(orchestrate("boards", "show", "123456780", "--db", db_url)).stdout  # a board not in the database
    assert "known optimum: unknown\n" in loose and "sets:          not in the database\n" in loose


# --------------------------------------------------------------------------- known optima


def test_the_optimal_search_fits_the_board(boards_dir):
    course, eight, korf = (load_boards([source])[0] for source in (
        str(boards_dir / "Rushhour9x9_4.csv"), "412763580", f"{NPUZZLE / 'korf100.csv'}#1"))
    wide = load_boards(["1 2 3 4/5 6 7 8/9 10 0 11"])[0]  # 4x3
    assert [optimal_search(board) for board in (course, eight, korf, wide)] == [
        ("bfs", None), ("bfs", None), ("idastar", "pdb-max"), ("idastar", "pdb"),
    ]
    plan = plan_optima([course, korf, wide], {"time_limit": None})
    assert plan.name == "optimum" and [job.params for job in plan.jobs] == [
        {"exhaustive": False}, {"heuristic": "pdb-max", "pdb": "6-6-3"}, {"heuristic": "pdb", "pdb": "6-5"},
    ]
    assert plan_optima([course], {"time_limit": 60}).name.startswith("optimum-")


def test_optimum_stores_what_optimal_searches_prove_and_reports_show_the_gaps(db_url, boards_dir):
    sources = [boards_dir / f"{name}.csv" for name in SIX] + [*EIGHT, UNSOLVABLE, FIFTEEN]
    ok(orchestrate("boards", "import", *sources, "--set", "small", "--db", db_url))
    found = ok(orchestrate("boards", "optimum", "--set", "small", "--workers", 2, "--db", db_url)).stdout
    assert found.startswith("sweep optimum: 2 jobs, 2 new\n")  # the shipped boards came with their optima
    assert found.endswith("1 of 2 boards now have a known optimum; the others: unsolvable 1 (orchestrate jobs optimum)\n")
    proven = {**SIX, **EIGHT, UNSOLVABLE: None, FIFTEEN: 2}
    assert optima_by_name(db_url, "small") == proven
    db = connect(db_url)
    with Session(db.engine) as session:
        searches = session.execute(select(Job.algorithm, Job.params).join(Sweep).where(Sweep.name == "optimum")).all()
    assert sorted({(algorithm, json.dumps(params)) for algorithm, params in searches}) == [
        ("bfs", '{"exhaustive": false}'), ("idastar", '{"heuristic": "pdb-max", "pdb": "6-6-3"}')]

    again = ok(orchestrate("boards", "optimum", "--set", "small", "--workers", 2, "--db", db_url)).stdout
    assert again.startswith("sweep optimum: 1 job, 0 new\n")  # only the unsolvable board lacks one; nothing reruns

    ok(orchestrate("sweep", "--algo", "beam,bfs", "--k", "1,5,20", "--boards", "set:small", "--name", "beam-small",
                   "--workers", 2, "--db", db_url))
    rows = report_rows.load_rows(db, find_sweep(db, "beam-small"))
    solved = rows[rows["outcome"] == "solved"]
    solvable = {name: optimum for name, optimum in proven.items() if optimum is not None}
    bfs = solved[solved["algorithm"] == "bfs"]
    assert sorted(bfs["board"]) == sorted(solvable) and (bfs["gap_moves"] == 0).all()
    assert (solved["algorithm"] == "beam").sum() >= 10
    assert (solved["gap_moves"] >= 0).all() and (solved["gap"] >= 0).all()
    assert dict(zip(solved["board"], solved["known_optimum"])) == solvable
    summary = ok(orchestrate("report", "beam-small", "--by", "algo,k", "--columns", "jobs,gap_moves_mean", "--db", db_url))
    assert "gap moves" in summary.stdout and "+0.0" in summary.stdout


# --------------------------------------------------------------------------- bad input


@pytest.fixture
def bad_files(tmp_path) -> dict[str, Path]:
    """A malformed Rush Hour board, a board list with a bad optimum, and one contradicting the 8-puzzle document."""
    files = {
        "board": tmp_path / "Rushhour6x6_9.csv",
        "optimal": tmp_path / "bad-optimal.csv",
        "conflict": tmp_path / "conflict.csv",
    }
    files["board"].write_text("car,orientation,col,row,length\nX,H,1,3,2\nA,Q,1,1,2\n")
    files["optimal"].write_text("id,optimal,tiles\n1,many,412763058\n")
    files["conflict"].write_text("id,optimal,tiles\n1,9,412763058\n")
    return files


BAD = [
    (("boards", "list", "--set", "nope"), "no board set named 'nope' (sets: eight-puzzle-seed, korf100, korf24, mine,"),
    (("boards", "optimum", "--set", "nope"), "no board set named 'nope'"),
    (("sweep", "--algo", "bfs", "--boards", "set:nope"), "no board set named 'nope'"),
    (("boards", "import", "set:nope", "--set", "mine"), "no board set named 'nope'"),
    (("boards", "show", "nope"), "'nope' is neither the name or id of a stored board nor a board"),
    (("boards", "import", "{board}", "412763058", "--set", "mine"), "Rushhour6x6_9.csv:3:"),
    (("boards", "import", "{optimal}", "--set", "mine"), "bad-optimal.csv:2: optimal must be a whole number"),
    (("boards", "import", "{conflict}", "--set", "mine"), "the optimum given is 9, the database holds 8"),
    (("boards", "import", "412763058", "--set", "korf100"), "korf100 is a set shipped with slidelab"),
    (("boards", "import", "412763058", "--set", "my set"), "set name 'my set': use letters"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(args[:3]) for args, _ in BAD])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(db_url, bad_files, args, message):
    ok(orchestrate("boards", "import", "set:eight-puzzle-seed", "--set", "mine", "--db", db_url))
    before = snapshot(db_url)
    result = orchestrate(*(arg.format(**bad_files) for arg in args), "--db", db_url)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert snapshot(db_url) == before
