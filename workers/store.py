"""How jobs are claimed and their results stored: idempotent, and patient with the database.

`execute` is the one way a batch of jobs is run, by a Celery task and by the
local pool alike: claim the jobs, run them in a `JobRunner`, write their
results. A result is inserted with ON CONFLICT DO NOTHING on its unique job id,
so however often a job is delivered it keeps one result. Every database call is
retried while the server is unreachable, for up to `db_retry_seconds`.
"""

import json
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from sqlalchemy import Select, case, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from workers.db import Board, Job, Result, Sweep, utc_now
from workers.jobs import ERROR, JobResult, JobSpec
from workers.runner import JobRunner
from workers.settings import settings

FINAL = ("done", "failed")  # job statuses that have their result
FLUSH_SECONDS = 1.0  # a long batch writes its results at least this often
T = TypeVar("T")


def execute(engine: Engine, job_ids: list[int], runner: JobRunner, host: str) -> list[str]:
    """Claim, run and store a batch of jobs; the statuses of the results written, in order."""
    specs = retrying(lambda: claim(engine, job_ids, host))
    statuses: list[str] = []
    batch: list[tuple[int, JobResult]] = []
    flushed = time.monotonic()
    for spec, result in runner.run(specs):
        batch.append((spec.job_id, result.ran_by(host)))
        if time.monotonic() - flushed >= FLUSH_SECONDS:
            statuses += _flush(engine, batch)
            batch, flushed = [], time.monotonic()
    return statuses + _flush(engine, batch)


def claim(engine: Engine, job_ids: Iterable[int], host: str) -> list[JobSpec]:
    """Mark the unfinished jobs among `job_ids` running on `host`; their specs, in id order."""
    ids = list(job_ids)
    jobs = Job.__table__
    with engine.begin() as connection:
        connection.execute(
            update(jobs)
            .where(jobs.c.id.in_(ids), jobs.c.status.not_in(FINAL))
            .values(status="running", worker_host=host, started_at=utc_now(), attempts=jobs.c.attempts + 1)
        )
        rows = connection.execute(_specs_query(ids).where(jobs.c.status == "running", jobs.c.worker_host == host)).all()
        return [_spec(*row) for row in rows]


def job_specs(engine: Engine, job_ids: Iterable[int]) -> list[JobSpec]:
    """The specs of the jobs among `job_ids`, in id order, as `claim` gives them, but read only: nothing is claimed."""
    ids = list(job_ids)
    with engine.connect() as connection:
        return [
            _spec(*row)
            for start in range(0, len(ids), 10_000)
            for row in connection.execute(_specs_query(ids[start : start + 10_000])).all()
        ]


def record(engine: Engine, results: list[tuple[int, JobResult]]) -> None:
    """Store each job's result once and mark the job done (or failed, if it raised)."""
    if not results:
        return
    insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
    rows = [{"job_id": job_id, **result.to_row()} for job_id, result in results]
    jobs, stored = Job.__table__, Result.__table__  # Core statements: no ORM bookkeeping per row
    # The job's status follows the result that is stored, which a duplicate delivery never replaces.
    raised = select(stored.c.status).where(stored.c.job_id == jobs.c.id).scalar_subquery() == ERROR
    with engine.begin() as connection:
        connection.execute(insert(stored).on_conflict_do_nothing(index_elements=["job_id"]), rows)
        connection.execute(
            update(jobs)
            .where(jobs.c.id.in_([job_id for job_id, _ in results]))
            .values(status=case((raised, "failed"), else_="done"), finished_at=utc_now())
        )


def release(engine: Engine, job_ids: list[int], host: str) -> None:
    """Give back the jobs among `job_ids` that `host` holds unfinished (after Ctrl-C): pending again."""
    jobs = Job.__table__
    with engine.begin() as connection:
        for start in range(0, len(job_ids), 10_000):
            connection.execute(
                update(jobs)
                .where(jobs.c.id.in_(job_ids[start : start + 10_000]), jobs.c.status == "running", jobs.c.worker_host == host)
                .values(status="pending", worker_host=None)
            )


def retrying(operation: Callable[[], T]) -> T:
    """`operation()`, tried again with growing pauses while the database is unreachable."""
    give_up = time.monotonic() + settings().db_retry_seconds
    pause = 0.2
    while True:
        try:
            return operation()
        except (OperationalError, DBAPIError) as err:
            if not _disconnected(err) or time.monotonic() + pause > give_up:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 5.0)


def _flush(engine: Engine, batch: list[tuple[int, JobResult]]) -> list[str]:
    retrying(lambda: record(engine, batch))
    return [result.status for _, result in batch]


def _specs_query(ids: list[int]) -> Select:
    """The spec columns of the jobs among `ids`, in id order."""
    jobs = Job.__table__
    return (
        select(jobs.c.id, Board.id, Board.domain, Board.canonical_text, jobs.c.algorithm, jobs.c.params, jobs.c.seed,
               Sweep.limits)
        .join(Board, jobs.c.board_id == Board.id)
        .join(Sweep, jobs.c.sweep_id == Sweep.id)
        .where(jobs.c.id.in_(ids))
        .order_by(jobs.c.id)
    )


def _spec(
    job_id: int, board_id: str, domain: str, text: str, algorithm: str, params: str, seed: int | None, limits: dict[str, Any]
) -> JobSpec:
    return JobSpec(
        job_id=job_id,
        board_id=board_id,
        domain=domain,
        board_text=text,
        algorithm=algorithm,
        params=json.loads(params),
        seed=seed,
        max_nodes=limits.get("max_nodes"),
        time_limit=limits.get("time_limit"),
        memory_limit=limits.get("memory_limit"),
    )


def _disconnected(err: DBAPIError) -> bool:
    return isinstance(err, OperationalError) or err.connection_invalidated

