"""Claiming jobs and storing results on SQLite and PostgreSQL: once per job, patient with the database."""

import json
import threading
import time

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import plan_sweep, store_plan
from orchestrator.sweeps.sources import load_boards
from puzzles.result import Outcome
from tests.conftest import truncate_tables
from tests.stored import store_sweep
from tests.tables import Job, Result, expire_leases
from tests.tables import job_rows as jobs
from tests.tables import result_rows as results
from workers.execute import execute
from workers.runner import JobRunner
from workers.store import connect
from workers.store import database as database_module
from workers.store.database import retrying
from workers.store.jobs import claim, record
from workers.store.migrate import upgrade
from workers.store.records import JobResult

SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]


@pytest.fixture(scope="module")
def runner():
    job_runner = JobRunner()
    yield job_runner
    job_runner.close()


@pytest.fixture
def boards(boards_dir):
    return load_boards([str(boards_dir / name) for name in SIX])


def stored(db, boards, algorithms=("bfs",), params=None, seeds=None, limits=None) -> tuple[int, list[int]]:
    """A sweep of the grid stored in the database: its id and its job ids."""
    return store_sweep(db, "s", boards, SweepGrid(list(algorithms), params or {}, seeds), limits)[1:]


def test_a_plan_stored_again_adds_only_the_jobs_it_lacks_and_keeps_those_stored(db_url, boards):
    db = connect(db_url)
    plan, sweep_id, (first, *_) = store_sweep(db, "s", boards, SweepGrid(["beam"], {"k": [1, 2]}, [7, 8]))
    record(db, [(first, JobResult(outcome="solved", moves=21))])
    again = plan_sweep("s", boards, SweepGrid(["beam"], {"k": [1, 2, 3]}, [7, 8]))
    assert store_plan(db, again, extend=True) == (sweep_id, 6)
    rows = list(jobs(db).values())
    assert len(rows) == 18 and jobs(db)[first].status == "done"
    by_key = {row.job_key: row for row in rows}
    for job in again.jobs:
        row = by_key[job.job_key]
        assert (row.sweep_id, row.board_id, row.algorithm, row.params, row.seed, row.repeat) == (
            sweep_id, job.board_id, job.algorithm, job.params, job.seed, job.repeat)
        assert (row.attempts, row.lost) == (0, 0) and row.created_at is not None
    assert sorted((row.status, row.outcome) for row in rows) == [("done", "solved"), *[("pending", None)] * 17]


def test_a_result_recorded_twice_is_stored_once_and_the_first_wins(db_url, boards):
    db = connect(db_url)
    _, (job_id, *_) = stored(db, boards)
    record(db, [(job_id, JobResult(outcome="solved", moves=21, solution="X+1"))])
    record(db, [(job_id, JobResult(outcome="solved", moves=99, solution="late"))])
    with Session(db.engine) as session:
        assert session.scalar(select(func.count()).select_from(Result)) == 1
    (result,) = results(db).values()
    assert (result.job_id, result.outcome, result.moves, result.solution) == (job_id, "solved", 21, "X+1")
    assert jobs(db)[job_id].status == "done"


def test_record_stores_every_column_and_marks_every_job_done(db_url, boards):
    db = connect(db_url)
    _, (solved, raised, limited) = stored(db, boards)
    record(
        db,
        [
            (solved, JobResult(outcome="solved", moves=21, steps=30, expanded=536, stored=818, extra={"depth": [1, 2]})),
            (raised, JobResult.failure("ValueError: boom (x.py:1)")),
            (limited, JobResult.limit("time limit (killed after 18 s)", elapsed_s=17.5)),
        ],
    )
    rows, job_rows = results(db), jobs(db)
    ok = rows[solved]
    assert (ok.steps, ok.expanded, ok.stored, ok.extra) == (30, 536, 818, {"depth": [1, 2]})
    assert (rows[raised].outcome, rows[raised].error) == (Outcome.ERROR, "ValueError: boom (x.py:1)")
    limit = rows[limited]
    assert (limit.outcome, limit.reason, limit.elapsed_s) == ("limit", "time limit (killed after 18 s)", 17.5)
    assert [job_rows[i].status for i in (solved, raised, limited)] == ["done", "done", "done"]
    assert all(job_rows[i].finished_at is not None for i in (solved, raised, limited))
    record(db, [])  # nothing to store is fine


def test_a_late_duplicate_result_does_not_change_the_job_status(db_url, boards):
    db = connect(db_url)
    _, (job_id, *_) = stored(db, boards)
    record(db, [(job_id, JobResult(outcome="solved", moves=21))])
    record(db, [(job_id, JobResult.failure("the job process died (exit code -9)"))])
    assert results(db)[job_id].outcome == "solved"
    assert jobs(db)[job_id].status == "done"


def test_claim_takes_the_unfinished_jobs_and_counts_attempts(db_url, boards):
    db = connect(db_url)
    limits = {"time_limit": 5.0, "max_nodes": 1000, "memory_limit": 1 << 30}
    _, ids = stored(db, boards, ["spr"], {"batches": [2]}, seeds=[7], limits=limits)
    record(db, [(ids[0], JobResult(outcome="solved", moves=21))])
    specs = claim(db, ids, "w1", 60)
    assert [s.job_id for s in specs] == ids[1:]
    assert {(s.algorithm, s.seed, s.time_limit, s.max_nodes, s.memory_limit) for s in specs} == {
        ("spr", 7, 5.0, 1000, 1 << 30)
    }
    assert specs[0].params == {"batches": 2, "batch_size": 10, "max_steps": 1_000_000}
    assert json.loads(specs[0].board_text)["size"] == 6 and specs[0].domain == "rushhour"
    rows = jobs(db)
    assert (rows[ids[0]].status, rows[ids[0]].attempts) == ("done", 0)
    assert {(rows[i].status, rows[i].attempts, rows[i].worker_host) for i in ids[1:]} == {("running", 1, "w1")}
    assert all(rows[i].started_at is not None for i in ids[1:])
    # delivered again while w1 holds them under a live lease: nobody else takes them
    assert claim(db, ids, "w2", 60) == []
    assert claim(db, ids, "w1", 60) == []  # nor w1 itself: it runs them already
    # once the lease lapsed (w1 lost), another host takes the running jobs over
    expire_leases(db.engine, ids[1:])
    assert [s.job_id for s in claim(db, ids, "w2", 60)] == ids[1:]
    assert {(job.status, job.attempts, job.worker_host) for i, job in jobs(db).items() if i != ids[0]} == {
        ("running", 2, "w2")
    }
    assert claim(db, [ids[0]], "w3", 60) == []


def test_execute_runs_claims_and_stores_a_small_sweep(db_url, boards, runner):
    db = connect(db_url)
    grid = {"k": [50], "heuristic": ["blockers-lb"]}
    _, ids = stored(db, boards, ["bfs", "beam"], grid, limits={"time_limit": 30.0})
    broken = ids[-1]  # beam on 6x6_3, given a heuristic the planner never lets through
    with Session(db.engine) as session, session.begin():
        session.execute(update(Job).where(Job.id == broken).values(params={"heuristic": "nope", "k": 50}))
    outcomes = execute(db, ids, runner, "host-a")
    assert outcomes == ["solved"] * 5 + [Outcome.ERROR]
    rows, job_rows = results(db), jobs(db)
    assert set(rows) == set(ids)
    bfs = [rows[i].moves for i in ids if job_rows[i].algorithm == "bfs"]
    beam = [rows[i].moves for i in ids if job_rows[i].algorithm == "beam" and i != broken]
    assert bfs == [21, 15, 33]
    assert beam[0] >= 21 and beam[1] >= 15
    assert "unknown heuristic 'nope'" in rows[broken].error
    assert [job_rows[i].status for i in ids] == ["done"] * 6
    assert {(job.attempts, job.worker_host) for job in job_rows.values()} == {(1, "host-a")}
    # delivered again: nothing runs, nothing changes
    assert execute(db, ids, runner, "host-b") == []
    assert {job.worker_host for job in jobs(db).values()} == {"host-a"}
    assert {i: r.id for i, r in results(db).items()} == {i: r.id for i, r in rows.items()}


# --------------------------------------------------------------------------- retrying


class Clock:
    """A stand-in for the `time` module: sleeping moves the clock, instantly."""

    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def disconnect() -> OperationalError:
    return OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))


def flaky(failures: list[Exception], value: str = "ok"):
    calls = []

    def operation():
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return value

    return operation, calls


def test_retrying_waits_out_a_disconnect(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(database_module, "time", clock)
    invalidated = DBAPIError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True)
    operation, calls = flaky([disconnect(), disconnect(), invalidated, disconnect()])
    assert retrying(operation, 60) == "ok"
    assert len(calls) == 5
    assert clock.sleeps == [0.2, 0.4, 0.8, 1.6]


def test_retrying_gives_up_after_db_retry_seconds(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(database_module, "time", clock)
    operation, calls = flaky([disconnect()] * 100)
    with pytest.raises(OperationalError):
        retrying(operation, 20)
    assert clock.sleeps == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]  # 16.2 s; one more pause would pass 20 s
    assert len(calls) == 8


def test_retrying_does_not_retry_an_error_that_is_not_a_disconnect(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(database_module, "time", clock)
    operation, calls = flaky([IntegrityError("INSERT", {}, Exception("duplicate key"))])
    with pytest.raises(IntegrityError):
        retrying(operation, 60)
    operation, more = flaky([ValueError("not a database error")])
    with pytest.raises(ValueError):
        retrying(operation, 60)
    assert (len(calls), len(more), clock.sleeps) == (1, 1, [])


def test_retrying_rides_out_a_postgresql_restart(postgres_server, postgres_url, boards):
    upgrade(postgres_url)
    truncate_tables(postgres_url)
    db = connect(postgres_url)
    _, ids = stored(db, boards)
    restart = threading.Timer(1.0, postgres_server.start)
    postgres_server.stop()
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError):
            retrying(lambda: claim(db, ids, "w1", 60), 1.0)
        assert 0.5 <= time.monotonic() - started < 10
        restart.start()
        assert [s.job_id for s in retrying(lambda: claim(db, ids, "w1", 60), 60.0)] == ids
        retrying(lambda: record(db, [(ids[0], JobResult(outcome="solved", moves=21))]), 60.0)
        assert jobs(db)[ids[0]].status == "done"
    finally:
        restart.cancel()
        if restart.is_alive():
            restart.join()
        if not postgres_server.is_running():
            postgres_server.start()
        truncate_tables(postgres_url)
