"""Celery tasks: thin adapters from a message of job ids to `workers.store.execute`.

A message names what it carries, so that Celery's own monitor (Flower) and
the worker's log read `slidelab.run_jobs[beam-k]` with `jobs=[12, 13, 14]`
and `sweep='beam-k'` rather than an id: the task is shadowed by a name with
its sweep, its job ids are its argument and the sweep a keyword.
"""

import logging
import threading

from workers.celery_app import app
from workers.execute import execute
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import connect

SHOWN_IDS = 10  # job ids written out in a message's description; more are counted
TASK = "slidelab.run_jobs"
_local = threading.local()
log = logging.getLogger(__name__)


@app.task(name=TASK, bind=True)
def run_jobs(self, job_ids: list[int], sweep: str | None = None) -> int:
    """Run a batch of jobs (of `sweep`) in this worker thread's job process; the number of results stored."""
    log.info("sweep %s: running %s", sweep or "-", jobs_text(job_ids))
    return len(execute(connect(settings().database_url), job_ids, _runner(), self.request.hostname or "celery"))


def send_jobs(job_ids: list[int], sweep: str, producer=None) -> None:
    """Queue a batch of the sweep's jobs, named for Flower and the logs: `slidelab.run_jobs[SWEEP]`, `jobs=[...]`."""
    run_jobs.apply_async(args=[job_ids], kwargs={"sweep": sweep}, shadow=f"{TASK}[{sweep}]", argsrepr=jobs_text(job_ids),
                         kwargsrepr=f"sweep={sweep!r}", producer=producer, retry=True, retry_policy={"max_retries": 3})


def jobs_text(job_ids: list[int]) -> str:
    """`jobs=[12, 13, 14]`, or the first SHOWN_IDS ids and how many more: `jobs=[1, ..., 10, +90 more]`."""
    shown = ", ".join(map(str, job_ids[:SHOWN_IDS]))
    more = f", +{len(job_ids) - SHOWN_IDS} more" if len(job_ids) > SHOWN_IDS else ""
    return f"jobs=[{shown}{more}]"


def _runner() -> JobRunner:
    if not hasattr(_local, "runner"):
        _local.runner = JobRunner()
    return _local.runner
