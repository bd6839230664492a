"""Every kind of experiment through the one driver on the Celery queue: real workers, PostgreSQL and Redis.

For each kind, in one cluster: the experiment is cancelled at its first
progress (its proposer proposes nothing more), resumed and stopped by Ctrl-C,
then the worker holding its jobs is killed (lost: its leases lapse and the
driver re-queues its jobs) and a resume on another worker finishes it.
"""

import os
import signal

import pytest
import sqlalchemy as sa

from slidelab import experiments
from tests.orchestrator.test_experiments import EXPERIMENT, KINDS, _once
from tests.workers import test_distributed
from workers.settings import configure
from workers.store import connect
from workers.store.sweeps import find

cluster = test_distributed.cluster  # the fixture: a fresh PostgreSQL database and Redis database number
SHORT_LEASE = {"SLIDELAB_LEASE_SECONDS": "4", "SLIDELAB_HEARTBEAT_SECONDS": "1"}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_cancel_ctrl_c_and_a_lost_worker_then_resume_finish_the_experiment_on_the_workers(cluster, kind, monkeypatch):
    for key, value in {**SHORT_LEASE, "SLIDELAB_BROKER_URL": cluster.broker_url}.items():
        monkeypatch.setenv(key, value)
    configure()
    url, name = cluster.database_url, EXPERIMENT[kind.name]
    first, = cluster.workers_ready("a", concurrency=2, env=SHORT_LEASE)
    kind.start(url, _once(lambda: experiments.cancel(name, db=url)))
    assert find(connect(url), name).cancelled_at is not None and not kind.finished(url)

    with pytest.raises(KeyboardInterrupt):  # its workers may finish what they were sent: nothing more is proposed
        experiments.resume(name, db=url, on_progress=_once(lambda: os.kill(os.getpid(), signal.SIGINT)))

    first.kill()  # lost with the jobs it held: their leases lapse, the resume re-queues them
    with cluster.engine.begin() as connection:  # one more held by it, should it have run every job it was sent
        held = connection.execute(sa.text(
            "UPDATE jobs SET status = 'running', worker_host = :host, lease_until = now() + interval '2 s'"
            " WHERE id = (SELECT min(id) FROM jobs WHERE status IN ('pending', 'queued')) RETURNING id"),
            {"host": first.hostname}).scalar()
    second, = cluster.workers_ready("b", concurrency=2, env=SHORT_LEASE)
    resumed = experiments.resume(name, db=url)
    assert kind.finished(url) and not resumed.ended.cancelled
    if held is not None:
        assert cluster.sql("SELECT status, worker_host FROM jobs WHERE id = :id", id=held)[0] == ("done", second.hostname)
    configure()
