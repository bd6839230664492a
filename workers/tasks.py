"""Celery tasks and the worker's hooks: thin adapters from a message of job ids to `workers.execute`.

A message names what it carries, so that Celery's own monitor (Flower) and
the worker's log read `slidelab.run_jobs[beam-k]` with `jobs=[12, 13, 14]`
and `sweep='beam-k'` rather than an id: the task is shadowed by a name with
its sweep, its job ids are its argument and the sweep a keyword.

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
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import Database, connect

SHOWN_IDS = 10  # job ids written out in a message's description; more are counted
MAX_MESSAGE_JOBS = 10_000  # job ids in one message, at most (the orchestrator sends up to 100)
TASK = "slidelab.run_jobs"
_local = threading.local()
_runners: list[JobRunner] = []  # every worker thread's, for the shutdown
log = logging.getLogger(__name__)


@app.task(name=TASK, bind=True)
def run_jobs(self, job_ids: list[int], take_over: bool = False, sweep: str | None = None) -> int:
    """Run a batch of jobs (of `sweep`) in this worker thread's job process; the number of results stored.

    `take_over`: also the jobs other workers hold (sent by `resume --force`).
    """
    problem = malformed(job_ids, take_over, sweep)
    if problem:
        log.error("refused a message: %s", problem)
        return 0
    log.info("sweep %s: running %s", sweep or "-", jobs_text(job_ids))
    db = _database()
    host = self.request.hostname or "celery"
    return len(execute(db, job_ids, _runner(), host, partial(dispatch.send, db), take_over=take_over))


def send_jobs(job_ids: list[int], sweep: str | None, producer=None, *, take_over: bool = False) -> None:
    """Queue a batch of jobs, named for Flower and the logs: `slidelab.run_jobs[SWEEP]`, `jobs=[...]`."""
    kwargs = {"sweep": sweep} | ({"take_over": True} if take_over else {})
    run_jobs.apply_async(args=[job_ids], kwargs=kwargs, shadow=f"{TASK}[{sweep or '-'}]", argsrepr=jobs_text(job_ids),
                         kwargsrepr=", ".join(f"{key}={value!r}" for key, value in kwargs.items()), producer=producer,
                         retry=True, retry_policy={"max_retries": 3})


def malformed(job_ids: object, take_over: object, sweep: object) -> str | None:
    """What is wrong with a message's arguments (they may come from anyone who reaches the broker); None if nothing."""
    if not isinstance(job_ids, list) or not 0 < len(job_ids) <= MAX_MESSAGE_JOBS:
        return f"job ids must be a list of 1 to {MAX_MESSAGE_JOBS:,} ids, not {type(job_ids).__name__}"
    if not all(type(job_id) is int and 0 < job_id < 2**63 for job_id in job_ids):
        return "job ids must be positive whole numbers below 2^63"
    if type(take_over) is not bool or not (sweep is None or isinstance(sweep, str)):
        return "take_over must be true or false and sweep a name"
    return None


def jobs_text(job_ids: list[int]) -> str:
    """`jobs=[12, 13, 14]`, or the first SHOWN_IDS ids and how many more: `jobs=[1, ..., 10, +90 more]`."""
    shown = ", ".join(map(str, job_ids[:SHOWN_IDS]))
    more = f", +{len(job_ids) - SHOWN_IDS} more" if len(job_ids) > SHOWN_IDS else ""
    return f"jobs=[{shown}{more}]"


@worker_ready.connect
def _on_ready(sender, **_) -> None:
    """The heartbeat starts, with the duties every worker shares."""
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
