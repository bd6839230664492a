"""Celery tasks and the worker's hooks: thin adapters from a message of job ids to `workers.execute`.

The message's name, shape and checks are `workers.messages`: the task takes
the batch of job ids as its argument and the sweep as a keyword, and refuses a
malformed message before touching the database.

When the worker is ready, its heartbeat also re-queues the jobs of lost
workers and reconciles the broker with the database (`workers.recovery`). When
it is asked to stop (SIGTERM, Ctrl-C), its job processes are killed at once and
their jobs handed back to the queue.
"""

import logging
import threading
from functools import partial

from celery.signals import worker_ready, worker_shutting_down

from workers import dispatch, recovery
from workers.celery_app import app
from workers.execute import execute
from workers.heartbeat import heartbeat
from workers.messages import TASK, jobs_text, malformed
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import Database, connect

_local = threading.local()
_runners: list[JobRunner] = []  # every worker thread's, for the shutdown
log = logging.getLogger(__name__)


@app.task(name=TASK, bind=True)
def run_jobs(self, job_ids: list[int], take_over: list[list[int]] | None = None, sweep: str | None = None) -> int:
    """Run a batch of jobs (of `sweep`) in this worker thread's job process; the number of results stored.

    `take_over`: [job id, lease] pairs of jobs to take from other workers if they
    still hold them under that lease (sent by `resume --force`).
    """
    problem = malformed(job_ids, take_over, sweep)
    if problem:
        log.error("refused a message: %s", problem)
        return 0
    log.info("sweep %s: running %s", sweep or "-", jobs_text(job_ids))
    db = _database()
    host = self.request.hostname or "celery"
    leases = {job_id: lease for job_id, lease in take_over or []}
    return len(execute(db, job_ids, _runner(), host, partial(dispatch.send, db), take_over=leases))


@worker_ready.connect
def _on_ready(sender, **_) -> None:
    """The heartbeat starts, with the duties every worker shares; a broker that may evict jobs is warned of."""
    broker = settings().broker_url
    if broker and (warning := recovery.eviction_warning(broker)):
        log.warning(warning)
    recovery.watch(heartbeat(_database(), sender.hostname))


@worker_shutting_down.connect
def _on_shutdown(**_) -> None:
    """Kill every job process: the tasks return at once and hand their jobs back."""
    for runner in list(_runners):
        runner.stop()


def _database() -> Database:
    return connect(settings().database_url)


def _runner() -> JobRunner:
    if not hasattr(_local, "runner"):
        _local.runner = JobRunner()
        _runners.append(_local.runner)
    return _local.runner
