"""What is going on across every sweep of a database, for the dashboard: workers, jobs held, hosts, recent results.

Each read returns records: a job held by a worker carries its worker host,
since when, its attempts and the time its lease runs out. The one write is a
worker's heartbeat (`record_beat`): liveness is data, read by `worker_beats`, with the plugins it has.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Integer, case, cast, extract, func, select

from puzzles.result import Outcome
from workers.store.database import Database
from workers.store.schema import boards, database_now, jobs, results, sweeps, workers
from workers.store.states import JobState
from workers.store.sweeps import SweepRow


@dataclass(frozen=True)
class WorkerBeat:
    """A worker that beat: since it last came online (`started_at`), its last heartbeat (`beat_at`), and the keys of
    the plugins it has (`plugins`; None for a local run's host, which takes no queue's jobs)."""

    host: str
    started_at: datetime
    beat_at: datetime
    plugins: list[str] | None = None


@dataclass(frozen=True)
class HeldJob:
    """A running job: its sweep, board, algorithm and parameters, the worker holding it, since when, its attempts
    and when its lease runs out."""

    id: int
    sweep: str
    board: str
    algorithm: str
    params: dict[str, Any]
    host: str | None
    since: datetime | None
    attempts: int
    lease_until: datetime | None


@dataclass(frozen=True)
class HostActivity:
    """A host that stored results: how many, and when its last one finished."""

    host: str
    results: int
    last: datetime


@dataclass(frozen=True)
class RecentResult:
    """A stored result with its job's names: outcome, moves, time, host, when it finished, why it ended (an error's
    text or a limit's reason)."""

    id: int
    sweep: str
    board: str
    algorithm: str
    params: dict[str, Any]
    outcome: str
    moves: int | None
    elapsed_s: float | None
    host: str | None
    finished_at: datetime | None
    reason: str | None


def record_beat(db: Database, host: str, lease_s: float, plugins: Sequence[str] | None = None) -> None:
    """Record a heartbeat of the worker `host` now, with the keys of the plugins it has (a Celery worker's: it runs
    their jobs; None for a local run's, which takes no queue's jobs); a worker silent for more than a lease starts
    anew."""
    with db.engine.begin() as connection:
        now = database_now(connection)
        advertised = {} if plugins is None else {"plugins": list(plugins)}
        insert = db.insert(workers).values(host=host, started_at=now, beat_at=now, **advertised)
        restarted = case((workers.c.beat_at < now - timedelta(seconds=lease_s), now), else_=workers.c.started_at)
        connection.execute(insert.on_conflict_do_update(index_elements=["host"],
                                                        set_={"beat_at": now, "started_at": restarted, **advertised}))


def database_time(db: Database) -> datetime:
    """The current time by the database's clock (`database_now`), which heartbeats and leases are stamped by."""
    with db.engine.connect() as connection:
        return database_now(connection)


def worker_beats(db: Database) -> list[WorkerBeat]:
    """Every worker that ever beat, by host."""
    with db.engine.connect() as connection:
        return [WorkerBeat(**row) for row in connection.execute(select(workers).order_by(workers.c.host)).mappings()]


def throughput(db: Database, hosts: list[str], since: datetime, width_s: float) -> list[tuple[str, int, int]]:
    """(host, part, results): the results each of `hosts` finished since `since`, counted per part of `width_s`
    seconds, part 0 the first, in SQL: a range of the index (host, finished_at) per host."""
    finished = results.c.finished_at
    part: ColumnElement[Any]
    if db.engine.dialect.name == "postgresql":
        part = func.floor(extract("epoch", finished - since) / width_s)
    else:  # SQLite: days as a float; the offsets are positive, so the cast rounds down
        part = (func.julianday(finished) - func.julianday(since)) * 86400 / width_s
    bucket = cast(part, Integer).label("part")
    query = (select(results.c.host, bucket, func.count())
             .where(results.c.host.in_(hosts), finished >= since).group_by(results.c.host, bucket))
    with db.engine.connect() as connection:
        return [(host, int(index), int(count)) for host, index, count in connection.execute(query)]


def held_jobs(db: Database, limit: int = 200) -> list[HeldJob]:
    """The running jobs, oldest claim first."""
    query = (
        select(jobs.c.id, sweeps.c.name.label("sweep"), boards.c.name.label("board"), jobs.c.algorithm, jobs.c.params,
               jobs.c.worker_host.label("host"), jobs.c.started_at.label("since"), jobs.c.attempts,
               jobs.c.lease_until)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.status == JobState.RUNNING)
        .order_by(jobs.c.started_at, jobs.c.id)
        .limit(limit)
    )
    with db.engine.connect() as connection:
        return [HeldJob(**row) for row in connection.execute(query).mappings()]


def host_activity(db: Database) -> list[HostActivity]:
    """Per host that stored results, the last to finish one first; from the index (host, finished_at) alone."""
    last = func.max(results.c.finished_at)
    query = (
        select(results.c.host, func.count().label("results"), last.label("last"))
        .where(results.c.host.is_not(None))
        .group_by(results.c.host)
        .order_by(last.desc())
    )
    with db.engine.connect() as connection:
        return [HostActivity(**row) for row in connection.execute(query).mappings()]


def recent_results(db: Database, limit: int = 20, *, outcomes: tuple[Outcome, ...] = ()) -> list[RecentResult]:
    """The results stored last (only those with one of `outcomes`, if given), newest first, with their job's names."""
    query = (
        select(jobs.c.id, sweeps.c.name.label("sweep"), boards.c.name.label("board"), jobs.c.algorithm, jobs.c.params,
               results.c.outcome, results.c.moves, results.c.elapsed_s, results.c.host, results.c.finished_at,
               func.coalesce(results.c.error, results.c.reason).label("reason"))
        .join(jobs, results.c.job_id == jobs.c.id)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .order_by(results.c.id.desc())
        .limit(limit)
    )
    if outcomes:
        query = query.where(results.c.outcome.in_(outcomes))
    with db.engine.connect() as connection:
        return [RecentResult(**row) for row in connection.execute(query).mappings()]


def sweep_version(db: Database, sweep: SweepRow) -> tuple[int, int, int]:
    """What changes whenever the sweep's results or job states do: (jobs done, jobs running, the last finish in µs).

    Read from the indexes of `jobs` (counts by state, the latest finish), never from the sweep's rows.
    """
    in_sweep = jobs.c.sweep_id == sweep.id
    with db.engine.connect() as connection:
        states: dict[str, int] = dict(connection.execute(
            select(jobs.c.status, func.count()).where(in_sweep, jobs.c.status.in_((JobState.DONE, JobState.RUNNING)))
            .group_by(jobs.c.status)).all())
        last = connection.scalar(select(func.max(jobs.c.finished_at)).where(in_sweep))
    finished = 0 if last is None else round((last if last.tzinfo else last.replace(tzinfo=UTC)).timestamp() * 1e6)
    return int(states.get(JobState.DONE, 0)), int(states.get(JobState.RUNNING, 0)), finished
