"""Leases on SQLite and PostgreSQL: renewed by the heartbeat, re-queued once when they lapse, lost jobs counted."""

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from tests.polling import wait_for
from tests.stored import store_sweep
from tests.tables import expire_leases
from tests.tables import job_rows as rows
from tests.tables import result_rows as results
from workers.execute import execute
from workers.heartbeat import Heartbeat
from workers.recovery import Recovery
from workers.runner import JobRunner
from workers.settings import configure
from workers.store import connect
from workers.store.jobs import claim, give_back, held_leases, lose, mark_queued, record, renew, requeue_lapsed
from workers.store.migrate import upgrade
from workers.store.records import JobResult
from workers.store.states import JobState
from workers.store.sweeps import unfinished_jobs

SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]


@pytest.fixture
def db(db_url):
    return connect(db_url)


@pytest.fixture
def boards(boards_dir):
    return load_boards([str(boards_dir / name) for name in SIX])


def stored(db, boards, repeat: int = 1, algorithm: str = "bfs") -> list[int]:
    return store_sweep(db, "s", boards, SweepGrid([algorithm], {}, repeat=repeat))[2]


def as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives naive UTC


def test_a_claim_sets_a_lease_and_renew_extends_only_the_holders_leases(db, boards):
    ids = stored(db, boards)
    before = datetime.now(UTC)
    claim(db, ids[:2], "w1", 30)
    claim(db, ids[2:], "w2", 30)
    leases = {i: as_utc(job.lease_until) for i, job in rows(db).items()}
    assert all(before + timedelta(seconds=29) < lease < before + timedelta(seconds=40) for lease in leases.values())

    assert renew(db, ids, "w1", 300) == set(ids[:2])
    renewed = {i: as_utc(job.lease_until) for i, job in rows(db).items()}
    assert all(renewed[i] > before + timedelta(seconds=290) for i in ids[:2])
    assert renewed[ids[2]] == leases[ids[2]]  # w2's own lease is w2's to renew
    record(db, [(ids[0], JobResult(outcome="solved", moves=21))])
    assert renew(db, ids, "w1", 300) == {ids[1]}  # a done job holds no lease
    assert rows(db)[ids[0]].lease_until is None


def test_lapsed_leases_are_requeued_with_a_loss_counted_and_poisoned_after_max_attempts(db, boards):
    ids = stored(db, boards)
    claim(db, ids, "w1", 60)
    assert requeue_lapsed(db, JobState.QUEUED, 3) == ([], [])  # live leases are left alone
    expire_leases(db.engine, ids[:2])
    assert requeue_lapsed(db, JobState.QUEUED, 3) == (ids[:2], [])
    assert requeue_lapsed(db, JobState.QUEUED, 3) == ([], [])  # once
    jobs = rows(db)
    assert [(jobs[i].status, jobs[i].lost, jobs[i].lease_until) for i in ids] == [
        ("queued", 1, None), ("queued", 1, None), ("running", 0, jobs[ids[2]].lease_until)]

    for lost in (2, 3):
        claim(db, [ids[0]], f"w{lost}", 60)
        expire_leases(db.engine, [ids[0]])
        requeued, poisoned = requeue_lapsed(db, JobState.PENDING, 3)
        assert (requeued, poisoned) == (([ids[0]], []) if lost == 2 else ([], [ids[0]]))
    job, result = rows(db)[ids[0]], results(db)[ids[0]]
    assert (job.status, job.lost, job.attempts) == ("done", 3, 3)
    assert result.outcome == "error"
    assert result.error == "its worker was lost 3 times (the last time: the lease of w3 lapsed)"
    assert set(results(db)) == {ids[0]}


def test_concurrent_lookers_requeue_each_lapsed_job_once(db, boards):
    ids = stored(db, boards, repeat=40)  # 120 jobs
    claim(db, ids, "lost-host", 60)
    expire_leases(db.engine, ids)
    barrier = threading.Barrier(4)

    def look(_):
        barrier.wait()
        return requeue_lapsed(db, JobState.QUEUED, 3)[0]

    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(look, range(4)))
    assert sorted(job_id for got in found for job_id in got) == ids  # every job once, by one of them
    assert {(job.status, job.lost) for job in rows(db).values()} == {("queued", 1)}


def test_a_late_result_is_dropped_and_reported_the_first_stands(db, boards):
    ids = stored(db, boards)
    assert record(db, [(ids[0], JobResult(outcome="solved", moves=21))]) == set()
    late = record(db, [(ids[0], JobResult(outcome="solved", moves=99)), (ids[1], JobResult(outcome="solved", moves=15))])
    assert late == {ids[0]}
    assert {i: r.moves for i, r in results(db).items()} == {ids[0]: 21, ids[1]: 15}


def test_lose_runs_a_job_again_until_it_was_lost_max_attempts_times(db, boards):
    ids = stored(db, boards)
    claim(db, ids, "w1", 60)
    cause = "the job process died (exit code -9)"
    assert lose(db, {ids[0]: cause, ids[1]: cause}, "w1", 2) == ids[:2]
    assert lose(db, {ids[0]: cause}, "w2", 2) == []  # not w2's job: nothing counted
    assert lose(db, {ids[0]: cause}, "w1", 2) == []
    jobs = rows(db)
    assert [(jobs[i].status, jobs[i].lost, jobs[i].attempts) for i in ids[:2]] == [("done", 2, 2), ("running", 1, 2)]
    assert results(db)[ids[0]].error == f"its worker was lost 2 times (the last time: {cause})"


def test_give_back_and_resume_leave_live_leases_alone(db, boards):
    ids = stored(db, boards)
    sweep_id = rows(db)[ids[0]].sweep_id
    claim(db, ids[:2], "w1", 60)
    assert unfinished_jobs(db, sweep_id, held_too=False) == ids[2:]
    expire_leases(db.engine, [ids[1]])
    assert unfinished_jobs(db, sweep_id, held_too=False) == ids[1:]  # a lapsed lease is no one's
    assert unfinished_jobs(db, sweep_id) == ids  # --force
    assert claim(db, [ids[0]], "w2", 60) == []
    assert [job.job_id for job in claim(db, [ids[0]], "w2", 60, take_over=held_leases(db, ids))] == [ids[0]]  # --force
    claim(db, [ids[0]], "w1", 60, take_over=held_leases(db, ids))
    assert give_back(db, ids, "w2", JobState.PENDING) == []
    assert give_back(db, ids, "w1", JobState.QUEUED) == ids[:2]
    assert {(job.status, job.worker_host, job.lease_until) for job in rows(db).values()} >= {("queued", None, None)}


def test_a_take_over_takes_only_the_lease_it_names(db, boards):
    """resume --force names the lease it replaces: a stale or replayed take-over cannot take a job leased again since."""
    ids = stored(db, boards)
    claim(db, ids[:2], "w1", 60)
    seen = held_leases(db, ids)
    assert seen == {ids[0]: 1, ids[1]: 1}  # the others are not running
    assert [job.job_id for job in claim(db, ids, "w2", 60, take_over=seen)] == ids  # two taken over, the rest free
    assert claim(db, ids[:2], "w3", 60, take_over=seen) == []  # the same take-over again: those leases are gone
    assert claim(db, ids[:2], "w3", 60, take_over={ids[0]: 3}) == []  # nor can a lease not yet given be named
    assert {rows(db)[job_id].worker_host for job_id in ids} == {"w2"}
    assert [job.job_id for job in claim(db, ids[:1], "w3", 60, take_over=held_leases(db, ids))] == ids[:1]


def test_the_heartbeat_renews_every_held_lease_and_recovery_requeues_the_lapsed(db, boards):
    configure(heartbeat_seconds=0.2, lease_seconds=3.0)
    ids = stored(db, boards)
    claim(db, ids, "alive", 3.0)
    beat = Heartbeat(db, "alive")
    sent: list[list[int]] = []
    beat.add_duty(Recovery(db, sent.append))
    beat.start()
    try:
        with beat.holding(ids[:2]):
            wait_for(lambda: sent, 30, "the lapsed lease's job re-queued")
            time.sleep(1.0)  # a few more beats: the held leases stay renewed
            jobs = rows(db)
            assert [jobs[i].status for i in ids] == ["running", "running", "queued"]
            assert sent == [[ids[2]]]
        wait_for(lambda: len(sent) > 1, 30, "the leases no longer held re-queued")
    finally:
        beat.stop()
    assert sent == [[ids[2]], ids[:2]]
    assert {job.status for job in rows(db).values()} == {"queued"}


def test_a_job_that_kills_its_job_process_every_time_is_stored_as_an_error(db, boards):
    configure(max_attempts=3)
    (job_id, *_) = stored(db, boards[2:], algorithm="bfs")  # 6x6_3
    runner = JobRunner()
    killer = threading.Thread(target=kill_job_processes, args=(3,), daemon=True)
    try:
        killer.start()
        outcomes = execute(db, [job_id], runner, "w1")
    finally:
        runner.close()
    killer.join(10)
    job, result = rows(db)[job_id], results(db)[job_id]
    assert outcomes == []  # no job process returned a result
    assert (job.status, job.lost, job.attempts) == ("done", 3, 3)
    assert result.error.startswith("its worker was lost 3 times (the last time: the job process died (exit code -9")


def kill_job_processes(times: int) -> None:
    """kill -9 each new job process of this test process as soon as it is up, `times` times."""
    killed: set[int] = set()
    deadline = time.monotonic() + 60
    while len(killed) < times and time.monotonic() < deadline:
        for process in multiprocessing.active_children():
            if process.name == "slidelab-job" and process.pid not in killed:
                os.kill(process.pid, signal.SIGKILL)
                killed.add(process.pid)
        time.sleep(0.01)


def test_a_stopped_runner_hands_its_jobs_back_at_once(db, boards_dir):
    (job_id,) = stored(db, load_boards([str(boards_dir / "Rushhour9x9_6.csv")]))  # bfs: about 40 s
    runner = JobRunner()
    handed: list[list[int]] = []
    stopped = []
    threading.Timer(1.5, lambda: (stopped.append(time.monotonic()), runner.stop())).start()
    try:
        assert execute(db, [job_id], runner, "w1", handed.append) == []
    finally:
        runner.close()
    assert time.monotonic() - stopped[0] < 15  # not the ~40 s the job takes
    job = rows(db)[job_id]
    assert handed == [[job_id]]
    assert (job.status, job.worker_host, job.lease_until, job.lost) == ("queued", None, None, 0)
    assert not results(db)


def test_a_runner_stopped_with_a_verdict_stores_it_for_the_job_it_held_rather_than_handing_it_back(db, boards_dir):
    (job_id,) = stored(db, load_boards([str(boards_dir / "Rushhour9x9_6.csv")]))  # bfs: about 40 s
    runner = JobRunner()
    handed: list[list[int]] = []
    stopped = []
    verdict = JobResult.limit("stopped: no longer needed")
    threading.Timer(1.5, lambda: (stopped.append(time.monotonic()), runner.stop(verdict))).start()
    try:
        assert execute(db, [job_id], runner, "w1", handed.append) == ["limit"]
    finally:
        runner.close()
    assert time.monotonic() - stopped[0] < 15  # not the ~40 s the job takes
    assert handed == [] and rows(db)[job_id].status == "done"
    assert (results(db)[job_id].outcome, results(db)[job_id].reason) == ("limit", "stopped: no longer needed")


def test_status_watch_gives_back_the_jobs_of_a_lost_worker_and_resume_runs_them(tmp_path, boards, monkeypatch):
    from tests.orchestrator.clirun import local_environment, ok, orchestrate

    url = f"sqlite:///{tmp_path / 'watched.db'}"
    with local_environment(monkeypatch):
        monkeypatch.setenv("SLIDELAB_HEARTBEAT_SECONDS", "0.2")
        upgrade(url)
        db = connect(url)
        ids = stored(db, boards)
        claim(db, ids, "gone@host", 60)
        expire_leases(db.engine, ids)  # a local run killed with its jobs in hand
        started = time.monotonic()
        ok(orchestrate("status", "s", "--watch", "--db", url))  # ends once nothing runs: the jobs are pending
    assert time.monotonic() - started < 30
    assert {(job.status, job.lost, job.worker_host) for job in rows(db).values()} == {("pending", 1, "gone@host")}
    claim(db, [ids[2]], "alive@host", 60)
    with local_environment(monkeypatch):
        resumed = ok(orchestrate("resume", "s", "--db", url, "--workers", "1"))
    assert "1 job held by live workers: left to them" in resumed.stdout
    assert {i: r.moves for i, r in results(db).items()} == {ids[0]: 21, ids[1]: 15}


def test_a_duty_that_fails_is_logged_and_the_heartbeat_goes_on(db, boards, caplog):
    configure(heartbeat_seconds=0.1, lease_seconds=5.0)
    ids = stored(db, boards)
    claim(db, ids, "w1", 1.0)
    beat = Heartbeat(db, "w1")
    calls = []

    def broker_away():
        calls.append(1)
        raise ConnectionError("the broker is away")

    beat.add_duty(broker_away)
    with beat.holding(ids):
        assert beat.beat() and beat.beat()
    assert len(calls) == 2
    assert "broker_away failed" in caplog.text and "the broker is away" in caplog.text
    assert all(as_utc(job.lease_until) > datetime.now(UTC) + timedelta(seconds=3) for job in rows(db).values())


def test_recovery_waits_a_beat_and_a_half_of_answers_before_judging_leases(db, boards):
    configure(heartbeat_seconds=0.2)
    ids = stored(db, boards)
    claim(db, ids, "gone", 60)
    expire_leases(db.engine, ids)
    sent: list[list[int]] = []
    recover = Recovery(db, sent.append)
    recover()  # just back in touch with the database (or just started): it only pings
    assert {job.status for job in rows(db).values()} == {"running"} and sent == []
    time.sleep(0.45)
    recover()
    assert sent == [ids] and {job.status for job in rows(db).values()} == {"queued"}


def test_the_broker_is_reconciled_with_the_database_after_two_looks(postgres_url, redis_server, boards):
    from tests.conftest import truncate_tables
    from workers import dispatch
    from workers.recovery import Reconciler, broker_job_ids
    from workers.store.migrate import upgrade as upgrade_schema

    upgrade_schema(postgres_url)
    truncate_tables(postgres_url)
    broker = redis_server.url_for(8)
    configure(broker_url=broker, reconcile_seconds=0.0)
    redis_server.flush()
    db = connect(postgres_url)
    ids = stored(db, boards, repeat=2)  # 6 jobs
    assert dispatch.send(db, ids[:4], 2) == 2
    assert broker_job_ids(broker) == set(ids[:4])  # read from kombu's own messages
    mark = [ids[4]]
    mark_queued(db, mark)  # queued in the database, on no message: its sender died
    sent: list[list[int]] = []
    reconcile = Reconciler(db, sent.append)
    reconcile()
    assert sent == []  # once may be a message on its way
    reconcile()
    assert sent == [mark]
    redis_server.flush()  # Redis restarted without its data
    reconcile()
    reconcile()
    assert sent == [mark, sorted(ids[:4] + mark)]  # the one sent to no broker here, and the four Redis lost
    truncate_tables(postgres_url)
