"""How a batch of jobs is run, by a Celery task and by the local pool alike: claim, run in a job process, store.

Results are written at least every `FLUSH_SECONDS`, so a long batch shows its
progress; every database call is retried while the server is unreachable, for
up to the settings' `db_retry_seconds`.
"""

import time

from workers.jobs import ran_by
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import Database
from workers.store.database import retrying
from workers.store.jobs import claim, record
from workers.store.records import JobResult

FLUSH_SECONDS = 1.0  # a long batch writes its results at least this often


def execute(db: Database, job_ids: list[int], runner: JobRunner, host: str) -> list[str]:
    """Claim, run and store a batch of jobs; the outcomes of the results written, in order."""
    patience = settings().db_retry_seconds
    specs = retrying(lambda: claim(db, job_ids, host), patience)
    outcomes: list[str] = []
    batch: list[tuple[int, JobResult]] = []
    flushed = time.monotonic()
    for spec, result in runner.run(specs):
        batch.append((spec.job_id, ran_by(result, host)))
        if time.monotonic() - flushed >= FLUSH_SECONDS:
            outcomes += _flush(db, batch, patience)
            batch, flushed = [], time.monotonic()
    return outcomes + _flush(db, batch, patience)


def _flush(db: Database, batch: list[tuple[int, JobResult]], patience: float) -> list[str]:
    retrying(lambda: record(db, batch), patience)
    return [str(result.outcome) for _, result in batch]
