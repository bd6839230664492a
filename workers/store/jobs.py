"""Jobs through their lifecycle: queued, claimed by a worker, done with a result stored once, or given back.

A result is inserted with ON CONFLICT DO NOTHING on its unique job id, so
however often a job is delivered it keeps one result, and the job is `done`.
"""

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Select, select, update

from workers.store.database import Database
from workers.store.records import JobResult, JobSpec
from workers.store.schema import boards, jobs, results, sweeps, utc_now
from workers.store.states import UNFINISHED, JobState

IN_CLAUSE = 10_000  # ids per IN (...) list


def claim(db: Database, job_ids: Iterable[int], host: str) -> list[JobSpec]:
    """Mark the unfinished jobs among `job_ids` running on `host`; their specs, in id order."""
    ids = list(job_ids)
    with db.engine.begin() as connection:
        connection.execute(
            update(jobs)
            .where(jobs.c.id.in_(ids), jobs.c.status.in_(UNFINISHED))
            .values(status=JobState.RUNNING, worker_host=host, started_at=utc_now(), attempts=jobs.c.attempts + 1)
        )
        held = _specs_query(ids).where(jobs.c.status == JobState.RUNNING, jobs.c.worker_host == host)
        return [_spec(*row) for row in connection.execute(held).all()]


def job_specs(db: Database, job_ids: Iterable[int]) -> list[JobSpec]:
    """The specs of the jobs among `job_ids`, in id order, as `claim` gives them, but read only: nothing is claimed."""
    with db.engine.connect() as connection:
        return [_spec(*row) for batch in _batches(list(job_ids)) for row in connection.execute(_specs_query(batch)).all()]


def record(db: Database, stored: list[tuple[int, JobResult]]) -> None:
    """Store each job's result once and mark the job done."""
    if not stored:
        return
    rows = [{"job_id": job_id, **result.to_row()} for job_id, result in stored]
    with db.engine.begin() as connection:
        connection.execute(db.insert(results).on_conflict_do_nothing(index_elements=["job_id"]), rows)
        connection.execute(
            update(jobs)
            .where(jobs.c.id.in_([job_id for job_id, _ in stored]))
            .values(status=JobState.DONE, finished_at=utc_now())
        )


def skip(db: Database, job_ids: list[int], result: JobResult) -> int:
    """Finish the jobs among `job_ids` that no worker holds (pending or queued) with `result`; how many.

    A job claimed meanwhile keeps running and its result, stored later, is the one kept.
    """
    with db.engine.begin() as connection:
        done: list[int] = []
        for batch in _batches(job_ids):
            done += connection.execute(
                update(jobs)
                .where(jobs.c.id.in_(batch), jobs.c.status.in_((JobState.PENDING, JobState.QUEUED)))
                .values(status=JobState.DONE, finished_at=utc_now())
                .returning(jobs.c.id)
            ).scalars().all()
        if done:
            rows = [{"job_id": job_id, **result.to_row()} for job_id in done]
            connection.execute(db.insert(results).on_conflict_do_nothing(index_elements=["job_id"]), rows)
    return len(done)


def release(db: Database, job_ids: list[int], host: str) -> None:
    """Give back the jobs among `job_ids` that `host` holds unfinished (after Ctrl-C): pending again."""
    with db.engine.begin() as connection:
        for batch in _batches(job_ids):
            connection.execute(
                update(jobs)
                .where(jobs.c.id.in_(batch), jobs.c.status == JobState.RUNNING, jobs.c.worker_host == host)
                .values(status=JobState.PENDING, worker_host=None)
            )


def mark_queued(db: Database, job_ids: list[int]) -> None:
    """Mark the pending jobs among `job_ids` queued: their messages are on the broker."""
    with db.engine.begin() as connection:
        for batch in _batches(job_ids):
            connection.execute(
                update(jobs).where(jobs.c.id.in_(batch), jobs.c.status == JobState.PENDING).values(status=JobState.QUEUED)
            )


def _batches(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), IN_CLAUSE):
        yield ids[start : start + IN_CLAUSE]


def _specs_query(ids: list[int]) -> Select:
    """The spec columns of the jobs among `ids`, in id order."""
    return (
        select(jobs.c.id, boards.c.id, boards.c.domain, boards.c.canonical_text, jobs.c.algorithm, jobs.c.params,
               jobs.c.seed, sweeps.c.limits)
        .join(boards, jobs.c.board_id == boards.c.id)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
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
