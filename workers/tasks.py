"""Celery tasks: thin adapters from a message of job ids to `workers.store.execute`."""

import threading

from workers.celery_app import app
from workers.execute import execute
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import connect

_local = threading.local()


@app.task(name="slidelab.run_jobs", bind=True)
def run_jobs(self, job_ids: list[int]) -> int:
    """Run a batch of jobs in this worker thread's job process; the number of results stored."""
    return len(execute(connect(settings().database_url), job_ids, _runner(), self.request.hostname or "celery"))


def _runner() -> JobRunner:
    if not hasattr(_local, "runner"):
        _local.runner = JobRunner()
    return _local.runner
