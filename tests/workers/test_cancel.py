"""Cancelling a sweep (issue 32 §1): waiting jobs never start, running ones are stopped by their holder's heartbeat.

A cancelled job keeps no result (its state is `cancelled`); `resume` runs it
later. The long job here is IDA* with Manhattan on a 24-puzzle of Korf's: it
runs for hours in a few MB, so it is surely running when it is cancelled.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from tests.orchestrator.clirun import local_environment, ok, orchestrate
from tests.polling import wait_for
from tests.stored import store_sweep
from tests.tables import job_rows as rows
from tests.tables import result_rows as results
from tests.workers.cluster import CLI, pid_alive
from workers.execute import execute
from workers.runner import JobRunner
from workers.settings import configure
from workers.store import connect
from workers.store.jobs import claim, give_back, record
from workers.store.migrate import upgrade
from workers.store.records import JobResult
from workers.store.states import JobState
from workers.store.sweeps import Cancelled, cancel, stopping, uncancel

KORF24 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf24.csv"
SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]
EIGHT_PUZZLES = ["412763580", "123456708", "123450786"]
ENDLESS = SweepGrid(["idastar"], {"heuristic": ["manhattan"]})
KERNELS_S = 300.0  # a job process's first job loads (on a cold cache compiles) the kernels


@pytest.fixture
def db(db_url):
    return connect(db_url)


def six(boards_dir):
    return load_boards([str(boards_dir / name) for name in SIX])


def test_cancel_puts_the_unfinished_jobs_in_the_state_cancelled_no_worker_claims_them_and_uncancel_undoes_it(db, boards_dir):
    _, _, ids = store_sweep(db, "s", six(boards_dir), SweepGrid(["bfs"]))
    claim(db, ids[:1], "w1", 60)
    _, other, others = store_sweep(db, "other", six(boards_dir), SweepGrid(["bfs"]))
    sweep_id = rows(db)[ids[0]].sweep_id
    assert cancel(db, sweep_id) == Cancelled(waiting=2, running=ids[:1])
    assert {job.status for i, job in rows(db).items() if i in ids} == {"cancelled"}
    assert {job.status for i, job in rows(db).items() if i in others} == {"pending"}  # other sweeps untouched
    assert claim(db, ids, "w2", 60) == []  # a message still on the broker runs nothing
    assert stopping(db, sweep_id) == 1  # w1 still holds its job until its heartbeat stops it
    assert cancel(db, sweep_id) == Cancelled(waiting=0, running=[])
    assert uncancel(db, sweep_id) == 3
    assert {(job.status, job.worker_host) for i, job in rows(db).items() if i in ids} == {("pending", None)}
    assert not results(db)


def test_cancel_wait_counts_the_jobs_that_end_cancelled_not_a_running_one_that_finished_first(db, boards_dir,
                                                                                                 monkeypatch):
    """Issue 46 §4: `cancel` said 65 cancelled while 63 ended so, two running jobs having finished first."""
    _, sweep_id, ids = store_sweep(db, "s", six(boards_dir), SweepGrid(["bfs", "iddfs"]))
    claim(db, ids[:2], "w1", 60)

    def worker_stops_one_after_the_other_finished() -> None:
        wait_for(lambda: rows(db)[ids[0]].status == "cancelled", 30, "the cancel")
        record(db, [(ids[0], JobResult(outcome="solved", moves=9, elapsed_s=0.1))])  # its result came first
        give_back(db, ids[1:2], "w1", JobState.PENDING)  # the heartbeat stopped it: it stays cancelled, released

    worker = threading.Thread(target=worker_stops_one_after_the_other_finished)
    worker.start()
    with local_environment(monkeypatch):
        said = ok(orchestrate("cancel", "s", "--wait", "--db", db.url)).stdout.splitlines()
    worker.join()
    ended = sum(job.status == "cancelled" for job in rows(db).values())
    assert ended == 5 and rows(db)[ids[0]].status == "done"
    assert said[0].startswith("sweep s: 4 waiting jobs cancelled; 2 running jobs stopped by their workers within")
    assert said[1:] == ["sweep s: 5 jobs ended cancelled (1 of the 2 running finished first, with their result)"]


def test_the_heartbeat_stops_a_cancelled_batch_kills_its_job_process_and_the_runner_runs_the_next(db, boards_dir):
    configure(heartbeat_seconds=0.2, lease_seconds=30.0)
    _, sweep_id, (endless,) = store_sweep(db, "long", load_boards([f"{KORF24}#1"]), ENDLESS)
    _, _, quick = store_sweep(db, "quick", six(boards_dir), SweepGrid(["bfs"]))
    runner = JobRunner()
    outcomes: list[list[str]] = []
    worker = threading.Thread(target=lambda: outcomes.append(execute(db, [endless], runner, "w1")))
    try:
        worker.start()
        wait_for(lambda: runner._process is not None and rows(db)[endless].status == "running", KERNELS_S, "the job")
        child = runner._process.pid
        time.sleep(1.0)  # inside the search
        cancelled = time.monotonic()
        cancel(db, sweep_id)
        worker.join(KERNELS_S)
        assert not worker.is_alive() and outcomes == [[]]
        assert time.monotonic() - cancelled < 15  # a beat (0.2 s) and a kill, on a busy machine
        wait_for(lambda: not pid_alive(child), 10, "the job process to die")
        job = rows(db)[endless]
        assert (job.status, job.lease_until) == ("cancelled", None) and not results(db)  # released, no result
        assert stopping(db, sweep_id) == 0
        assert execute(db, quick, runner, "w1") == ["solved"] * 3  # the same runner goes on with other work
    finally:
        runner.close()


def test_cancel_stops_a_local_sweep_from_another_terminal_and_resume_runs_the_jobs_later(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'local.db'}"
    upgrade(url)
    db = connect(url)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")}, "SLIDELAB_HEARTBEAT_SECONDS": "0.5"}
    boards = [f"{KORF24}#1", f"{KORF24}#2", *EIGHT_PUZZLES]
    sweep = subprocess.Popen([*CLI, "sweep", "--name", "mixed", "--algo", "idastar", "--heuristic", "manhattan",
                              "--chunk", "1", "--workers", "2", "--db", url, *boards], env=env, cwd=tmp_path,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        wait_for(lambda: sum(job.status == "running" for job in rows(db).values()) == 2, KERNELS_S, "two jobs to run")
        with local_environment(monkeypatch):
            said = ok(orchestrate("cancel", "mixed", "--wait", "--db", url)).stdout
        output, _ = sweep.communicate(timeout=60)  # the run ends: its jobs are stopped, the rest never start
    finally:
        sweep.kill()
    assert said.startswith("sweep mixed: 3 waiting jobs cancelled; 2 running jobs stopped by their workers within"), said
    assert said.splitlines()[-1] == "sweep mixed: 5 jobs ended cancelled", said
    assert sweep.returncode == 0 and "sweep:    mixed (cancelled)" in output.decode(), output
    assert {job.status for job in rows(db).values()} == {"cancelled"} and not results(db)
    endless = sorted(rows(db))[:2]
    record(db, [(job_id, JobResult.limit("not run again here")) for job_id in endless])  # resume runs the others
    with local_environment(monkeypatch):
        status = ok(orchestrate("status", "mixed", "--db", url)).stdout
        resumed = ok(orchestrate("resume", "mixed", "--db", url, "--workers", "1")).stdout
    assert "sweep:    mixed (cancelled)" in status and "continue with: orchestrate resume mixed" in status
    assert "3 cancelled jobs run again" in resumed
    assert sorted(r.outcome for r in results(db).values()) == ["limit", "limit", "solved", "solved", "solved"]
