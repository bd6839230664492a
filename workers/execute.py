"""How a batch of jobs is run, by a Celery task and by the local pool alike: claim, run in a job process, store.

The claimed jobs' leases are renewed by this process's heartbeat while they run.
Results are written at least every `FLUSH_SECONDS`, so a long batch shows its
progress; every database call is retried while the server is unreachable, for
up to the settings' `db_retry_seconds`. A job whose process died under it runs
again, until it was lost `max_attempts` times; a runner stopped from outside
(shutdown, Ctrl-C) hands its unfinished jobs back at once, or stores them with
the runner's verdict when it was stopped with one (their answer no longer wanted).
A batch whose jobs are cancelled (`orchestrate cancel`) is stopped by the
heartbeat: the jobs stay cancelled, and the runner goes on with the next batch.
"""

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace

from puzzles.textio import plural
from workers.heartbeat import heartbeat
from workers.jobs import ran_by, stamped
from workers.runner import JobRunner, Lost
from workers.settings import settings
from workers.store import Database
from workers.store.database import DatabaseError, retrying
from workers.store.jobs import claim, give_back, lose, record
from workers.store.records import JobInput, JobResult
from workers.store.states import JobState

FLUSH_SECONDS = 1.0  # a long batch writes its results at least this often
log = logging.getLogger(__name__)


def execute(db: Database, job_ids: list[int], runner: JobRunner, host: str,
            requeue: Callable[[list[int]], object] | None = None, *,
            take_over: Mapping[int, int] | None = None) -> list[str]:
    """Claim, run and store a batch of jobs; the outcomes of the results written, in order.

    Jobs left without a result by a stopped runner are handed back: queued and
    passed to `requeue` (which sends them to the broker) if given, else pending;
    or, if it was stopped with a verdict, stored with that result.
    `take_over` (job id -> lease) claims those jobs even where another worker
    still holds them under that lease (`resume --force`).
    """
    patience = settings().db_retry_seconds
    jobs = retrying(lambda: claim(db, job_ids, host, settings().lease_seconds, take_over=take_over), patience)
    try:
        return _execute(db, jobs, runner, host, requeue, patience)
    except DatabaseError:
        with contextlib.suppress(DatabaseError):  # no room or no database: then their leases lapse
            _hand_back(db, [job.job_id for job in jobs], host, requeue)
        raise
    finally:
        runner.rearm()


def _execute(db: Database, jobs: list[JobInput], runner: JobRunner, host: str,
             requeue: Callable[[list[int]], object] | None, patience: float) -> list[str]:
    """Run and store the claimed jobs (see `execute`); the outcomes of the results written."""
    writer = _Writer(db, patience)
    with heartbeat(db, host).holding((job.job_id for job in jobs), lambda: runner.stop(batch_only=True)):
        while jobs and not runner.stopping:
            jobs = _run_once(db, jobs, runner, host, writer)
        if runner.stopping and runner.verdict is not None:
            for job in jobs:
                writer.add(job.job_id, ran_by(stamped(replace(runner.verdict), job), host))
            jobs = []
        writer.flush()
        if runner.stopping and jobs:
            retrying(lambda: _hand_back(db, [job.job_id for job in jobs], host, requeue), patience)
    return writer.outcomes


def _hand_back(db: Database, job_ids: list[int], host: str, requeue: Callable[[list[int]], object] | None) -> None:
    """The jobs this host holds among `job_ids`, without a result, queued again (and sent) or pending."""
    state = JobState.QUEUED if requeue else JobState.PENDING
    given = give_back(db, job_ids, host, state)
    log.info("stopped: %s handed back (%s)", plural(len(given), "job"), state)
    if requeue and given:
        requeue(given)


def _run_once(db: Database, jobs: list[JobInput], runner: JobRunner, host: str, writer: "_Writer") -> list[JobInput]:
    """Run the jobs, storing their results; those still to run: lost ones to run again, or all left if stopped."""
    lost: dict[int, str] = {}
    finished: set[int] = set()
    for job, result in runner.run(jobs):
        finished.add(job.job_id)
        if isinstance(result, Lost):
            lost[job.job_id] = result.cause
        else:
            writer.add(job.job_id, ran_by(result, host))
    if runner.stopping:
        return [job for job in jobs if job.job_id not in finished or job.job_id in lost]
    again = set(retrying(lambda: lose(db, lost, host, settings().max_attempts), writer.patience)) if lost else set()
    if lost:
        log.warning("jobs %s: their job process died; %d to run again", sorted(lost), len(again))
    return [job for job in jobs if job.job_id in again]


class _Writer:
    """Results collected and stored in batches, at least every FLUSH_SECONDS; the outcomes of those written."""

    def __init__(self, db: Database, patience: float) -> None:
        self.db, self.patience = db, patience
        self.outcomes: list[str] = []
        self._batch: list[tuple[int, JobResult]] = []
        self._flushed = time.monotonic()

    def add(self, job_id: int, result: JobResult) -> None:
        """Keep a result; store the batch if the last store was FLUSH_SECONDS ago."""
        self._batch.append((job_id, result))
        if time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Store the results kept."""
        batch, self._batch, self._flushed = self._batch, [], time.monotonic()
        if not batch:
            return
        late = retrying(lambda: record(self.db, batch), self.patience)
        if late:
            log.warning("jobs %s: another worker stored their result first (their lease had lapsed); ours was dropped",
                        sorted(late))
        self.outcomes += [str(result.outcome) for _, result in batch]
