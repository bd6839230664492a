"""Cancel, resume and delete a sweep two real Celery workers run (issue 32 §1), on PostgreSQL and Redis.

The long jobs are IDA* with Manhattan on two of Korf's 24-puzzles (hours of work in a few MB): each worker
holds one when the sweep is cancelled; the 8-puzzles wait on the broker behind them.
"""

import re
import time

import pytest

from tests.polling import wait_for
from tests.workers import test_distributed
from tests.workers.cluster import SLOW_START_S, pid_alive, status_json
from tests.workers.test_cancel import EIGHT_PUZZLES, KORF24
from workers.messages import QUEUE

cluster = test_distributed.cluster  # the fixture: a fresh PostgreSQL database and Redis database number

GRID = ("--name", "endless", "--algo", "idastar", "--heuristic", "manhattan", "--chunk", "1")
BEAT = {"SLIDELAB_HEARTBEAT_SECONDS": "1"}


def states(cluster) -> dict[str, tuple]:
    """Each job's (state, attempts) by its board's place: k1, k2 (the 24-puzzles), then e0, e1, e2."""
    found = cluster.sql("SELECT id, status, attempts FROM jobs ORDER BY id")
    return {name: (row.status, row.attempts) for name, row in zip(("k1", "k2", "e0", "e1", "e2"), found)}


@pytest.mark.timeout(900)
def test_cancel_stops_both_workers_jobs_within_a_heartbeat_resume_queues_them_and_delete_waits_for_it(cluster):
    a, b = cluster.workers_ready("a", "b", env=BEAT)
    cluster.sweep(*GRID, f"{KORF24}#1", f"{KORF24}#2", *EIGHT_PUZZLES)
    wait_for(lambda: {row.worker_host for row in cluster.sql("SELECT worker_host FROM jobs WHERE status = 'running'")}
             == {a.hostname, b.hostname}, SLOW_START_S, "each worker to run a job")
    children = wait_for(lambda: len(a.job_processes() + b.job_processes()) == 2 and a.job_processes() + b.job_processes(),
                        SLOW_START_S, "the two job processes")

    refused = cluster.orchestrate("sweeps", "delete", "endless", "--yes", "--db", cluster.database_url, check=False)
    assert refused.returncode == 2 and (  # stderr: the tail of the command's log
        "\nerror: sweep 'endless' has 2 jobs running: stop them first with orchestrate cancel endless --wait\n"
        in refused.stderr), refused.stderr
    started = time.monotonic()
    said = cluster.orchestrate("cancel", "endless", "--wait", "--db", cluster.database_url, env=BEAT).stdout
    assert said.startswith("sweep endless: 3 waiting jobs cancelled; 2 running jobs stopped by their workers within 1 s"), said
    assert said.splitlines()[-1] == "sweep endless: 5 jobs ended cancelled", said
    wait_for(lambda: not any(pid_alive(pid) for pid in children), 30, "the job processes to be killed")
    assert time.monotonic() - started < 30  # a heartbeat (1 s) and a kill, on a busy machine
    wait_for(lambda: not cluster.redis.llen(QUEUE), 60, "the workers to take the waiting messages")
    assert states(cluster) == {"k1": ("cancelled", 1), "k2": ("cancelled", 1), "e0": ("cancelled", 0),
                               "e1": ("cancelled", 0), "e2": ("cancelled", 0)}  # the queued ones never started
    assert cluster.counts()["results"] == 0 and a.alive() and b.alive()
    assert status_json(cluster, "endless")["phase"] == "cancelled"

    resumed = cluster.orchestrate("resume", "endless", "--db", cluster.database_url, "--broker", cluster.broker_url)
    assert "5 cancelled jobs run again" in resumed.stdout and "queued 5 jobs" in resumed.stdout
    wait_for(lambda: [state for state, _ in states(cluster).values()].count("running") == 2, SLOW_START_S,
             "the long jobs to run again")  # the 8-puzzles, behind them, wait for a free worker
    cluster.orchestrate("cancel", "endless", "--wait", "--db", cluster.database_url)
    boards = cluster.scalar("SELECT count(*) FROM boards")
    deleted = cluster.orchestrate("sweeps", "delete", "endless", "--yes", "--db", cluster.database_url).stdout
    assert re.fullmatch(r"deleted sweep endless: 5 jobs, \d results? \(its boards stay\)", deleted.strip()), deleted
    assert (cluster.counts()["jobs"], cluster.scalar("SELECT count(*) FROM boards")) == (0, boards)
    assert a.alive() and b.alive()
