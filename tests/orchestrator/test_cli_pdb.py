"""`orchestrate pdb build/list` and `--pdb` in `solve` and local sweeps (job processes load the databases built here)."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from puzzles.npuzzle import pdb, pdb_folder
from puzzles.npuzzle.boardlist import load_npuzzle, read_board_list
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.solver import solve
from tests.orchestrator.clirun import assert_usage_error, ok
from tests.orchestrator.clirun import orchestrate as run
from tests.tables import Board, Job, Result
from workers.settings import configure
from workers.store.database import engine_for

KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"
EIGHT = {"412763580": 10, "412053786": 5}  # the 8-puzzle document's boards and their optima
FOUR_FOUR = ((1, 2, 3, 4), (5, 6, 7, 8))
LINE = re.compile(r"^(?P<path>\S+\.pdb): (?P<entries>[\d,]+) entries, at most (?P<most>\d+) moves, (?P<mib>[\d.]+) MiB, ready in \d+\.\d s$")


@pytest.fixture(autouse=True)
def local_settings(monkeypatch, pattern_database_dir):
    """No broker or database from the environment; settings read afresh; the session's pdb directory after each test."""
    for name in ("SLIDELAB_DATABASE_URL", "SLIDELAB_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    configure()
    yield
    pdb_folder.use_directory(pattern_database_dir)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    """An empty cache directory of this test's own (SLIDELAB_CACHE_DIR); its `pdb` folder."""
    monkeypatch.setenv("SLIDELAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pdb"


def built_lines(result) -> list[re.Match]:
    lines = result.stdout.strip().splitlines()
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    return matches


def test_the_cli_keeps_databases_in_the_cache_directory_of_the_settings(pattern_database_dir):
    ok(run("pdb", "list"))
    assert pdb.directory() == pattern_database_dir


def test_pdb_build_writes_a_file_per_group_in_the_cache_dir_and_prints_it(fresh_cache, builds):
    result = ok(run("pdb", "build", "3x3", "--pdb", "4-4"))
    lines = built_lines(result)
    paths = [fresh_cache / f"3x3-blank-last-{'.'.join(map(str, group))}.pdb" for group in FOUR_FOUR]
    assert [Path(line["path"]) for line in lines] == paths and all(path.exists() for path in paths)
    assert sorted(p.name for p in fresh_cache.iterdir()) == sorted(p.name for p in paths)
    assert builds == list(FOUR_FOUR)
    for line, group, path in zip(lines, FOUR_FOUR, paths):
        values = pdb.read(path, 3, 3, "blank-last", group)
        assert np.array_equal(values, pdb.build(3, 3, "blank-last", group))
        assert (line["entries"], int(line["most"]), line["mib"]) == ("3,024", int(values.max()), "0.0")


def test_pdb_build_again_verifies_the_files_and_force_builds_them_anew(fresh_cache, builds):
    first = ok(run("pdb", "build", "3x3", "--pdb", "4-4", "--goal", "blank-first"))
    files = sorted(fresh_cache.glob("*.pdb"))
    assert [p.name for p in files] == ["3x3-blank-first-1.2.3.4.pdb", "3x3-blank-first-5.6.7.8.pdb"]
    stamps = [(p.stat().st_ino, p.stat().st_mtime_ns) for p in files]
    assert len(builds) == 2
    again = ok(run("pdb", "build", "3x3", "--pdb", "4-4", "--goal", "blank-first"))
    assert len(builds) == 2  # read and verified, nothing built
    assert [(p.stat().st_ino, p.stat().st_mtime_ns) for p in files] == stamps
    shape = [(m["path"], m["entries"], m["most"], m["mib"]) for m in built_lines(first)]
    assert [(m["path"], m["entries"], m["most"], m["mib"]) for m in built_lines(again)] == shape
    forced = ok(run("pdb", "build", "3x3", "--pdb", "4-4", "--goal", "blank-first", "--force"))
    assert builds[2:] == list(FOUR_FOUR)
    assert all(p.stat().st_ino != inode for p, (inode, _) in zip(files, stamps))
    assert [(m["path"], m["entries"], m["most"], m["mib"]) for m in built_lines(forced)] == shape


def test_pdb_build_verifies_a_damaged_file_by_building_it_again(fresh_cache, builds):
    ok(run("pdb", "build", "2x3"))  # the default partition of 2x3: one group of the five tiles
    (path,) = fresh_cache.glob("*.pdb")
    assert path.name == "2x3-blank-last-1.2.3.4.5.pdb"
    good = path.read_bytes()
    path.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    (line,) = built_lines(ok(run("pdb", "build", "2x3")))
    assert builds == [(1, 2, 3, 4, 5)] * 2 and path.read_bytes() == good
    assert (line["entries"], line["most"]) == ("720", "21")  # 6! placements; the 2x3 puzzle's hardest board needs 21


@pytest.mark.parametrize(
    "args, message",
    [
        (["3by3"], "size '3by3' is not WxH (e.g. 3x3)"),
        (["x3"], "size 'x3' is not WxH"),
        (["3x3", "--pdb", "4-3"], "pdb '4-3': group sizes must be positive and add up to 8, the tiles of 3x3"),
        (["3x3", "--pdb", "1 2 3/4 5 6 7"], "the groups must hold each tile 1..8 exactly once"),
        (["3x3", "--pdb", "a/b"], "write group sizes (6-6-3) or groups of tiles separated by /"),
        (["4x4", "--pdb", "9-6"], "a group of 9 tiles on 4x4 needs 4,151,347,200 entries"),
        (["3x3", "--goal", "nowhere"], "unknown goal 'nowhere' (choose from blank-last, blank-first)"),
    ],
)
def test_pdb_build_refuses_bad_input_with_one_line_and_exit_2(fresh_cache, builds, args, message):
    assert_usage_error(run("pdb", "build", *args), message)
    assert builds == [] and not fresh_cache.exists()


def test_pdb_list_lists_the_database_files(fresh_cache):
    empty = ok(run("pdb", "list"))
    assert empty.stdout.strip() == (
        f"no pattern databases in {fresh_cache} (build one with: orchestrate pdb build 4x4)"
    )
    ok(run("pdb", "build", "3x3", "--pdb", "4-4"))
    ok(run("pdb", "build", "2x3"))
    listed = ok(run("pdb", "list")).stdout.strip().splitlines()
    assert listed == [
        "2x3-blank-last-1.2.3.4.5.pdb  0.0 MiB",
        "3x3-blank-last-1.2.3.4.pdb  0.0 MiB",
        "3x3-blank-last-5.6.7.8.pdb  0.0 MiB",
    ]


def test_pdb_commands_have_help_with_an_example():
    for command in (["pdb"], ["pdb", "build"], ["pdb", "list"]):
        result = ok(run(*command, "--help"))
        assert "Example: orchestrate pdb" in result.stdout


@pytest.mark.parametrize("heuristic", ["pdb", "pdb-max"])
@pytest.mark.parametrize("board, length", EIGHT.items())
def test_solve_with_pattern_databases_names_them_and_finds_the_optimum(board, length, heuristic):
    data = json.loads(ok(run("solve", board, "--algo", "idastar", "--heuristic", heuristic, "--pdb", "4-4", "--json")).stdout)
    assert data["params"] == {"heuristic": heuristic, "pdb": "4-4"}
    assert (data["outcome"], data["moves"], data["extra"]["bound"], len(data["solution"])) == ("solved", length, length, length)
    default = json.loads(ok(run("solve", board, "--algo", "astar", "--heuristic", heuristic, "--json")).stdout)
    assert default["params"] == {"heuristic": heuristic, "pdb": "6-2"} and default["moves"] == length


def test_solve_refuses_pdb_with_another_heuristic_and_pdb_max_on_a_board_that_is_not_square():
    assert_usage_error(
        run("solve", "412763580", "--algo", "idastar", "--heuristic", "manhattan", "--pdb", "4-4"),
        "--pdb '4-4' is for the pdb and pdb-max heuristics, not manhattan",
    )
    assert_usage_error(
        run("solve", "1 2 3 4/5 6 0 7", "--algo", "idastar", "--heuristic", "pdb-max"),
        "pdb-max mirrors the board about its diagonal: it needs a square board, not 4x2",
    )
    assert_usage_error(
        run("solve", "412763580", "--algo", "idastar", "--heuristic", "pdb", "--pdb", "5-4"),
        "pdb '5-4': group sizes must be positive and add up to 8",
    )
    assert_usage_error(run("solve", "412763580", "--algo", "bfs", "--pdb", "4-4"), "bfs does not take pdb")


def stored(url: str) -> list[tuple[str, str, dict, str, int | None]]:
    """(board name, algorithm, params, status, moves) of every job in the database, in job order."""
    with Session(engine_for(url)) as session:
        rows = session.execute(
            select(Board.name, Job.algorithm, Job.params, Result.outcome, Result.moves)
            .join(Board, Job.board_id == Board.id)
            .outerjoin(Result, Result.job_id == Job.id)
            .order_by(Job.id)
        ).all()
    return [(name, algorithm, params, status, moves) for name, algorithm, params, status, moves in rows]


def test_a_sweep_gives_pdb_only_to_the_pdb_heuristic_and_stores_the_optima(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    swept = ok(run("sweep", "--algo", "idastar", "--heuristic", "pdb,manhattan", "--pdb", "4-4", "--boards", *EIGHT,
                   "--name", "eight-pdb", "--workers", 1, "--db", url))
    assert "sweep eight-pdb: 4 jobs, 4 new" in swept.stdout
    rows = stored(url)
    assert sorted((name, json.dumps(params, sort_keys=True)) for name, _, params, _, _ in rows) == sorted(
        (name, json.dumps(params, sort_keys=True))
        for name in EIGHT
        for params in ({"heuristic": "pdb", "pdb": "4-4"}, {"heuristic": "manhattan"})
    )
    bfs = {board: solve(NPuzzleProblem(load_npuzzle(board)), "bfs").moves for board in EIGHT}
    assert bfs == EIGHT
    assert {(name, status, moves) for name, _, _, status, moves in rows} == {(b, "solved", m) for b, m in bfs.items()}


def test_a_sweep_with_pdb_but_no_pdb_heuristic_is_refused(tmp_path):
    result = run("sweep", "--algo", "idastar", "--heuristic", "manhattan", "--pdb", "6-6-3", "--boards", f"{KORF100}#12",
                 "--goal", "blank-first", "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert_usage_error(result, "--pdb is for the heuristics pdb, pdb-max: give one with --heuristic")
    assert not (tmp_path / "x.db").exists()


def test_a_sweep_with_pdb_max_on_a_board_that_is_not_square_is_refused_before_it_runs(tmp_path):
    result = run("sweep", "--algo", "idastar", "--heuristic", "pdb-max", "--boards", "1 2 3 4/5 6 0 7",
                 "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert_usage_error(result, "it needs a square board, not 4x2")
    assert not (tmp_path / "x.db").exists()


def test_sweep_jobs_read_the_databases_in_the_cache_dir_of_slidelab_cache_dir(fresh_cache, tmp_path):
    # Verified files of all zeros in this test's cache dir: a job that loads them searches as with h = 0,
    # which expands far more than the true databases do, and still finds the optimum.
    for group in FOUR_FOUR:
        pdb.save(fresh_cache / f"3x3-blank-last-{'.'.join(map(str, group))}.pdb", 3, 3, "blank-last", group,
                 np.zeros(pdb.entries(9, 4), dtype=np.uint8))
    problem = NPuzzleProblem(load_npuzzle("412763580"))
    true_expanded = solve(problem, "idastar", {"heuristic": "pdb", "pdb": "4-4"}).expanded
    pdb_folder.use_directory(fresh_cache)
    pdb.forget()
    try:
        zero_expanded = solve(NPuzzleProblem(load_npuzzle("412763580")), "idastar", {"heuristic": "pdb", "pdb": "4-4"}).expanded
    finally:
        pdb.forget()
    assert zero_expanded > true_expanded
    url = f"sqlite:///{tmp_path / 'results.db'}"
    ok(run("sweep", "--algo", "idastar", "--heuristic", "pdb", "--pdb", "4-4", "--boards", "412763580",
           "--name", "zeros", "--workers", 1, "--db", url))
    with Session(engine_for(url)) as session:
        assert session.execute(select(Result.moves, Result.expanded)).one() == (10, zero_expanded)


def test_a_korf_sweep_job_loads_the_6_6_3_databases_built_beforehand_and_finds_45_moves(tmp_path, pattern_database_dir):
    groups = pdb.parse_partition("6-6-3", 4, 4)
    for group in groups:
        pdb.table(4, 4, "blank-first", group)  # built here (or already by another test): the job only loads them
    files = [pdb.path_for(4, 4, "blank-first", group) for group in groups]
    assert all(path.parent == pattern_database_dir for path in files)
    stamps = [(path.stat().st_ino, path.stat().st_mtime_ns) for path in files]
    url = f"sqlite:///{tmp_path / 'korf.db'}"
    ok(run("sweep", "--algo", "idastar", "--heuristic", "pdb", "--pdb", "6-6-3", "--goal", "blank-first",
           "--boards", f"{KORF100}#12", "--name", "korf-12", "--workers", 1, "--db", url))
    assert stored(url) == [("korf100-12", "idastar", {"heuristic": "pdb", "pdb": "6-6-3"}, "solved", 45)]
    assert [(path.stat().st_ino, path.stat().st_mtime_ns) for path in files] == stamps


def test_split_runs_a_sweep_of_subtree_jobs_per_bound_here_and_counts_as_one_core(tmp_path, pattern_database_dir):
    url = f"sqlite:///{tmp_path / 'split.db'}"
    done = ok(run("split", f"{KORF100}#12", "--depth", 3, "--heuristic", "pdb-max", "--pdb", "6-6-3", "--workers", 2,
                  "--name", "s12", "--split-above", 0, "--db", url))
    one = solve(NPuzzleProblem(read_board_list(str(KORF100))[11].board), "idastar", {"heuristic": "pdb-max", "pdb": "6-6-3"})
    assert f"expanded {one.expanded:,}, generated {one.generated:,} (as one core)" in done.stdout
    assert "korf100-12: solved in 45 moves with pdb-max, split at depth 3 over" in done.stdout
    rows = stored(url)
    assert {(algorithm, params["split_depth"]) for _, algorithm, params, _, _ in rows} == {("idastar-subtree", 3)}
    first = min(params["bound"] for _, _, params, _, _ in rows)
    lengths = {(params["bound"] == first, len(params["prefix"])) for _, _, params, _, _ in rows}
    assert {length for is_first, length in lengths if is_first} == {3}  # no sizes to go by yet
    assert max(length for _, length in lengths) > 3 and "of depth 3 split further) in sweep" in done.stdout
    assert [status for *_, status, _ in rows].count("solved") == 1 and "bound 45: " in done.stdout
    with Session(engine_for(url)) as session:
        ran = session.execute(select(Result.provenance, Job.params).join(Job, Result.job_id == Job.id)
                              .where(Result.started_at.is_not(None))).all()  # not the jobs stopped (stamped here)
    pids = {details["pid"] for details, _ in ran}
    bounds = {params["bound"] for _, params in ran}
    assert len(pids) <= 2 and len(bounds) > 1  # the two job processes ran every bound: started once, kept across bounds


@pytest.mark.parametrize("split_above", [None, 1_000])
def test_split_searches_the_small_bounds_here_and_still_counts_as_one_core(tmp_path, pattern_database_dir, split_above):
    """Korf's #12 expands 4,542 nodes in all: by default every bound is searched here; above 1,000 the last ones split."""
    url = f"sqlite:///{tmp_path / 'split.db'}"
    above = () if split_above is None else ("--split-above", split_above)
    done = ok(run("split", f"{KORF100}#12", "--depth", 3, "--heuristic", "pdb-max", "--pdb", "6-6-3", "--workers", 2,
                  "--name", "s12", *above, "--db", url))
    one = solve(NPuzzleProblem(read_board_list(str(KORF100))[11].board), "idastar", {"heuristic": "pdb-max", "pdb": "6-6-3"})
    assert f"expanded {one.expanded:,}, generated {one.generated:,} (as one core)" in done.stdout
    bounds = [line for line in done.stdout.splitlines() if line.startswith("bound ")]
    here = [line for line in bounds if "searched here" in line]
    assert bounds[0] in here and (here == bounds) == (split_above is None)
    assert {params["bound"] for _, _, params, _, _ in stored(url)} == (
        set() if split_above is None else {int(line.split()[1].rstrip(":")) for line in bounds if line not in here})


@pytest.mark.parametrize("args, message", [
    (("1 2 3/4 5 6/7 8 0", "--depth", "0"), "greater than or equal to 1"),
    (("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", "--heuristic", "blockers"), "N-puzzle boards only"),
    (("412763580", "--heuristic", "nope"), "unknown heuristic 'nope'"),
])
def test_split_refuses_bad_input_with_one_line_and_exit_2(tmp_path, args, message):
    assert_usage_error(run("split", *args, "--db", f"sqlite:///{tmp_path / 'x.db'}"), message)
