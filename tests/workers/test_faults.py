"""Lost hosts, partitions, kills and shutdowns, on real hosts: network namespaces made by the test.

Redis (with a password) and PostgreSQL run in a server namespace; one
`orchestrate worker` runs in each of two host namespaces, each host on a veth
pair of its own (`tests/workers/netns.py`). The test reads the servers over
Unix sockets and runs its commands through them: nothing it sends leaves the
namespaces. Unless a test says otherwise it runs with the default settings,
as a user would. Needs root (CI runs as root); elsewhere the module skips.

Measured times go to the test's output (`pytest -s` shows them).
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.polling import wait_for
from tests.workers.cluster import SLOW_START_S, Cluster, pid_alive
from tests.workers.netns import Network, Servers, unavailable
from workers.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(reason := unavailable()), reason=reason or "")]
DEFAULTS = Settings.model_construct()  # the defaults, whatever this environment sets (the workers get none of it)
LONG_BOARD, SHORT_BOARDS = "Rushhour9x9_5.csv", ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv")
# astar (blockers-lb) on 9x9_5: about 11 s of search on an idle core, the 22-move optimum; the 6x6 jobs: milliseconds
LONG_GRID = ("--algo", "astar", "--heuristic", "blockers-lb", "--time-limit", "300", "--chunk", "1")
SLACK_S = 20.0  # a busy shared machine: process start, message delivery, the database's pace
# What a lapsed lease costs is measured on a lease shorter than the default (45 s, a beat every 10 s), the test's
# time being mostly the wait: the bound is the same sum of lease, beat and slack.
SHORT_LEASE_S, SHORT_HEARTBEAT_S = 15, 3
SHORT_LEASE = {"SLIDELAB_LEASE_SECONDS": str(SHORT_LEASE_S), "SLIDELAB_HEARTBEAT_SECONDS": str(SHORT_HEARTBEAT_S)}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    network = Network(["h1", "h2"])
    made = None
    try:
        made = Servers(network, tmp_path_factory.mktemp("netns-servers"))
        made.start()
        yield made
    finally:
        if made is not None:
            made.close()
        network.close()


@pytest.fixture
def hosts(servers, tmp_path, boards_dir):
    """A fresh database and queue, and a way to start a worker on h1 or h2; every link restored at the end."""
    name = f"faults_{uuid.uuid4().hex[:10]}"
    servers.admin(f'CREATE DATABASE "{name}"')
    cluster = Cluster(tmp_path / "cluster", servers.database_url(name), servers.broker_url(),
                      redis_client=servers.redis_client())
    cluster.database_name, cluster.boards_dir = name, boards_dir
    try:
        cluster.orchestrate("db", "upgrade", "--db", cluster.database_url)
        yield cluster
    finally:
        for host in ("h1", "h2"):
            servers.network.restore(host)
        cluster.close()
        cluster.report()
        servers.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_worker(cluster, servers, host: str, env: dict[str, str] | None = None):
    """`orchestrate worker` on `host`, reaching the servers over its own link."""
    urls = (servers.database_url(cluster.database_name, host), servers.broker_url(host))
    worker = cluster.worker(host, env=env, prefix=servers.network.prefix(host), urls=urls)
    worker.host = host
    return worker


def two_workers(cluster, servers, env=None):
    """A worker on h1 and one on h2, each with its job process up and its A* kernels loaded.

    Twenty short jobs, one message each: enough that both workers take some even when one of them is slow to
    fetch its first message on a busy machine (four were not always).
    """
    workers = [start_worker(cluster, servers, host, env) for host in ("h1", "h2")]
    for worker in workers:
        worker.wait_ready(120)
    for attempt in range(3):
        cluster.sweep("--algo", "astar", "--heuristic", "blockers-lb", "--repeat", "20", "--chunk", "1",
                      "--name", f"warm-up-{attempt}", "--boards", str(cluster.boards_dir / SHORT_BOARDS[0]))
        wait_for(lambda: not cluster.scalar("SELECT count(*) FROM jobs WHERE status != 'done'"), SLOW_START_S,
                 "the warm-up jobs")
        if {row.worker_host for row in cluster.sql("SELECT worker_host FROM jobs")} == {w.hostname for w in workers}:
            return workers
    raise AssertionError("a worker took no warm-up job")


def long_sweep(cluster, boards_dir, name: str, shorts: int = 3):
    """A sweep of one long job and `shorts` short ones; the long job's id."""
    boards = [str(boards_dir / LONG_BOARD), *(str(boards_dir / b) for b in SHORT_BOARDS[:shorts])]
    cluster.sweep(*LONG_GRID, "--name", name, "--boards", *boards)
    return cluster.scalar("SELECT j.id FROM jobs j JOIN boards b ON b.id = j.board_id WHERE b.size = 9")


def job_row(cluster, job_id: int):
    return cluster.sql(
        "SELECT j.status, j.worker_host, j.attempts, j.lost, r.outcome, r.moves, r.error, r.elapsed_s, r.warmup_s"
        " FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE j.id = :id", id=job_id)[0]


def one_result_per_job(cluster, sweep: str, total: int) -> None:
    """The sweep has `total` jobs, every one done with exactly one result."""
    row = cluster.sql(
        "SELECT count(DISTINCT j.id) AS jobs, count(DISTINCT j.id) FILTER (WHERE j.status = 'done') AS finished,"
        " count(r.id) AS results FROM jobs j JOIN sweeps s ON s.id = j.sweep_id LEFT JOIN results r ON r.job_id = j.id"
        " WHERE s.name = :sweep", sweep=sweep)[0]
    assert (row.jobs, row.finished, row.results) == (total, total, total), row


def sweep_done(cluster, sweep: str, timeout: float = SLOW_START_S) -> None:
    """Until every job of the sweep is done."""
    wait_for(lambda: not cluster.scalar("SELECT count(*) FROM jobs j JOIN sweeps s ON s.id = j.sweep_id"
                                        " WHERE s.name = :sweep AND j.status != 'done'", sweep=sweep),
             timeout, f"sweep {sweep} to finish", interval=0.3, on_timeout=cluster.report_text)


def measured(what: str, seconds: float) -> None:
    print(f"\nMEASURED {what}: {seconds:.1f} s (load {os.getloadavg()[0]:.1f})")


@pytest.mark.timeout(600)
def test_a_lost_host_costs_a_lease_not_an_hour(hosts, servers, boards_dir):
    two_workers(hosts, servers, SHORT_LEASE)
    long_id = long_sweep(hosts, boards_dir, "lost-host")
    victim, survivor = hosts.holder(long_id)
    time.sleep(1.0)
    servers.network.cut(victim.host)
    victim.kill()  # the machine is gone: its link, and every process on it
    lost_at = time.monotonic()

    sweep_done(hosts, "lost-host", SHORT_LEASE_S + SLOW_START_S)
    took = time.monotonic() - lost_at
    job = job_row(hosts, long_id)
    assert (job.status, job.worker_host, job.outcome, job.moves, job.lost) == ("done", survivor.hostname, "solved", 22, 1)
    own_time = job.elapsed_s + (job.warmup_s or 0.0)
    measured(f"lost host -> long job done elsewhere (its own time {own_time:.1f} s)", took)
    assert took <= SHORT_LEASE_S + SHORT_HEARTBEAT_S + own_time + SLACK_S
    one_result_per_job(hosts, "lost-host", 4)
    assert survivor.alive()


@pytest.mark.timeout(600)
def test_a_20_second_partition_mid_job_leaves_one_result_per_job_and_both_workers_alive(hosts, servers, boards_dir):
    # Inside the 45 s lease: renewed up to a heartbeat (10 s) before the cut, the 20 s cut, then a failed beat is
    # retried every 2 s and the database's TCP timeout is 10 s: renewed again some 42 s later at worst (30 s: 52 s).
    workers = two_workers(hosts, servers)
    long_id = long_sweep(hosts, boards_dir, "partition")
    cut, _ = hosts.holder(long_id)
    servers.network.cut(cut.host)
    time.sleep(20)
    servers.network.restore(cut.host)

    sweep_done(hosts, "partition")
    one_result_per_job(hosts, "partition", 4)
    assert all(w.alive() for w in workers)
    job = job_row(hosts, long_id)
    assert (job.outcome, job.moves) == ("solved", 22)
    assert job.lost == 0, "a 20 s partition is shorter than the lease: nobody took the job over"


@pytest.mark.timeout(600)
def test_a_worker_killed_with_sigkill_has_its_job_run_again_within_a_lease(hosts, servers, boards_dir):
    two_workers(hosts, servers, SHORT_LEASE)
    long_id = long_sweep(hosts, boards_dir, "kill-9", shorts=1)
    victim, survivor = hosts.holder(long_id)
    children = victim.job_processes()
    victim.kill_main()
    killed_at = time.monotonic()
    wait_for(lambda: not any(pid_alive(pid) for pid in children), 10, "its job process to die with it")

    def rerun():
        row = job_row(hosts, long_id)
        return row.worker_host == survivor.hostname and row.status in ("running", "done")

    within = SHORT_LEASE_S + SHORT_HEARTBEAT_S + SLACK_S  # the lease lapses, the survivor notices
    wait_for(rerun, within, "the job to run again elsewhere", interval=0.2)
    measured("kill -9 -> job running again", time.monotonic() - killed_at)
    assert time.monotonic() - killed_at <= within
    sweep_done(hosts, "kill-9")
    one_result_per_job(hosts, "kill-9", 2)
    assert job_row(hosts, long_id).attempts == 2


@pytest.mark.timeout(600)
def test_sigterm_mid_job_hands_the_job_back_at_once_to_the_other_worker(hosts, servers, boards_dir):
    two_workers(hosts, servers)
    long_id = long_sweep(hosts, boards_dir, "sigterm", shorts=1)
    stopped, other = hosts.holder(long_id)
    time.sleep(1.0)
    os.kill(stopped.pid, signal.SIGTERM)
    asked = time.monotonic()
    stopped.proc.wait(30)
    measured("SIGTERM -> worker gone", time.monotonic() - asked)

    def taken_over():
        row = job_row(hosts, long_id)
        return row.worker_host == other.hostname and row.status in ("running", "done")

    wait_for(taken_over, DEFAULTS.lease_seconds, "the other worker to take the job", interval=0.1)
    measured("SIGTERM -> job running on the other worker", time.monotonic() - asked)
    assert time.monotonic() - asked < DEFAULTS.lease_seconds  # no one waited for the lease
    assert stopped.proc.returncode == 0
    assert "handed back" in stopped.text()
    sweep_done(hosts, "sigterm")
    one_result_per_job(hosts, "sigterm", 2)
    job = job_row(hosts, long_id)
    assert (job.worker_host, job.outcome, job.moves, job.lost) == (other.hostname, "solved", 22, 0)
    assert other.alive()


@pytest.mark.timeout(600)
def test_a_job_that_kills_its_job_process_three_times_is_stored_as_an_error(hosts, servers, boards_dir):
    workers = two_workers(hosts, servers)
    long_id = long_sweep(hosts, boards_dir, "poison", shorts=1)
    killed: set[int] = set()
    while len(killed) < DEFAULTS.max_attempts:
        worker, _ = hosts.holder(long_id)
        fresh = [pid for pid in worker.job_processes() if pid not in killed and pid_alive(pid)]
        if not fresh:
            time.sleep(0.05)
            continue
        os.kill(fresh[0], signal.SIGKILL)  # as a job that crashes its process would
        killed.add(fresh[0])
    sweep_done(hosts, "poison")
    job = job_row(hosts, long_id)
    assert (job.status, job.outcome, job.lost) == ("done", "error", 3)
    assert job.error.startswith("its worker was lost 3 times (the last time: the job process died")
    one_result_per_job(hosts, "poison", 2)
    assert all(w.alive() for w in workers)


# On `host`'s link, a session that locks the job's row and keeps its transaction open, as a worker's heartbeat
# does for a moment every beat: its link cut then, the server must not keep that lock.
HOLD_THE_ROW = """
import sys, time
from sqlalchemy import text
from workers.store.database import engine_for
connection = engine_for(sys.argv[1]).connect()
connection.execute(text("SELECT id FROM jobs WHERE id = :id FOR UPDATE"), {"id": int(sys.argv[2])})
print("locked", flush=True)
time.sleep(3600)
"""


@pytest.mark.timeout(600)
def test_a_link_cut_inside_a_transaction_does_not_keep_the_job_locked(hosts, servers, boards_dir):
    """The job's lease lapses while the cut-off host's session still holds its row: the server ends that session
    (its keepalives and user timeout, not the minute's idle-transaction limit), so the other worker can re-queue the
    job and run it."""
    workers = two_workers(hosts, servers, {"SLIDELAB_LEASE_SECONDS": "6", "SLIDELAB_HEARTBEAT_SECONDS": "1"})
    long_id = long_sweep(hosts, boards_dir, "locked", shorts=1)
    away, other = hosts.holder(long_id)
    url = servers.database_url(hosts.database_name, away.host)
    holder = subprocess.Popen([*servers.network.prefix(away.host), sys.executable, "-c", HOLD_THE_ROW, url, str(long_id)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        logged_before = servers.postgres.log.stat().st_size  # the server's log is shared with the module's other tests
        servers.network.cut(away.host)
        cut_at = time.monotonic()
        # about 11 s for the server to end the session, then an 11 s search that a busy machine may make a minute long
        wait_for(lambda: job_row(hosts, long_id).status == "done", 180, "the other worker to re-queue and finish the job")
        measured("link cut inside a transaction holding the job's row -> the job done elsewhere", time.monotonic() - cut_at)
    finally:
        holder.kill()
        holder.wait()
    assert job_row(hosts, long_id).worker_host == other.hostname
    assert all(w.alive() for w in workers)
    assert b"idle-in-transaction timeout" not in servers.postgres.log.read_bytes()[logged_before:]


@pytest.mark.timeout(600)
def test_a_worker_back_after_its_lease_lapsed_drops_its_late_result_and_goes_on(hosts, servers, boards_dir):
    short_lease = {"SLIDELAB_LEASE_SECONDS": "6", "SLIDELAB_HEARTBEAT_SECONDS": "1"}
    workers = two_workers(hosts, servers, short_lease)
    long_id = long_sweep(hosts, boards_dir, "late", shorts=1)
    away, other = hosts.holder(long_id)
    servers.network.cut(away.host)
    wait_for(lambda: job_row(hosts, long_id).status == "done", 120, "the other worker to finish the job")
    assert job_row(hosts, long_id).worker_host == other.hostname
    servers.network.restore(away.host)

    wait_for(lambda: "ours was dropped" in away.text(), 120, "the late worker to say its result came late")
    one_result_per_job(hosts, "late", 2)
    job = job_row(hosts, long_id)
    assert (job.outcome, job.moves, job.lost) == ("solved", 22, 1)
    hosts.sweep("--algo", "astar", "--heuristic", "blockers-lb", "--name", "after", "--chunk", "1", "--repeat", "20",
                "--boards", str(boards_dir / SHORT_BOARDS[0]))
    sweep_done(hosts, "after")
    assert all(w.alive() for w in workers)
    after = hosts.sql("SELECT j.worker_host FROM jobs j JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = 'after'")
    assert away.hostname in {row.worker_host for row in after}, "the worker back from the partition works on"
