"""Many writers on one SQLite file (issue 35): local pools side by side, Celery workers, and a lock held too long.

SQLite has one writer at a time; the others wait for its lock (`SQLITE_WAIT_S`,
or the URL's `?timeout=`) and, past that, the workers' database calls are tried
again for `db_retry_seconds`. So many writers slow each other down but store
every result once; what fails is a lock held longer than both, by another
program, and its error says what to do.
"""

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.workers.cluster import CLI, SLOW_START_S, Cluster, _kill_group
from workers.failures import SQLITE_LOCKED
from workers.store.database import SCHEMA_HEAD, VERSION_TABLE

TRIVIAL_BOARD = "oooooooooooooAAooooooooooooooooooooo"  # the red car one move from the exit: a job of microseconds


def start_sweep(workdir: Path, url: str, name: str, jobs: int, workers: int) -> subprocess.Popen:
    """`orchestrate sweep` of `jobs` one-move bfs jobs on the local pool of `workers`, in the background."""
    log = (workdir / f"{name}.log").open("w")
    return subprocess.Popen([*CLI, "sweep", "--name", name, "--algo", "bfs", "--repeat", str(jobs), "--boards",
                             TRIVIAL_BOARD, "--workers", str(workers), "--db", url],
                            cwd=workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def finished(proc: subprocess.Popen, timeout: float = SLOW_START_S) -> int:
    """The exit status of `proc`, killed with its group if it outlives `timeout`."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise


def per_sweep(path: Path) -> dict[str, tuple[int, int, int]]:
    """Per sweep: its jobs, its results and the jobs with a result, read with plain SQL."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT s.name, count(DISTINCT j.id), count(r.id), count(DISTINCT r.job_id) FROM sweeps s"
            " JOIN jobs j ON j.sweep_id = s.id LEFT JOIN results r ON r.job_id = j.id GROUP BY s.name").fetchall()
    return {name: (jobs, results, done) for name, jobs, results, done in rows}


def spans(path: Path, sweep: str) -> tuple[str, str]:
    """When the sweep was stored and when its last job finished (ISO text, which sorts as time does)."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT s.created_at, max(r.finished_at) FROM results r JOIN jobs j ON j.id = r.job_id"
            " JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = ?", (sweep,)).fetchone()


def intact(path: Path) -> bool:
    """`PRAGMA integrity_check` says ok."""
    with sqlite3.connect(path) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_local_sweeps_of_eight_and_four_writers_on_one_file_store_every_result_once(tmp_path):
    path = tmp_path / "shared.db"
    url = f"sqlite:///{path}"
    # Each runs several times as long as a loaded machine may take to start either (once 4 s: a hog on one core).
    big, small = start_sweep(tmp_path, url, "big", 10_000, 8), start_sweep(tmp_path, url, "small", 6_000, 4)
    assert (finished(big), finished(small)) == (0, 0), [(tmp_path / f"{name}.log").read_text()[-2000:] for name in ("big", "small")]
    assert per_sweep(path) == {"big": (10_000, 10_000, 10_000), "small": (6_000, 6_000, 6_000)}
    # Each was stored while the other stored results: they wrote at the same time. (Their results' spans may not
    # overlap: eight writers taking the lock in turn can keep four others waiting, in SQLite's busy loop, to the end.)
    (big_stored, big_last), (small_stored, small_last) = spans(path, "big"), spans(path, "small")
    assert small_stored < big_last and big_stored < small_last
    logs = (tmp_path / "big.log").read_text() + (tmp_path / "small.log").read_text()
    assert "locked" not in logs and "error" not in logs.lower()
    assert intact(path)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_celery_workers_on_one_sqlite_file_store_every_result_once(redis_server, tmp_path):
    url = f"sqlite:///{tmp_path / 'celery.db'}"
    cluster = Cluster(tmp_path / "cluster", url, redis_server.url_for(8))
    try:
        cluster.orchestrate("db", "upgrade", "--db", url)
        cluster.workers_ready("a", "b", concurrency=2)
        cluster.sweep("--name", "celery", "--algo", "bfs", "--repeat", "1000", "--boards", TRIVIAL_BOARD,
                      "--chunk", "5", "--wait", timeout=SLOW_START_S)
        assert cluster.counts() == {"jobs": 1_000, "finished": 1_000, "results": 1_000, "doubled": 0}
        assert {row.worker_host.split("@")[0] for row in cluster.sql("SELECT DISTINCT worker_host FROM jobs")} == {"a", "b"}
        assert not any("locked" in worker.text() for worker in cluster.workers)
        assert intact(tmp_path / "celery.db")
    finally:
        cluster.close()
        cluster.report()


def test_a_lock_held_past_the_wait_fails_in_one_line_that_says_what_to_do_and_changes_nothing(tmp_path):
    path = tmp_path / "held.db"
    assert finished(start_sweep(tmp_path, f"sqlite:///{path}", "first", 5, 1)) == 0
    before = per_sweep(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program's transaction, left open
    try:
        run = subprocess.run([*CLI, "sweep", "--name", "second", "--algo", "bfs", "--repeat", "5", "--boards",
                              TRIVIAL_BOARD, "--db", f"sqlite:///{path}?timeout=1"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=SLOW_START_S)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [f"error: sqlite:///{path}?timeout=1: database is locked: {SQLITE_LOCKED}"]
    assert per_sweep(path) == before and intact(path)


def test_commands_that_open_a_new_file_at_once_make_its_schema_once_and_leave_it_in_wal_mode(tmp_path):
    """Two sweeps started together on a new file: neither creates the tables the other has just made, nor is told
    "locked" at once as it switches the file to WAL while the other does."""
    url = f"sqlite:///{tmp_path / 'new.db'}"
    together = time.time() + 3  # after every process's imports
    opening = ("import sys, time\nfrom workers.store.database import open_database\n"
               "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\nopen_database(sys.argv[1])")
    processes = [subprocess.Popen([sys.executable, "-c", opening, url, str(together)], stderr=subprocess.PIPE, text=True)
                 for _ in range(6)]
    failures = [err for process in processes if (err := process.communicate(timeout=SLOW_START_S)[1])]
    assert failures == [] and all(process.returncode == 0 for process in processes)
    with sqlite3.connect(tmp_path / "new.db") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall() == [(SCHEMA_HEAD,)]
