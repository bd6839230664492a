"""Jobs through their lifecycle: queued, claimed under a lease, done with a result stored once, given back or re-queued.

A claimed job names its worker and carries `lease_until`, which the worker's
heartbeat renews (`renew`); a job whose lease lapsed is re-queued by whoever
notices first (`requeue_lapsed`), and only one of them acts on it. A result is
inserted with ON CONFLICT DO NOTHING on its unique job id, so however often a
job is delivered or run it keeps one result, the first, and the job is `done`.
A job whose worker was lost `max_attempts` times is stored as an error.
"""

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, bindparam, false, func, or_, select, tuple_, update
from sqlalchemy.engine import Connection

from puzzles.textio import plural
from workers.store.database import Database
from workers.store.records import JobInput, JobResult, utc_now
from workers.store.schema import boards, database_now, jobs, results, sweeps
from workers.store.states import UNFINISHED, JobState

IN_CLAUSE = 10_000  # ids per IN (...) list


def claim(db: Database, job_ids: Iterable[int], host: str, lease_s: float, *,
          take_over: Mapping[int, int] | None = None) -> list[JobInput]:
    """Mark running on `host`, under a lease of `lease_s`, the jobs among `job_ids` that nobody else holds; their inputs.

    A job is free when it is pending or queued, or running under a lease that
    lapsed; one done is left alone, and so is one running under a live lease
    unless `take_over` names that very lease (`resume --force`: job id ->
    lease, as `held_leases` read it), so that a stale or replayed take-over
    cannot take a job leased again since.
    """
    ids = list(job_ids)
    replaced = [(job_id, take_over[job_id]) for job_id in ids if job_id in take_over] if take_over else []
    with db.engine.begin() as connection:
        now = database_now(connection)
        free = or_(jobs.c.status.in_((JobState.PENDING, JobState.QUEUED)), jobs.c.lease_until.is_(None),
                   jobs.c.lease_until < now, tuple_(jobs.c.id, jobs.c.attempts).in_(replaced) if replaced else false())
        taken = list(connection.scalars(
            update(jobs)
            .where(jobs.c.id.in_(ids), jobs.c.status.in_(UNFINISHED), free)
            .values(status=JobState.RUNNING, worker_host=host, started_at=now, attempts=jobs.c.attempts + 1,
                    lease_until=now + timedelta(seconds=lease_s))
            .returning(jobs.c.id)
        ))
        return [_input(*row) for row in connection.execute(_inputs_query(taken)).all()] if taken else []


def held_leases(db: Database, job_ids: list[int]) -> dict[int, int]:
    """The lease of each running job among `job_ids` (job id -> its claim's number: the job's attempts so far)."""
    with db.engine.connect() as connection:
        return {job_id: attempts for batch in _batches(job_ids) for job_id, attempts in connection.execute(
            select(jobs.c.id, jobs.c.attempts).where(jobs.c.id.in_(batch), jobs.c.status == JobState.RUNNING))}


def renew(db: Database, job_ids: list[int], host: str, lease_s: float) -> set[int]:
    """Extend by `lease_s` from now the leases `host` holds among `job_ids`, in one UPDATE; the ids it still holds."""
    with db.engine.begin() as connection:
        until = database_now(connection) + timedelta(seconds=lease_s)
        return {
            job_id
            for batch in _batches(job_ids)
            for job_id in connection.scalars(
                update(jobs)
                .where(jobs.c.id.in_(batch), jobs.c.status == JobState.RUNNING, jobs.c.worker_host == host)
                .values(lease_until=until)
                .returning(jobs.c.id)
            )
        }


def skip(db: Database, job_ids: list[int], result: JobResult) -> int:
    """Finish the jobs among `job_ids` that no worker holds (pending or queued) with `result`; how many.

    A job claimed meanwhile keeps running and its result, stored later, is the one kept.
    """
    now = utc_now()
    with db.engine.begin() as connection:
        done: list[int] = []
        for batch in _batches(job_ids):
            done += connection.execute(
                update(jobs)
                .where(jobs.c.id.in_(batch), jobs.c.status.in_((JobState.PENDING, JobState.QUEUED)))
                .values(status=JobState.DONE, outcome=result.outcome, finished_at=now, seconds=result.run_seconds())
                .returning(jobs.c.id)
            ).scalars().all()
        if done:
            rows = [{"job_id": job_id, **_stamped_row(result, now)} for job_id in done]
            connection.execute(db.insert(results).on_conflict_do_nothing(index_elements=["job_id"]), rows)
    return len(done)


def requeue_lapsed(db: Database, state: JobState, max_attempts: int) -> tuple[list[int], list[int]]:
    """Put the running jobs whose lease lapsed in `state` (queued, or pending without a broker), counting a loss each.

    Those lost `max_attempts` times are stored as errors instead. Concurrent
    callers never act on the same job: PostgreSQL's FOR UPDATE SKIP LOCKED
    gives each row to one of them, SQLite has a single writer. (ids put in
    `state`, ids stored as errors.)
    """
    with db.engine.begin() as connection:
        lapsed = (jobs.c.status == JobState.RUNNING, jobs.c.lease_until < database_now(connection))
        mine = select(jobs.c.id).where(*lapsed).with_for_update(skip_locked=True)
        rows = connection.execute(
            update(jobs)
            .where(jobs.c.id.in_(mine), *lapsed)
            .values(status=state, lease_until=None, lost=jobs.c.lost + 1)
            .returning(jobs.c.id, jobs.c.lost, jobs.c.worker_host)
        ).all()
        poisoned = {job_id: _lost_text(lost, f"the lease of {host} lapsed")
                    for job_id, lost, host in rows if lost >= max_attempts}
        _store_failures(db, connection, poisoned)
    return sorted(job_id for job_id, _, _ in rows if job_id not in poisoned), sorted(poisoned)


def lose(db: Database, causes: dict[int, str], host: str, max_attempts: int) -> list[int]:
    """Count a loss for each job `host` holds among `causes` (its job process died: why); the ids to run again.

    A job lost `max_attempts` times is stored as an error instead.
    """
    with db.engine.begin() as connection:
        rows = connection.execute(
            update(jobs)
            .where(jobs.c.id.in_(list(causes)), jobs.c.status == JobState.RUNNING, jobs.c.worker_host == host)
            .values(lost=jobs.c.lost + 1)
            .returning(jobs.c.id, jobs.c.lost)
        ).all()
        poisoned = {job_id: _lost_text(lost, causes[job_id]) for job_id, lost in rows if lost >= max_attempts}
        _store_failures(db, connection, poisoned)
        again = sorted(job_id for job_id, _ in rows if job_id not in poisoned)
        if again:
            connection.execute(update(jobs).where(jobs.c.id.in_(again)).values(attempts=jobs.c.attempts + 1))
    return again


def record(db: Database, stored: list[tuple[int, JobResult]]) -> set[int]:
    """Store each job's result unless it has one already, and mark the jobs done; the ids whose result was already there."""
    if not stored:
        return set()
    with db.engine.begin() as connection:
        return {job_id for job_id, _ in stored} - _store(db, connection, stored)


def give_back(db: Database, job_ids: list[int], host: str, state: JobState) -> list[int]:
    """Put the jobs among `job_ids` that `host` holds unfinished in `state` (pending, or queued to be sent); their ids.

    Those cancelled meanwhile stay cancelled, their leases released.
    """
    given: list[int] = []
    mine = (jobs.c.worker_host == host,)
    with db.engine.begin() as connection:
        for batch in _batches(job_ids):
            given += connection.scalars(
                update(jobs)
                .where(jobs.c.id.in_(batch), jobs.c.status == JobState.RUNNING, *mine)
                .values(status=state, worker_host=None, lease_until=None)
                .returning(jobs.c.id)
            )
            connection.execute(update(jobs).where(jobs.c.id.in_(batch), jobs.c.status == JobState.CANCELLED, *mine)
                               .values(lease_until=None))
    return sorted(given)


def cancelled_among(db: Database, job_ids: list[int]) -> set[int]:
    """The jobs among `job_ids` that were cancelled."""
    with db.engine.connect() as connection:
        return {job_id for batch in _batches(job_ids) for job_id in connection.scalars(
            select(jobs.c.id).where(jobs.c.id.in_(batch), jobs.c.status == JobState.CANCELLED))}


def mark_queued(db: Database, job_ids: list[int]) -> None:
    """Mark the pending jobs among `job_ids` queued: their messages are on the broker."""
    with db.engine.begin() as connection:
        for batch in _batches(job_ids):
            connection.execute(
                update(jobs).where(jobs.c.id.in_(batch), jobs.c.status == JobState.PENDING).values(status=JobState.QUEUED)
            )


def queued_ids(db: Database) -> set[int]:
    """The ids of every queued job, of every sweep: those the broker should be carrying."""
    with db.engine.connect() as connection:
        return set(connection.scalars(select(jobs.c.id).where(jobs.c.status == JobState.QUEUED)))


def job_inputs(db: Database, job_ids: Iterable[int]) -> list[JobInput]:
    """The inputs of the jobs among `job_ids`, in id order, as `claim` gives them, but read only: nothing is claimed."""
    with db.engine.connect() as connection:
        return [_input(*row) for batch in _batches(list(job_ids)) for row in connection.execute(_inputs_query(batch)).all()]


def _lost_text(lost: int, cause: str) -> str:
    return f"its worker was lost {plural(lost, 'time')} (the last time: {cause})"


def _store(db: Database, connection: Connection, stored: list[tuple[int, JobResult]]) -> set[int]:
    """Insert the results of jobs that have none and mark every one of the jobs done; the ids inserted.

    A result that does not say when it finished is stamped with the time its job is marked done. The rows go
    as one executemany without RETURNING, which psycopg pipelines with its statement parsed once (RETURNING
    makes SQLAlchemy write them into long statements that psycopg parses in Python; see
    docs/notes/2026-12-06-dashboard-at-a-million.md); the ids inserted are those without a result just before.
    """
    now = utc_now()
    ids = [job_id for job_id, _ in stored]
    there = {job_id for batch in _batches(ids)
             for job_id in connection.scalars(select(results.c.job_id).where(results.c.job_id.in_(batch)))}
    rows = [{"job_id": job_id, **_stamped_row(result, now)} for job_id, result in stored]
    connection.execute(db.insert(results).on_conflict_do_nothing(index_elements=["job_id"]), rows)
    connection.execute(
        update(jobs).where(jobs.c.id == bindparam("done_id"))
        .values(status=JobState.DONE, outcome=_stored_outcome(), finished_at=now, lease_until=None,
                seconds=func.coalesce(jobs.c.seconds, bindparam("done_seconds"))),  # the first result's, as it is kept
        [{"done_id": job_id, "done_seconds": result.run_seconds()} for job_id, result in stored],
    )
    return set(ids) - there


def _stamped_row(result: JobResult, now: datetime) -> dict[str, Any]:
    """The result's row, its finish `now` if it has none (the dashboard reads a host's results by their finish)."""
    row = result.to_row()
    if row["finished_at"] is None:
        row["finished_at"] = now
    return row


def _store_failures(db: Database, connection: Connection, errors: dict[int, str]) -> None:
    """Store an `error` result saying why for each job (made here, by no job process)."""
    failures = [(job_id, JobResult.failure(text)) for job_id, text in errors.items()]
    for _, result in failures:
        result.finished_at = utc_now()
    if failures:
        _store(db, connection, failures)


def _stored_outcome() -> Any:
    """The outcome of the job's result, which its row repeats (for counts by GROUP BY over the row's index)."""
    return select(results.c.outcome).where(results.c.job_id == jobs.c.id).scalar_subquery()


def _batches(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), IN_CLAUSE):
        yield ids[start : start + IN_CLAUSE]


def _inputs_query(ids: list[int]) -> Select:
    """The columns of the inputs of the jobs among `ids`, in id order."""
    return (
        select(jobs.c.id, boards.c.id, boards.c.domain, boards.c.canonical_text, jobs.c.algorithm, jobs.c.params,
               jobs.c.seed, sweeps.c.limits, jobs.c.plugins)
        .join(boards, jobs.c.board_id == boards.c.id)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .where(jobs.c.id.in_(ids))
        .order_by(jobs.c.id)
    )


def _input(
    job_id: int, board_id: str, domain: str, text: str, algorithm: str, params: dict[str, Any], seed: int | None,
    limits: dict[str, Any], plugins: str | None,
) -> JobInput:
    return JobInput(
        job_id=job_id,
        board_id=board_id,
        domain=domain,
        board_text=text,
        algorithm=algorithm,
        params=params,
        seed=seed,
        max_nodes=limits.get("max_nodes"),
        time_limit=limits.get("time_limit"),
        memory_limit=limits.get("memory_limit"),
        plugins=plugins,
    )
