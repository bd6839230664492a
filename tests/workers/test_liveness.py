"""A real worker on the dashboard: online while its heartbeat beats, offline within a lease of a SIGTERM."""

import os
import signal

from orchestrator.publish.dashboard import hosts
from tests.polling import wait_for
from tests.workers.test_distributed import cluster  # noqa: F401  # the fixture: a fresh PostgreSQL and Redis
from workers.settings import configure
from workers.store.database import open_read_only

LEASE = {"SLIDELAB_LEASE_SECONDS": "6", "SLIDELAB_HEARTBEAT_SECONDS": "0.5"}


def test_a_worker_stopped_by_sigterm_turns_offline_on_the_dashboard_within_a_lease(cluster):  # noqa: F811
    configure(lease_seconds=6.0, heartbeat_seconds=0.5)  # the dashboard's reading of the same lease
    (worker,) = cluster.workers_ready("beating", env=LEASE)
    db = open_read_only(cluster.database_url)

    def shown() -> dict:
        return next((host for host in hosts(db) if host["host"] == worker.hostname), {})

    seen = wait_for(lambda: shown().get("online") and shown(), 60, "the idle worker to show online")
    assert seen["held"] == [] and seen["beat_at"] is not None
    os.kill(worker.pid, signal.SIGTERM)
    worker.proc.wait(30)
    gone = wait_for(lambda: (found := shown()) and found["online"] is False and found, 60, "it to show offline")
    assert gone["beat_at"] >= seen["beat_at"]
