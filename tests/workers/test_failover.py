"""PostgreSQL fails over to a replica that lags: the results it never received are missed, counted and run again.

A job's result and its `done` mark are one transaction, so any copy of the
database holds each job either done with its result or unfinished (queued, or
running under a lease that lapses); the workers' lease watch and queue
comparison then run the unfinished ones again, without `resume`. The test's
server is its own: a failover replaces its whole data directory.
"""

import time

import pytest

from tests.polling import wait_for
from tests.services.postgres_service import PostgresServer
from tests.workers.cluster import COMPARED, MANY_BOARDS, MANY_GRID, MANY_JOBS, SLOW_START_S, assert_one_result_per_job, board_paths, fresh_cluster, status_json


@pytest.fixture
def own_postgres():
    """A PostgreSQL server for this test alone."""
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_results_a_lagging_replica_never_received_are_counted_unfinished_and_run_again(
        own_postgres, redis_server, boards_dir, tmp_path):
    with fresh_cluster(own_postgres, redis_server.url_for(8), tmp_path) as cluster:
        workers = cluster.workers_ready("a", "b", env={"SLIDELAB_RECONCILE_SECONDS": "5"})  # 30 s by default
        cluster.sweep(*MANY_GRID, "--name", "failover", "--boards", *board_paths(boards_dir, MANY_BOARDS))
        wait_for(lambda: cluster.counts()["results"] >= 10, SLOW_START_S, "the first results")
        replica = own_postgres.replica()  # stops following the primary here
        at_copy = cluster.counts()["results"]
        assert at_copy < MANY_JOBS - 50, f"the sweep was almost done when the replica stopped following: {at_copy}"
        cluster.wait_finished(MANY_JOBS)
        acknowledged = cluster.results("failover")

        own_postgres.fail_over(replica)
        back_at = time.monotonic()
        survived = wait_for(cluster.tolerant_counts, 60, "the replica to answer")
        status = status_json(cluster, "failover")
        print(f"\nMEASURED failover to a replica {MANY_JOBS - survived['results']} results behind")
        assert survived["results"] <= at_copy + 4 < MANY_JOBS, survived  # at most the copy's own seconds' worth
        assert survived == {**survived, "finished": survived["results"], "doubled": 0}  # no job done without its result
        assert (status["total"], status["finished"], status["complete"]) == (MANY_JOBS, survived["finished"], False)

        cluster.wait_finished(MANY_JOBS)
        print(f"MEASURED failover to a lagging replica -> sweep done again: {time.monotonic() - back_at:.1f} s")
        assert_one_result_per_job(cluster, MANY_JOBS)
        again = cluster.results("failover")
        assert {key: [row[c] for c in COMPARED] for key, row in again.items()} == {
            key: [row[c] for c in COMPARED] for key, row in acknowledged.items()}
        assert all(worker.alive() for worker in workers)
