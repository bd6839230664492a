"""Sweeps and their job rows: stored once by name, extended with the jobs they lack, run again, cancelled, deleted.

A cancelled sweep's unfinished jobs are in the state `cancelled` at once:
no worker claims them, and the heartbeat of a worker running one sees it
(its lease is no longer renewed) and stops it. Deleting a sweep removes its
jobs and their results, never a board, and is refused while a job of it runs.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, case, delete, func, or_, select, update
from sqlalchemy.engine import Connection, RowMapping

from puzzles.errors import PuzzleError
from puzzles.textio import plural
from workers.store.database import Database
from workers.store.records import JobResult, JobRow, PlannedJob, utc_now
from workers.store.schema import RESULT_FIELDS, boards, canonical_params, database_now, jobs, results, sweeps
from workers.store.states import UNFINISHED, JobState, Outcome

if TYPE_CHECKING:
    from puzzles.domains import Instance

INSERT_CHUNK = 5_000  # rows per INSERT statement
# The columns a new job's row is copied with (PostgreSQL); the others are NULL until it runs.
COPIED = ("sweep_id", "board_id", "algorithm", "params", "seed", "repeat", "job_key", "plugins", "status", "attempts",
          "lost", "created_at")
WAITING = (JobState.PENDING, JobState.QUEUED)
HELD = (JobState.RUNNING, JobState.CANCELLED)  # a worker may hold these while their lease lives
# A job's columns and its result's, as `job_row` reads them (with the results table outer-joined on the job).
JOB_COLUMNS = (jobs.c.id.label("job_id"), jobs.c.board_id, jobs.c.algorithm, jobs.c.params, jobs.c.seed, jobs.c.repeat,
               jobs.c.status, jobs.c.worker_host, jobs.c.plugins, *(results.c[name] for name in RESULT_FIELDS))


class ExperimentKind(StrEnum):
    """What an experiment (a row of `sweeps`) is, and so how its `definition` reads and who proposes its jobs."""

    GRID = "grid"  # a sweep: every job of a grid, proposed at once
    STUDY = "study"  # Optuna proposes parameter points, each run as a sweep of that point would run it
    SPLIT = "split"  # one IDA* search, bound by bound, as subtree jobs
    OPTIMUM = "optimum"  # a job per board lacking a known optimum, an optimal search each

    @property
    def noun(self) -> str:
        """The kind in a sentence: a sweep, a study, a split search, an optimum proof."""
        return {"grid": "a sweep", "study": "a study", "split": "a split search", "optimum": "an optimum proof"}[self.value]


@dataclass(frozen=True)
class SweepRow:
    """A stored experiment: its id, name, creation time, kind, definition (JSON, as its kind writes it), limits, and
    when it was cancelled (None unless it is)."""

    id: int
    name: str
    created_at: datetime
    kind: ExperimentKind
    definition: dict[str, Any]
    limits: dict[str, Any]
    cancelled_at: datetime | None = None


_ROW = (sweeps.c.id, sweeps.c.name, sweeps.c.created_at, sweeps.c.kind, sweeps.c.definition, sweeps.c.limits,
        sweeps.c.cancelled_at)


def _sweep_row(row: Any) -> SweepRow:
    return SweepRow(row.id, row.name, row.created_at, ExperimentKind(row.kind), row.definition, row.limits,
                    row.cancelled_at)


def find(db: Database, name: str) -> SweepRow | None:
    """The experiment called `name`, or None."""
    with db.engine.connect() as connection:
        row = connection.execute(select(*_ROW).where(sweeps.c.name == name)).one_or_none()
    return _sweep_row(row) if row else None


def newest(db: Database) -> SweepRow | None:
    """The experiment made last, or None."""
    with db.engine.connect() as connection:
        row = connection.execute(select(*_ROW).order_by(sweeps.c.id.desc()).limit(1)).one_or_none()
    return _sweep_row(row) if row else None


def is_cancelled(db: Database, sweep_id: int) -> bool:
    """Whether the experiment was cancelled and not resumed since: its driver then proposes nothing more."""
    with db.engine.connect() as connection:
        return connection.scalar(select(sweeps.c.cancelled_at).where(sweeps.c.id == sweep_id)) is not None


def recent_names(db: Database, count: int = 5) -> list[str]:
    """The names of the `count` sweeps made last, newest first."""
    with db.engine.connect() as connection:
        return list(connection.scalars(select(sweeps.c.name).order_by(sweeps.c.id.desc()).limit(count)))


def save(
    db: Database,
    name: str,
    kind: ExperimentKind,
    definition: dict[str, Any],
    limits: dict[str, Any],
    instances: "Iterable[Instance]",
    planned: list[PlannedJob],
    *,
    rerun: bool = False,
) -> tuple[int, int]:
    """Write the experiment (made, or its definition and limits replaced), its boards and the jobs it lacks: (its id,
    jobs added).

    Jobs are keyed by `job_key`: one already stored is kept as it is. With
    `rerun`, the results of the given jobs are deleted and they are pending again.
    """
    with db.engine.begin() as connection:
        sweep_id = _sweep_id(connection, name, kind, definition, limits)
        store_boards(db, connection, instances)
        insert = _copy_jobs if db.engine.dialect.name == "postgresql" else _insert_jobs
        added = insert(db, connection, sweep_id, planned)
        if rerun:
            _reset(connection, sweep_id, [job.job_key for job in planned])
    return sweep_id, added


def _insert_jobs(db: Database, connection: Connection, sweep_id: int, planned: list[PlannedJob]) -> int:
    """The sweep's jobs the database lacks inserted, INSERT_CHUNK rows a statement; how many."""
    before = _job_count(connection, sweep_id)
    rows = [{"board_id": job.board_id, "algorithm": job.algorithm, "params": job.params, "seed": job.seed,
             "repeat": job.repeat, "job_key": job.job_key, "plugins": job.plugins, "sweep_id": sweep_id} for job in planned]
    for start in range(0, len(rows), INSERT_CHUNK):
        statement = db.insert(jobs).on_conflict_do_nothing(index_elements=["job_key"])
        connection.execute(statement, rows[start : start + INSERT_CHUNK])
    return _job_count(connection, sweep_id) - before


def _copy_jobs(db: Database, connection: Connection, sweep_id: int, planned: list[PlannedJob]) -> int:
    """On PostgreSQL, the sweep's jobs the database lacks inserted by COPY into a temporary table and one INSERT from
    it; how many. The rows cross as one stream rather than as a statement's parameters each (200,000 jobs, side by
    side on one server: 5.4 s against 9.0 s by `_insert_jobs`)."""
    columns = ", ".join(COPIED)
    connection.exec_driver_sql(f"CREATE TEMPORARY TABLE new_jobs ON COMMIT DROP AS SELECT {columns} FROM jobs WITH NO DATA")
    now = utc_now()
    driver: Any = connection.connection.driver_connection  # psycopg's own connection, for its COPY
    with driver.cursor() as cursor:
        with cursor.copy(f"COPY new_jobs ({columns}) FROM STDIN") as copy:
            for job in planned:
                copy.write_row((sweep_id, job.board_id, job.algorithm, canonical_params(job.params), job.seed,
                                job.repeat, job.job_key, job.plugins, JobState.PENDING.value, 0, 0, now))
    return connection.exec_driver_sql(
        f"INSERT INTO jobs ({columns}) SELECT {columns} FROM new_jobs ON CONFLICT (job_key) DO NOTHING").rowcount


def store_boards(db: Database, connection: Connection, instances: "Iterable[Instance]") -> int:
    """Insert the boards the database lacks (ON CONFLICT DO NOTHING on the id); how many were new."""
    rows = [{"id": b.id, "domain": b.domain, "size": b.size, "name": b.name, "canonical_text": b.text} for b in instances]
    if not rows:
        return 0
    before = connection.execute(select(func.count()).select_from(boards)).scalar_one()
    connection.execute(db.insert(boards).on_conflict_do_nothing(index_elements=["id"]), rows)
    return connection.execute(select(func.count()).select_from(boards)).scalar_one() - before


@dataclass(frozen=True)
class Cancelled:
    """What `cancel` did: the waiting jobs it cancelled, which never start, and the ids of the running ones.

    A running one keeps its worker and lease until that worker's heartbeat
    stops it (within `heartbeat_seconds`) and releases it; if its result comes
    first, it is done instead (`cancelled_among` tells which stayed cancelled).
    """

    waiting: int
    running: list[int]


def cancel(db: Database, sweep_id: int) -> Cancelled:
    """Mark the experiment cancelled and put every unfinished job of it in the state `cancelled`: the waiting ones,
    then the running ones."""
    in_sweep = jobs.c.sweep_id == sweep_id
    with db.engine.begin() as connection:  # waiting ones first: none of them can be claimed in between
        connection.execute(update(sweeps).where(sweeps.c.id == sweep_id).values(cancelled_at=database_now(connection)))
        waiting = connection.execute(
            update(jobs).where(in_sweep, jobs.c.status.in_(WAITING)).values(status=JobState.CANCELLED)).rowcount
        running = connection.scalars(update(jobs).where(in_sweep, jobs.c.status == JobState.RUNNING)
                                     .values(status=JobState.CANCELLED).returning(jobs.c.id))
        return Cancelled(waiting, sorted(running))


def uncancel(db: Database, sweep_id: int, only: list[int] | None = None) -> int:
    """Clear the experiment's cancel and make its cancelled jobs (`only`: those among these ids) pending again
    (`resume`); how many."""
    with db.engine.begin() as connection:
        connection.execute(update(sweeps).where(sweeps.c.id == sweep_id).values(cancelled_at=None))
        if only is None:
            return _uncancel(connection, jobs.c.sweep_id == sweep_id)
        return sum(_uncancel(connection, jobs.c.id.in_(only[start : start + INSERT_CHUNK]))
                   for start in range(0, len(only), INSERT_CHUNK))


def _uncancel(connection: Connection, chosen: Any) -> int:
    return len(connection.execute(
        update(jobs).where(chosen, jobs.c.status == JobState.CANCELLED)
        .values(status=JobState.PENDING, worker_host=None, lease_until=None).returning(jobs.c.id)).all())


def stopping(db: Database, sweep_id: int) -> int:
    """How many cancelled jobs of the sweep a worker still holds (its heartbeat stops them and releases their leases)."""
    with db.engine.connect() as connection:
        return connection.execute(select(func.count()).where(
            jobs.c.sweep_id == sweep_id, jobs.c.status == JobState.CANCELLED,
            jobs.c.lease_until >= database_now(connection))).scalar_one()


def delete_sweep(db: Database, sweep: SweepRow) -> tuple[int, int]:
    """Delete the sweep, its jobs and their results (never a board): (jobs, results) deleted.

    PuzzleError, and nothing deleted, while jobs of it run (under a live
    lease; a cancelled job its worker has not yet stopped included).
    """
    sweep_id = sweep.id
    with db.engine.connect() as connection:  # committed at the end only: a refusal changes nothing
        # first, so that no worker claims a job between the count and the delete
        connection.execute(update(jobs).where(jobs.c.sweep_id == sweep_id, jobs.c.status.in_(WAITING))
                           .values(status=JobState.CANCELLED))
        running = connection.execute(
            select(func.count()).where(jobs.c.sweep_id == sweep_id, jobs.c.status.in_(HELD),
                                       jobs.c.lease_until >= database_now(connection))
        ).scalar_one()
        if running:
            raise PuzzleError(f"sweep {sweep.name!r} has {plural(running, 'job')} running: stop them first with"
                              f" orchestrate cancel {sweep.name} --wait")
        ids = select(jobs.c.id).where(jobs.c.sweep_id == sweep_id)
        removed_results = connection.execute(delete(results).where(results.c.job_id.in_(ids))).rowcount
        removed_jobs = connection.execute(delete(jobs).where(jobs.c.sweep_id == sweep_id)).rowcount
        connection.execute(delete(sweeps).where(sweeps.c.id == sweep_id))
        connection.commit()
    return removed_jobs, removed_results


def unfinished_jobs(db: Database, sweep_id: int, *, pending_only: bool = False, held_too: bool = True) -> list[int]:
    """Ids of the sweep's jobs without a result (or only those never queued), in id order.

    Without `held_too`, the jobs running under a live lease (a worker has them
    in hand) are left out.
    """
    states = (JobState.PENDING,) if pending_only else UNFINISHED
    query = select(jobs.c.id).where(jobs.c.sweep_id == sweep_id, jobs.c.status.in_(states)).order_by(jobs.c.id)
    with db.engine.connect() as connection:
        if not held_too:
            query = query.where(or_(jobs.c.status != JobState.RUNNING, jobs.c.lease_until.is_(None),
                                    jobs.c.lease_until < database_now(connection)))
        return list(connection.scalars(query))


def _sweep_id(connection: Connection, name: str, kind: ExperimentKind, definition: dict[str, Any],
              limits: dict[str, Any]) -> int:
    found = connection.scalar(select(sweeps.c.id).where(sweeps.c.name == name))
    if found is None:
        inserted = connection.execute(sweeps.insert().values(name=name, kind=kind, definition=definition,
                                                             limits=limits)).inserted_primary_key
        assert inserted is not None  # an insert of one row has its key
        return inserted[0]
    connection.execute(update(sweeps).where(sweeps.c.id == found).values(definition=definition, limits=limits))
    return found


def _reset(connection: Connection, sweep_id: int, keys: list[str]) -> None:
    for start in range(0, len(keys), INSERT_CHUNK):
        _run_again(connection, select(jobs.c.id).where(jobs.c.sweep_id == sweep_id,
                                                        jobs.c.job_key.in_(keys[start : start + INSERT_CHUNK])))


def _run_again(connection: Connection, ids: Select, **values: Any) -> int:
    """Delete the results of the jobs `ids` selects and make them pending again (their columns also set to `values`);
    how many."""
    connection.execute(delete(results).where(results.c.job_id.in_(ids)))
    return connection.execute(
        update(jobs)
        .where(jobs.c.id.in_(ids))
        .values(status=JobState.PENDING, outcome=None, seconds=None, attempts=0, lost=0, worker_host=None, lease_until=None,
                started_at=None, finished_at=None, **values)
    ).rowcount


@dataclass(frozen=True)
class PluginJobs:
    """A sweep's jobs of one kind (algorithm, parameters, their boards' domain) planned with the same plugins (their
    `jobs.plugins` key): how many, how many are done, and how many wait (pending, queued or cancelled)."""

    algorithm: str
    params: dict[str, Any]
    domain: str
    plugins: str
    jobs: int
    done: int
    waiting: int


def plugin_jobs(db: Database, sweep_id: int) -> list[PluginJobs]:
    """The experiment's jobs that run plugins, by kind and plugins key, in the order of their algorithms and keys."""
    query = (
        select(jobs.c.algorithm, jobs.c.params, boards.c.domain, jobs.c.plugins, jobs.c.status, func.count())
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.sweep_id == sweep_id, jobs.c.plugins.is_not(None))
        .group_by(jobs.c.algorithm, jobs.c.params, boards.c.domain, jobs.c.plugins, jobs.c.status)
    )
    with db.engine.connect() as connection:
        rows = connection.execute(query).all()
    counts: dict[tuple[str, str, str, str], list[int]] = {}
    for algorithm, params, domain, plugins, status, count in rows:
        found = counts.setdefault((algorithm, canonical_params(params), domain, plugins), [0, 0, 0])
        found[0] += count
        found[1] += count if status == JobState.DONE else 0
        found[2] += count if status in (*WAITING, JobState.CANCELLED) else 0
    return [PluginJobs(algorithm, json.loads(params), domain, plugins, *found)
            for (algorithm, params, domain, plugins), found in sorted(counts.items())]


def replug(db: Database, sweep_id: int, changes: list[tuple[PluginJobs, str | None]], *, rerun: bool = False) -> int:
    """Give each group's waiting jobs the plugins key paired with it (the plugins installed now), a queued one pending
    again (its message is on the queue of the old plugins); with `rerun`, its done jobs too, their results deleted and
    the jobs pending again. The number of done jobs made pending."""
    again = 0
    with db.engine.begin() as connection:
        for group, plugins in changes:
            chosen = select(jobs.c.id).where(
                jobs.c.sweep_id == sweep_id, jobs.c.algorithm == group.algorithm, jobs.c.params == group.params,
                jobs.c.plugins == group.plugins, jobs.c.board_id.in_(select(boards.c.id).where(boards.c.domain == group.domain)))
            waiting = chosen.where(jobs.c.status.in_((*WAITING, JobState.CANCELLED)))
            unqueued = case((jobs.c.status == JobState.QUEUED, JobState.PENDING.value), else_=jobs.c.status)
            connection.execute(update(jobs).where(jobs.c.id.in_(waiting)).values(plugins=plugins, status=unqueued))
            if rerun:
                again += _run_again(connection, chosen.where(jobs.c.status == JobState.DONE), plugins=plugins)
    return again


def _job_count(connection: Connection, sweep_id: int) -> int:
    return connection.execute(select(func.count()).select_from(jobs).where(jobs.c.sweep_id == sweep_id)).scalar_one()


def job_states(db: Database, job_ids: list[int]) -> dict[int, tuple[JobState, bool]]:
    """Each job among `job_ids`: its state, and whether it is held (running under a live lease), by id."""
    with db.engine.connect() as connection:
        now = database_now(connection)
        found: dict[int, tuple[JobState, bool]] = {}
        for start in range(0, len(job_ids), INSERT_CHUNK):
            query = select(jobs.c.id, jobs.c.status, jobs.c.lease_until).where(
                jobs.c.id.in_(job_ids[start : start + INSERT_CHUNK]))
            for job_id, status, lease_until in connection.execute(query):
                held = status == JobState.RUNNING and lease_until is not None and _aware(lease_until) >= now
                found[job_id] = (JobState(status), held)
    return found


def _aware(moment: datetime) -> datetime:
    """A stored time with its time zone: SQLite hands UTC times back naive."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def board_ids(db: Database, sweep_id: int) -> list[str]:
    """The ids of the boards the experiment's jobs are on."""
    with db.engine.connect() as connection:
        return list(connection.scalars(select(jobs.c.board_id).where(jobs.c.sweep_id == sweep_id).distinct()))


def results_of(db: Database, job_ids: list[int]) -> list[JobRow]:
    """Each job among `job_ids` with its result (None if none), in id order."""
    query = select(*JOB_COLUMNS).outerjoin(results, results.c.job_id == jobs.c.id).order_by(jobs.c.id)
    with db.engine.connect() as connection:
        return [job_row(row) for start in range(0, len(job_ids), INSERT_CHUNK)
                for row in connection.execute(query.where(jobs.c.id.in_(job_ids[start : start + INSERT_CHUNK]))).mappings()]


def job_row(row: RowMapping) -> JobRow:
    """The job of a row of `JOB_COLUMNS`, its result None if the row has no result's outcome."""
    values = {name: row[name] for name in RESULT_FIELDS}
    result = JobResult(**values | {"outcome": Outcome(row["outcome"])}) if row["outcome"] is not None else None
    return JobRow(row["job_id"], row["board_id"], row["algorithm"], row["params"], row["seed"], row["repeat"],
                  JobState(row["status"]), row["worker_host"], result, row["plugins"])
