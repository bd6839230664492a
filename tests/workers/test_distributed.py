"""End to end: real Redis, real PostgreSQL, real `orchestrate worker` processes, the CLI as a subprocess.

Each test gets a fresh PostgreSQL database and a Redis database number of its
own (see `tests/workers/cluster.py`); every process a test starts is killed at
its end. The first job of each fresh job process loads the compiled kernels
(a few seconds, about 45 s with a cold numba cache), hence the generous waits.
"""

import itertools
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from puzzles.npuzzle.boardlist import read_board_list
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.solver import solve
from tests.polling import wait_for
from tests.services.redis_service import RedisServer
from tests.workers.cluster import (
    BOARDS_6X6,
    CLI,
    COMPARED,
    MANY_BOARDS,
    MANY_GRID,
    MANY_JOBS,
    SLOW_START_S,
    assert_one_result_per_job,
    board_paths,
    fresh_cluster,
    pid_alive,
    results_of,
    sqlite_sweep,
    status_json,
)
from workers.provenance import environment

KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"
_redis_dbs = itertools.count()
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
SKEW_LEASE_S, SKEW_BEAT_S = 15, 3


def clock_off_by(offset: str) -> dict[str, str]:
    """The environment of a worker whose wall clock is `offset` off (libfaketime: "+5m", "-5m"), on a short lease."""
    return {"LD_PRELOAD": str(FAKETIME), "FAKETIME": offset, "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "SLIDELAB_LEASE_SECONDS": str(SKEW_LEASE_S), "SLIDELAB_HEARTBEAT_SECONDS": str(SKEW_BEAT_S)}


@pytest.fixture
def cluster(postgres_server, redis_server, tmp_path):
    """A fresh PostgreSQL database and Redis database number, with the schema in place."""
    broker = redis_server.url_for(9 + next(_redis_dbs) % 7)  # 9..15: other tests keep to the low numbers
    with fresh_cluster(postgres_server, broker, tmp_path) as made:
        yield made


@pytest.mark.timeout(360)
def test_two_workers_share_a_sweep_and_store_what_a_local_run_stores(cluster, boards_dir, tmp_path):
    a, b = cluster.worker("a"), cluster.worker("b")
    grid = ["--algo", "beam", "--k", "1..10", "--heuristic", "blockers", "--name", "beam-e2e",
            "--boards", *board_paths(boards_dir, BOARDS_6X6)]
    local = sa.create_engine(sqlite_sweep(tmp_path, grid), poolclass=NullPool)  # while the workers start
    expected = results_of(local, "beam-e2e")
    local.dispose()
    a.wait_ready()
    b.wait_ready()

    cluster.sweep(*grid, "--chunk", "1", "--wait", timeout=SLOW_START_S)

    status = status_json(cluster, "beam-e2e")
    assert (status["total"], status["states"], status["complete"]) == (30, {"done": 30}, True), status
    assert set(status["hosts"]) == {a.hostname, b.hostname}, status["hosts"]
    assert_one_result_per_job(cluster, 30)
    origins = cluster.sql("SELECT r.host, j.worker_host, r.code_version FROM results r JOIN jobs j ON j.id = r.job_id")
    assert {(row.host, row.code_version) for row in origins} == {
        (host, environment()["code_version"]) for host in (a.hostname, b.hostname)}  # each result names its worker
    assert all(row.host == row.worker_host for row in origins)
    got = cluster.results("beam-e2e")
    assert len(expected) == 30 and got.keys() == expected.keys()
    for key, row in expected.items():
        assert {f: got[key][f] for f in COMPARED} == {f: row[f] for f in COMPARED}, key
    assert {row["outcome"] for row in got.values()} >= {"solved"}
    assert a.alive() and b.alive()


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_a_job_on_a_killed_worker_is_requeued_when_its_lease_lapses_and_finished_elsewhere(cluster, boards_dir):
    short_lease = {"SLIDELAB_LEASE_SECONDS": "4", "SLIDELAB_HEARTBEAT_SECONDS": "1"}  # the default: 45 s, see test_faults
    cluster.workers_ready("a", "b", env=short_lease)
    # astar (blockers-lb) on 9x9_5 takes ~11 s and finds the 22-move optimum; the 6x6 jobs take milliseconds.
    boards = board_paths(boards_dir, ["Rushhour9x9_5.csv", *BOARDS_6X6])
    cluster.sweep("--algo", "astar", "--heuristic", "blockers-lb", "--time-limit", "120", "--name", "crash",
                  "--chunk", "1", "--boards", *boards)
    long_id = cluster.scalar("SELECT j.id FROM jobs j JOIN boards b ON b.id = j.board_id WHERE b.size = 9")

    victim, survivor = cluster.holder(long_id)
    children = victim.job_processes()
    time.sleep(1.0)  # inside the search (or loading kernels): a job process with work in hand
    victim.kill_main()  # kill -9 of the worker alone: its job process must die with it
    wait_for(lambda: not any(pid_alive(pid) for pid in children), 10, "the job process to die with its worker")

    cluster.wait_finished(4)
    assert_one_result_per_job(cluster, 4)
    job = cluster.sql("SELECT status, attempts, lost, worker_host FROM jobs WHERE id = :id", id=long_id)[0]
    result = cluster.sql("SELECT outcome, moves FROM results WHERE job_id = :id", id=long_id)[0]
    assert (job.status, job.worker_host, result.outcome, result.moves) == ("done", survivor.hostname, "solved", 22)
    assert (job.attempts, job.lost) == (2, 1)
    assert "lease lapsed" in survivor.text()
    assert survivor.alive()
    moves = {r["moves"] for r in cluster.results("crash").values()}
    assert moves == {22, 21, 15, 33}


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_a_queue_lost_with_redis_is_sent_again_from_the_database_within_two_looks(cluster, redis_server, boards_dir):
    """Within two looks at the broker (every 30 s by default: a minute; here every 5 s)."""
    look_s = 5
    workers = cluster.workers_ready("a", "b", env={"SLIDELAB_RECONCILE_SECONDS": str(look_s)})
    cluster.sweep(*MANY_GRID, "--name", "lost", "--boards", *board_paths(boards_dir, MANY_BOARDS))
    total = cluster.scalar("SELECT count(*) FROM jobs")
    assert total == MANY_JOBS
    wait_for(lambda: cluster.counts()["results"] >= 10, SLOW_START_S, "the first results")

    redis_server.restart(lose_data=True)
    lost_at = time.monotonic()
    assert cluster.counts()["finished"] < total - 50, "the sweep was almost done before Redis lost its queue"

    def resent() -> bool:
        return any("no message carries them; sent again" in worker.text() for worker in workers)

    wait_for(resent, 2 * look_s + 30, "a worker to send the lost jobs again")
    print(f"\nMEASURED Redis lost its queue -> jobs sent again: {time.monotonic() - lost_at:.1f} s")
    cluster.wait_finished(total)
    assert_one_result_per_job(cluster, total)
    assert all(w.alive() for w in workers)
    status = status_json(cluster, "lost")
    assert status["complete"] and status["states"] == {"done": total}, status


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_redis_killed_and_back_from_its_append_only_file_runs_every_job_once(postgres_server, tmp_path, boards_dir):
    redis = RedisServer(tmp_path / "redis", append_only=True)  # as docker-compose.yml's: appendonly, fsync always
    redis.start()
    try:
        with fresh_cluster(postgres_server, redis.url_for(0), tmp_path) as cluster:
            workers = cluster.workers_ready("a", "b")
            cluster.sweep(*MANY_GRID, "--name", "aof", "--boards", *board_paths(boards_dir, MANY_BOARDS))
            wait_for(lambda: cluster.counts()["results"] >= 10, SLOW_START_S, "the first results")
            redis.crash()
            assert cluster.counts()["finished"] < MANY_JOBS - 50, "the sweep was almost done before Redis died"
            time.sleep(3.0)
            redis.start()
            back_at = time.monotonic()
            cluster.wait_finished(MANY_JOBS)
            print(f"\nMEASURED Redis back from its append-only file -> sweep done: {time.monotonic() - back_at:.1f} s")
            assert_one_result_per_job(cluster, MANY_JOBS)
            assert all(w.alive() for w in workers)  # reconnected, not restarted
            assert cluster.scalar("SELECT count(*) FROM jobs WHERE attempts > 1") <= 2  # at most the jobs in hand
    finally:
        redis.close()


@pytest.mark.timeout(360)
def test_resume_leaves_a_job_a_live_worker_runs_to_it_and_force_runs_it_again(cluster, boards_dir):
    (worker,) = cluster.workers_ready("a", concurrency=2)  # a thread free for the message --force sends
    # Iterative deepening takes minutes to 9x9_6's 18 moves, even with its memo: the job runs its whole 30 s, longer
    # than the two `orchestrate resume` runs below take on a busy machine
    cluster.sweep("--algo", "iddfs", "--time-limit", "30", "--name", "held", "--chunk", "1",
                  "--boards", *board_paths(boards_dir, ["Rushhour9x9_6.csv"]))
    wait_for(lambda: cluster.scalar("SELECT status FROM jobs") == "running", SLOW_START_S, "the job to run")
    args = ("resume", "held", "--db", cluster.database_url, "--broker", cluster.broker_url)

    kept = cluster.orchestrate(*args)
    assert "1 job held by live workers: left to them" in kept.stdout
    assert "queued 0 jobs" in kept.stdout
    forced = cluster.orchestrate(*args, "--force")
    assert "queued 1 job in 1 message" in forced.stdout

    cluster.wait_finished(1)
    assert_one_result_per_job(cluster, 1)
    assert cluster.scalar("SELECT attempts FROM jobs") == 2  # forced: taken over by the message resume sent
    assert worker.alive()


@pytest.mark.slow
@pytest.mark.timeout(420)
@pytest.mark.skipif(not FAKETIME.exists(), reason=f"no {FAKETIME} (Debian's faketime; .ci/run installs it)")
def test_workers_whose_clocks_are_five_minutes_off_neither_keep_a_dead_lease_nor_lose_a_live_one(cluster, boards_dir):
    """Leases are stamped and read by PostgreSQL's clock: the workers' own clocks do not count."""
    ahead = cluster.worker("ahead", env=clock_off_by("+5m"))
    ahead.wait_ready(SLOW_START_S)
    cluster.sweep("--algo", "iddfs", "--time-limit", "40", "--name", "skew", "--boards",
                  *board_paths(boards_dir, ["Rushhour9x9_6.csv"]))  # minutes to its optimum: stopped at 40 s
    wait_for(lambda: cluster.scalar("SELECT worker_host FROM jobs WHERE status = 'running'") == ahead.hostname,
             SLOW_START_S, "the worker ahead to run the job")
    ahead.kill_main()  # its job process dies with it; the lease it renewed would outlive it by 5 minutes
    killed_at = time.monotonic()
    behind = cluster.worker("behind", env=clock_off_by("-5m"))
    within = SKEW_LEASE_S + SKEW_BEAT_S + 60  # the lease lapses, the worker behind starts, notices, takes the job

    wait_for(lambda: cluster.scalar("SELECT worker_host FROM jobs WHERE status = 'running'") == behind.hostname,
             within, "the worker behind to take the dead worker's job", interval=0.2)
    print(f"\nMEASURED kill -9 of a worker 5 min ahead -> its job running again: {time.monotonic() - killed_at:.1f} s")
    fair = cluster.worker("fair", env=clock_off_by("+0"))  # every heartbeat, it requeues the leases that lapsed
    fair.wait_ready(SLOW_START_S)
    cluster.wait_finished(1)
    assert_one_result_per_job(cluster, 1)
    row = cluster.sql("SELECT worker_host, attempts, lost FROM jobs")[0]
    assert (row.worker_host, row.attempts, row.lost) == (behind.hostname, 2, 1)  # never taken from the worker behind
    assert cluster.scalar("SELECT outcome FROM results") == "limit"


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_workers_wait_for_postgres_to_come_back(cluster, postgres_server, boards_dir):
    """PostgreSQL stopped for 20 s mid-sweep: each worker says so once, and once when it is back; `status --watch`
    says so and carries on; every job one result."""
    cluster.sweep(*MANY_GRID, "--name", "outage", "--boards", *board_paths(boards_dir, MANY_BOARDS))  # queued
    total = MANY_JOBS
    watching = subprocess.Popen([*CLI, "status", "outage", "--watch", "--db", cluster.database_url], env=cluster.env,
                                cwd=cluster.workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = make_url(cluster.database_url).port
    wait_for(lambda: any(c.raddr and c.raddr.port == port for c in psutil.Process(watching.pid).net_connections("tcp")),
             60, "status --watch to follow the sweep (its connection to PostgreSQL open)")
    workers = cluster.workers_ready("a", "b")  # only now: the sweep is not done before the outage
    before = wait_for(lambda: (c := cluster.counts())["results"] >= 10 and c, SLOW_START_S, "the first results")
    assert before["finished"] < total - 50, f"the sweep was almost done before the outage: {before}"

    postgres_server.stop()
    time.sleep(20.0)
    postgres_server.start()
    back_at = time.monotonic()

    counts = cluster.wait_finished(total)
    print(f"\nMEASURED PostgreSQL back after 20 s -> sweep done: {time.monotonic() - back_at:.1f} s")
    assert counts["finished"] == total
    assert_one_result_per_job(cluster, total)
    assert all(w.alive() for w in workers)
    for worker in workers:
        said = worker.text()
        assert "raised unexpected" not in said, worker.hostname
        lines = [said.count(line) for line in ("heartbeat: the database does not answer", "answers again",
                                                "lapsed leases not looked for")]
        assert lines[0] == lines[1] == 1 and lines[2] <= 1, (lines, said[-3000:])  # a line an outage, not one a job
    _, watched = watching.communicate(timeout=120)
    assert watching.returncode == 0, watched
    assert "the database does not answer" in watched and "the database answers again" in watched, watched


@pytest.mark.timeout(420)
def test_jobs_over_their_limits_are_stored_and_the_worker_goes_on(cluster, boards_dir):
    (worker,) = cluster.workers_ready("a")
    cluster.sweep("--algo", "bfs", "--time-limit", "1", "--name", "slow",
                  "--boards", *board_paths(boards_dir, ["Rushhour9x9_6.csv"]))
    cluster.sweep("--algo", "bfs", "--memory-limit", "100M", "--name", "big",
                  "--boards", *board_paths(boards_dir, ["Rushhour9x9_5.csv"]))
    cluster.wait_finished(2)
    (slow,) = cluster.results("slow").values()
    (big,) = cluster.results("big").values()
    assert (slow["outcome"], big["outcome"]) == ("limit", "limit")
    assert "time" in slow["reason"], slow
    assert "memory" in big["reason"], big
    assert worker.alive()

    cluster.sweep("--algo", "astar", "--heuristic", "blockers-lb", "--name", "after",
                  "--boards", *board_paths(boards_dir, ["Rushhour6x6_1.csv"]))
    cluster.wait_finished(3)
    (after,) = cluster.results("after").values()
    assert (after["state"], after["outcome"], after["moves"]) == ("done", "solved", 21)
    assert_one_result_per_job(cluster, 3)
    assert worker.alive()


@pytest.mark.timeout(360)
def test_boards_optimum_runs_on_the_workers_and_stores_the_optima(cluster, boards_dir):
    workers = cluster.workers_ready("a", "b")
    db = ("--db", cluster.database_url)
    unshipped = {"123405786": 2, "413726058": 6, "142753068": 16}  # 8-puzzles no shipped set lists
    cluster.orchestrate("boards", "import", *board_paths(boards_dir, BOARDS_6X6[:1]), *unshipped, "--set", "small", *db)
    done = cluster.orchestrate("boards", "optimum", "--set", "small", *db, "--broker", cluster.broker_url,
                               "--chunk", "1", timeout=SLOW_START_S)
    assert done.stdout.endswith("3 of 3 boards now have a known optimum\n"), done.stdout
    optima = dict(cluster.sql("SELECT name, known_optimum FROM boards"))
    assert optima == {"Rushhour6x6_1": 21, **unshipped}  # the course board's optimum came with it
    hosts = {row.worker_host for row in cluster.sql("SELECT worker_host FROM jobs")}
    assert hosts <= {worker.hostname for worker in workers}, hosts  # run by the workers, not here
    assert_one_result_per_job(cluster, 3)


@pytest.mark.timeout(360)
def test_ctrl_c_on_a_worker_hands_its_job_back_at_once(cluster, boards_dir):
    cluster.workers_ready("a", "b")
    cluster.sweep("--algo", "astar", "--heuristic", "blockers-lb", "--name", "ctrl-c", "--chunk", "1",
                  "--boards", *board_paths(boards_dir, ["Rushhour9x9_5.csv", *BOARDS_6X6]))  # ~11 s, 22 moves
    long_id = cluster.scalar("SELECT j.id FROM jobs j JOIN boards b ON b.id = j.board_id WHERE b.size = 9")

    stopped, other = cluster.holder(long_id)
    os.killpg(stopped.pid, signal.SIGINT)  # Ctrl-C in its terminal: the whole process group
    asked = time.monotonic()
    assert stopped.proc.wait(30) == 0
    wait_for(lambda: cluster.running_on(long_id) == other.hostname or cluster.counts()["finished"] == 4, 30,
             "the other worker")
    assert time.monotonic() - asked < 30  # handed back, not left for its 45 s lease
    cluster.wait_finished(4)
    assert_one_result_per_job(cluster, 4)
    job = cluster.sql("SELECT j.worker_host, j.lost, r.moves FROM jobs j JOIN results r ON r.job_id = j.id"
                      " WHERE j.id = :id", id=long_id)[0]
    assert (job.worker_host, job.lost, job.moves) == (other.hostname, 0, 22)
    assert "handed back" in stopped.text()


@pytest.mark.timeout(600)
def test_a_split_search_over_two_workers_finds_the_optimum_with_the_one_core_node_counts(cluster):
    """Korf's #12 (45 moves) split at depth 4: a sweep of subtree jobs per bound, taken by both workers."""
    a, b = cluster.workers_ready("a", "b")
    board = f"{KORF100}#12"
    done = cluster.orchestrate("split", board, "--depth", "4", "--heuristic", "pdb-max", "--pdb", "6-6-3",
                               "--name", "split12", "--split-above", "0", "--db", cluster.database_url, "--broker", cluster.broker_url,
                               timeout=SLOW_START_S)
    one = solve(NPuzzleProblem(read_board_list(str(KORF100))[11].board), "idastar", {"heuristic": "pdb-max", "pdb": "6-6-3"})
    assert "korf100-12: solved in 45 moves with pdb-max, split at depth 4 over" in done.stdout
    assert f"expanded {one.expanded:,}, generated {one.generated:,} (as one core)" in done.stdout
    jobs = cluster.sql("SELECT j.params, j.worker_host, r.outcome FROM jobs j JOIN results r ON r.job_id = j.id")
    run_by = {row.worker_host for row in jobs if row.worker_host}  # none for a subtree skipped once one solved
    assert run_by == {a.hostname, b.hostname}
    assert all(row.outcome == "limit" for row in jobs if not row.worker_host)
    params = [json.loads(row.params) for row in jobs]
    assert {(p["split_depth"], p["heuristic"], p["pdb"]) for p in params} == {(4, "pdb-max", "6-6-3")}
    assert min(len(p["prefix"]) for p in params) == 4  # and longer where a subtree was split further
    assert max(p["bound"] for p in params) == 45 and len({p["bound"] for p in params}) > 1  # bound by bound
    assert [row.outcome for row in jobs].count("solved") == 1
