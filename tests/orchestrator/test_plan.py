"""Planning sweeps: board sources, grids, seeds, job keys, and storing plans on SQLite and PostgreSQL."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from orchestrator.sweeps.grid import SweepGrid, parse_values, stored_grid
from orchestrator.sweeps.job_limits import parse_size
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.plan import grid_plan, plan_sweep, store_plan
from orchestrator.sweeps.sources import board_sources, load_boards
from orchestrator.sweeps.spec_file import export_spec, plan_from_spec, read_spec
from puzzles.algorithms import SEEDS
from puzzles.domains import load_instance, problem_for
from puzzles.errors import PuzzleError
from tests.tables import Board, Job, Result, Sweep
from workers.store import connect
from workers.store.sweeps import unfinished_jobs

FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
COURSE = [f"Rushhour{name}.csv" for name in ("12x12_7", "6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6")]
SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]
KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"


@pytest.fixture
def six_boards(boards_dir):
    return [load_instance(str(boards_dir / name)) for name in SIX]


# --------------------------------------------------------------------------- board sources


def test_a_directory_gives_its_files_sorted(boards_dir):
    assert [p.rsplit("/", 1)[1] for p in board_sources([str(boards_dir)])] == sorted(COURSE)


def test_a_glob_gives_the_matching_files_sorted(boards_dir):
    found = board_sources([str(boards_dir / "Rushhour6x6_*.csv")])
    assert found == [str(boards_dir / name) for name in SIX]


def test_a_literal_board_is_kept_as_it_is(boards_dir):
    file = str(boards_dir / "Rushhour6x6_1.csv")
    assert board_sources([FOGLEMAN, file]) == [FOGLEMAN, file]
    (board,) = load_boards([FOGLEMAN])
    assert board.size == 6 and board.id == load_instance(FOGLEMAN).id


def test_a_glob_matching_nothing_is_an_error(tmp_path):
    with pytest.raises(PuzzleError, match="no file matches"):
        board_sources([str(tmp_path / "*.csv")])


def test_an_empty_directory_is_an_error(tmp_path):
    with pytest.raises(PuzzleError, match="holds no board files"):
        board_sources([str(tmp_path)])


def test_no_sources_is_an_error():
    with pytest.raises(PuzzleError, match="no boards given"):
        load_boards([])


def test_the_same_board_given_twice_is_loaded_once(boards_dir, tmp_path):
    file = boards_dir / "Rushhour6x6_1.csv"
    shutil.copy(file, tmp_path / "Rushhour6x6_99.csv")  # the same board under another name
    boards = load_boards([str(file), str(boards_dir / "Rushhour6x6_*.csv"), str(tmp_path / "Rushhour6x6_99.csv")])
    assert [b.name for b in boards] == ["Rushhour6x6_1", "Rushhour6x6_2", "Rushhour6x6_3"]
    assert len({b.id for b in boards}) == 3


def test_a_malformed_board_file_aborts_with_one_line_naming_it(boards_dir, tmp_path):
    for name in SIX:
        shutil.copy(boards_dir / name, tmp_path / name)
    bad = tmp_path / "Rushhour6x6_9.csv"
    bad.write_text("car,orientation,col,row,length\nX,H,1,3,2\nA,Q,4,1,2\n")
    with pytest.raises(PuzzleError) as caught:
        load_boards([str(tmp_path)])
    message = str(caught.value)
    assert str(bad) in message and "\n" not in message


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(PuzzleError, match="no such file"):
        load_boards([str(tmp_path / "Rushhour6x6_1.csv")])


def test_a_board_list_gives_one_board_per_row_and_a_selector_one_row():
    folder = KORF100.parent
    assert board_sources([str(folder)]) == [str(folder / name) for name in ("eight-puzzle-seed.csv", "korf100.csv", "korf24.csv")]
    boards = load_boards([str(KORF100)])
    assert [b.name for b in boards] == [f"korf100-{n}" for n in range(1, 101)]
    assert {(b.domain, b.size) for b in boards} == {("npuzzle", 4)}
    assert all('"goal":"blank-first"' in b.text for b in boards)
    (picked,) = load_boards([f"{KORF100}#17"])
    assert picked == boards[16] and board_sources([f"{KORF100}#17"]) == [f"{KORF100}#17"]


def test_goal_applies_to_n_puzzle_boards_without_their_own_and_changes_their_job_keys(boards_dir):
    last = load_boards(["412763580", str(boards_dir / "Rushhour6x6_1.csv")])
    first = load_boards(["412763580", str(boards_dir / "Rushhour6x6_1.csv")], goal="blank-first")
    assert first[1] == last[1]  # Rush Hour ignores it
    assert first[0].name == last[0].name == "412763580" and first[0].id != last[0].id
    assert problem_for(first[0].domain, first[0].text).goal == "blank-first"
    assert problem_for(last[0].domain, last[0].text).goal == "blank-last"
    keys = [{job.job_key for job in plan_sweep("goals", boards[:1], SweepGrid(["bfs"])).jobs} for boards in (first, last)]
    assert len(keys[0] | keys[1]) == 2
    korf = load_boards([f"{KORF100}#1"], goal="blank-last")  # a row's own goal wins
    assert problem_for("npuzzle", korf[0].text).goal == "blank-first"
    with pytest.raises(PuzzleError, match="unknown goal 'korf'"):
        load_boards([str(boards_dir / "Rushhour6x6_1.csv")], goal="korf")


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    "text, size",
    [("512M", 512 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("1000", 1000), ("64k", 64 << 10), ("2 gb", 2 << 30)],
)
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "2X", "-1G", "1.5.2G", "G"])
def test_parse_size_refuses_what_is_not_a_size(text):
    with pytest.raises(PuzzleError, match="--memory-limit: .* is not a size"):
        parse_size(text)


# --------------------------------------------------------------------------- grids


def test_beam_over_50_widths_and_two_heuristics_on_the_seven_course_boards_is_700_jobs(boards_dir):
    boards = load_boards([str(boards_dir)])
    grid = SweepGrid(["beam"], {"k": parse_values("1..50", "--k"), "heuristic": ["blockers", "blockers-lb"]})
    plan = plan_sweep("beam-k", boards, grid)
    assert len(boards) == 7 and len(plan.jobs) == 700
    assert len({job.job_key for job in plan.jobs}) == 700
    assert sorted((job.params["heuristic"], job.params["k"]) for job in plan.jobs if job.board_id == boards[0].id) == [
        (h, k) for h in ("blockers", "blockers-lb") for k in range(1, 51)
    ]
    assert all(job.seed is None and job.repeat == 0 for job in plan.jobs)


def test_an_algorithm_gets_only_the_parameters_it_takes(six_boards):
    plan = plan_sweep("mixed", six_boards, SweepGrid(["beam", "bfs"], {"k": [1, 2, 3]}))
    for board in six_boards:
        jobs = [job for job in plan.jobs if job.board_id == board.id]
        assert [job.params for job in jobs if job.algorithm == "beam"] == [
            {"heuristic": "blockers-lb", "k": k} for k in (1, 2, 3)
        ]
        assert [job.params for job in jobs if job.algorithm == "bfs"] == [{"exhaustive": False}]
    assert len(plan.jobs) == 4 * 3


def test_seeds_give_a_randomized_algorithm_one_job_per_seed(six_boards):
    plan = plan_sweep("spr-seeds", six_boards[:1], SweepGrid(["spr"], {}, seeds=[1, 2, 3, 4, 5]))
    assert [(job.seed, job.repeat) for job in plan.jobs] == [(s, 0) for s in (1, 2, 3, 4, 5)]


def test_seeds_give_a_deterministic_algorithm_repeats_without_a_seed(six_boards):
    plan = plan_sweep("bfs-seeds", six_boards[:1], SweepGrid(["bfs"], {}, seeds=[1, 2, 3, 4, 5]))
    assert [(job.seed, job.repeat) for job in plan.jobs] == [(None, r) for r in range(5)]
    assert len({job.job_key for job in plan.jobs}) == 5


def test_a_randomized_algorithm_without_seeds_gets_derived_seeds_the_same_every_time(six_boards):
    first = plan_sweep("spr-repeat", six_boards, SweepGrid(["spr", "bfs"], {}, repeat=3))
    again = plan_sweep("spr-repeat", six_boards, SweepGrid(["spr", "bfs"], {}, repeat=3))
    spr = [job.seed for job in first.jobs if job.algorithm == "spr"]
    assert len(spr) == 9 and len(set(spr)) == 9 and all(0 <= seed < SEEDS for seed in spr)
    assert [job.seed for job in again.jobs] == [job.seed for job in first.jobs]
    assert all(job.seed is None for job in first.jobs if job.algorithm == "bfs")


def test_job_keys_are_unique_stable_and_include_the_sweep_name(six_boards):
    grid = SweepGrid(["beam", "spr"], {"k": [1, 2], "batches": [1, 2]}, seeds=[7, 8])
    first = plan_sweep("keys", six_boards, grid)
    again = plan_sweep("keys", list(reversed(six_boards)), grid)
    other = plan_sweep("keys-2", six_boards, grid)
    keys = [job.job_key for job in first.jobs]
    assert len(keys) == len(set(keys)) == 3 * (2 * 2 + 2 * 2)
    assert {job.job_key for job in again.jobs} == set(keys)
    assert not set(keys) & {job.job_key for job in other.jobs}


@pytest.mark.parametrize(
    "algorithms, params, options, message",
    [
        (["beam"], {"foo": [1]}, {}, "no algorithm among beam takes foo"),
        (["bfs"], {"k": [3]}, {}, "no algorithm among bfs takes k"),
        (["dijkstra"], {}, {}, "unknown algorithm 'dijkstra'"),
        (["beam"], {"k": [0]}, {}, "k must be at least 1"),
        (["layered"], {"processes": [1000]}, {}, "processes must be at most 256, not 1000"),
        (["beam"], {"k": ["wide"]}, {}, "k must be a whole number"),
        (["spr"], {}, {"seeds": [-1]}, "a seed must be between 0 and"),
        (["spr"], {}, {"seeds": [SEEDS]}, "a seed must be between 0 and"),
        (["spr"], {}, {"seeds": [1], "repeat": 2}, "give --seeds or --repeat, not both"),
        (["spr"], {}, {"repeat": 0}, "--repeat must be at least 1"),
    ],
)
def test_plan_refuses_what_the_solver_would_refuse(six_boards, algorithms, params, options, message):
    with pytest.raises(PuzzleError, match=message.replace("(", r"\(")):
        plan_sweep("bad", six_boards, SweepGrid(algorithms, params, **options))


def test_an_empty_range_is_refused():
    with pytest.raises(PuzzleError, match="the range '5..1' is empty"):
        parse_values("5..1", "--k")


def test_an_unknown_heuristic_is_refused_when_planning(six_boards):
    with pytest.raises(PuzzleError, match="unknown heuristic"):
        plan_sweep("bad-h", six_boards, SweepGrid(["beam"], {"heuristic": ["nope"]}))


# --------------------------------------------------------------------------- storing plans


def _rows(db, model):
    with Session(db.engine) as session:
        return session.scalar(select(func.count()).select_from(model))


def _counts(db) -> dict[str, int]:
    return {model.__tablename__: _rows(db, model) for model in (Board, Sweep, Job, Result)}


def _finish(db, sweep_id: int) -> None:
    """Give every job of the sweep a result, as a worker would."""
    with Session(db.engine) as session, session.begin():
        jobs = session.scalars(select(Job).where(Job.sweep_id == sweep_id)).all()
        for job in jobs:
            session.add(Result(job_id=job.id, outcome="solved", moves=21))
            job.status, job.attempts = "done", 1


def test_storing_a_plan_twice_adds_its_jobs_once(db_url, six_boards):
    db = connect(db_url)
    plan = plan_sweep("twice", six_boards, SweepGrid(["beam", "bfs"], {"k": [1, 2, 3]}), limits={"time_limit": 10.0})
    sweep_id, added = store_plan(db, plan)
    assert added == 12
    assert store_plan(db, plan) == (sweep_id, 0)
    assert _counts(db) == {"boards": 3, "sweeps": 1, "jobs": 12, "results": 0}
    assert len(unfinished_jobs(db, sweep_id)) == 12
    sweep = find_sweep(db, "twice")
    assert sweep.id == sweep_id and sweep.limits == {"time_limit": 10.0}
    assert sweep.definition["boards"] == ["Rushhour6x6_1", "Rushhour6x6_2", "Rushhour6x6_3"]


def test_extending_the_grid_adds_only_the_missing_jobs(db_url, six_boards):
    db = connect(db_url)
    sweep_id, _ = store_plan(db, plan_sweep("grow", six_boards[:2], SweepGrid(["beam"], {"k": [1, 2]})))
    _finish(db, sweep_id)
    wider = plan_sweep("grow", six_boards, SweepGrid(["beam"], {"k": [1, 2, 3]}))
    assert store_plan(db, wider, extend=True) == (sweep_id, 9 - 4)
    assert _counts(db) == {"boards": 3, "sweeps": 1, "jobs": 9, "results": 4}
    assert len(unfinished_jobs(db, sweep_id)) == 5  # the four finished jobs keep their results


def test_another_grid_under_a_stored_name_is_refused_saying_what_differs_and_changes_nothing(db_url, six_boards):
    db = connect(db_url)
    sweep_id, _ = store_plan(db, plan_sweep("beam-k", six_boards[:2], SweepGrid(["beam"], {"k": [1, 2]})))
    before, grid = _counts(db), find_sweep(db, "beam-k").definition
    astar = plan_sweep("beam-k", six_boards[:2], SweepGrid(["astar"]))
    with pytest.raises(PuzzleError, match=r"^sweep 'beam-k' has another grid: --algo astar where it has beam;"
                                          r" give --extend to add these jobs to it, or another --name$"):
        store_plan(db, astar)
    wider = plan_sweep("beam-k", six_boards, SweepGrid(["beam"], {"k": [1, 2, 3]}))
    with pytest.raises(PuzzleError, match=r"boards Rushhour6x6_3 where it has Rushhour6x6_1,Rushhour6x6_2;"
                                          r" --k 3 where it has 1,2;"):
        store_plan(db, wider)
    assert (_counts(db), find_sweep(db, "beam-k").definition) == (before, grid)
    again = plan_sweep("beam-k", six_boards[:2], SweepGrid(["beam"], {"k": [2, 1]}))
    assert store_plan(db, again) == (sweep_id, 0)  # the same grid (or a part of it) is no change
    assert store_plan(db, plan_sweep("beam-k", six_boards[:1], SweepGrid(["beam"], {"k": [2]}))) == (sweep_id, 0)
    assert find_sweep(db, "beam-k").definition["algorithms"] == ["beam"]


def test_two_sweeps_with_the_same_grid_keep_their_own_jobs(db_url, six_boards):
    db = connect(db_url)
    first, _ = store_plan(db, plan_sweep("one", six_boards, SweepGrid(["bfs"])))
    second, added = store_plan(db, plan_sweep("two", six_boards, SweepGrid(["bfs"])))
    assert first != second and added == 3
    assert _counts(db) == {"boards": 3, "sweeps": 2, "jobs": 6, "results": 0}


def test_other_limits_without_rerun_are_refused_and_change_nothing(db_url, six_boards):
    db = connect(db_url)
    sweep_id, _ = store_plan(db, plan_sweep("limits", six_boards[:1], SweepGrid(["bfs"]), limits={"time_limit": 10.0}))
    _finish(db, sweep_id)
    before = _counts(db)
    wider = plan_sweep("limits", six_boards, SweepGrid(["bfs", "beam"]), limits={"time_limit": 20.0})
    with pytest.raises(PuzzleError, match=r"planned with limits time_limit=10.00 s, not time_limit=20.00 s.*--rerun"):
        store_plan(db, wider)
    assert _counts(db) == before
    assert find_sweep(db, "limits").limits == {"time_limit": 10.0}
    assert unfinished_jobs(db, sweep_id) == []


def test_rerun_deletes_the_results_and_makes_the_jobs_pending(db_url, six_boards):
    db = connect(db_url)
    plan = plan_sweep("again", six_boards, SweepGrid(["bfs"]), limits={"time_limit": 10.0})
    sweep_id, _ = store_plan(db, plan)
    _finish(db, sweep_id)
    with Session(db.engine) as session, session.begin():
        session.execute(update(Job).values(worker_host="w1"))
    rerun = plan_sweep("again", six_boards, SweepGrid(["bfs"]), limits={"time_limit": 30.0})
    assert store_plan(db, rerun, rerun=True) == (sweep_id, 0)
    assert _counts(db) == {"boards": 3, "sweeps": 1, "jobs": 3, "results": 0}
    with Session(db.engine) as session:
        jobs = session.scalars(select(Job)).all()
    states = {(job.status, job.attempts, job.worker_host, job.finished_at) for job in jobs}
    assert states == {("pending", 0, None, None)}
    assert find_sweep(db, "again").limits == {"time_limit": 30.0}
    assert len(unfinished_jobs(db, sweep_id)) == 3


def test_find_sweep_names_the_recent_sweeps(db_url, six_boards):
    db = connect(db_url)
    with pytest.raises(PuzzleError, match="no sweep named 'x' \\(there are none yet\\)"):
        find_sweep(db, "x")
    store_plan(db, plan_sweep("first", six_boards, SweepGrid(["bfs"])))
    store_plan(db, plan_sweep("second", six_boards, SweepGrid(["bfs"])))
    with pytest.raises(PuzzleError, match="no sweep named 'x' \\(recent: second, first\\)"):
        find_sweep(db, "x")


# --------------------------------------------------------------------------- one grid, from the command line to a replay


def test_the_grid_is_the_same_from_the_command_line_to_the_plan_the_sweep_row_the_spec_file_and_a_replay(
        db_url, boards_dir, tmp_path):
    grid = SweepGrid.from_options("beam,spr", {"k": "1..3", "batches": "2,4", "batch_size": "5"}, repeat=2)
    assert grid == SweepGrid(["beam", "spr"], {"k": [1, 2, 3], "batches": [2, 4], "batch_size": [5]}, repeat=2)
    db = connect(db_url)
    plan = grid_plan(grid, [str(boards_dir / name) for name in SIX[:2]], "round", {"max_nodes": 1000}, db)
    planned = replace(grid, boards=["Rushhour6x6_1", "Rushhour6x6_2"], seed_namespace="round")
    assert plan.grids == [planned]
    store_plan(db, plan)
    sweep = find_sweep(db, "round")
    assert stored_grid(sweep) == planned
    spec_path = tmp_path / "round.json"
    spec_path.write_text(json.dumps(export_spec(db, sweep)))
    replayed = plan_from_spec(read_spec(spec_path))
    assert replayed.grids == [planned] and replayed.jobs == plan.jobs
    renamed = plan_from_spec(read_spec(spec_path), "round-again")
    assert renamed.grids == [planned] and [job.seed for job in renamed.jobs] == [job.seed for job in plan.jobs]


def test_a_sweep_row_of_before_the_grid_type_loads(db_url, six_boards):
    db = connect(db_url)
    store_plan(db, plan_sweep("old", six_boards[:1], SweepGrid(["bfs"])))
    with Session(db.engine) as session, session.begin():  # as stored before seed namespaces and board names were kept
        session.execute(update(Sweep).values(definition={"algorithms": ["bfs"], "params": {}, "seeds": None, "repeat": 1}))
    assert stored_grid(find_sweep(db, "old")) == SweepGrid(["bfs"], seed_namespace="old")
    with Session(db.engine) as session, session.begin():  # planned before grids were kept at all
        session.execute(update(Sweep).values(definition={}))
    assert stored_grid(find_sweep(db, "old")) is None
    assert store_plan(db, plan_sweep("old", six_boards, SweepGrid(["bfs"])), extend=True)[1] == 2
    assert stored_grid(find_sweep(db, "old")) == SweepGrid(["bfs"], boards=[b.name for b in six_boards],
                                                           seed_namespace="old")
