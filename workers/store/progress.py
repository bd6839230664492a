"""What the database says about sweeps as they run: counts by lifecycle state and outcome, pace, hosts, listings.

Every count here uses the two vocabularies of `workers.store.states`: a job's
state (pending, queued, running, done) and a done job's outcome.
"""

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Row

from puzzles.errors import PuzzleError
from puzzles.result import Outcome
from workers.store.database import Database
from workers.store.eta import job_kinds, remaining_seconds
from workers.store.plugins import Unserved, unserved
from workers.store.schema import boards, database_now, jobs, results, sweeps
from workers.store.states import JobState
from workers.store.sweeps import ExperimentKind, SweepRow

RATE_WINDOW_S = 60.0  # throughput is measured over the last minute of work
COMPLETE, RUNNING, QUEUED, CANCELLED, STOPPED = "complete", "running", "queued", "cancelled", "stopped"  # a sweep's phases


@dataclass
class SweepStatus:
    """A sweep's jobs counted by lifecycle state, by outcome and by worker host, with its pace and ETA.

    The pace is over the jobs done in the last minute of work: the minute up to
    now while jobs run, the sweep's last minute once none runs, so it never
    decays after the work has stopped. There is an ETA only while jobs run:
    the jobs left, each at the mean duration of its kind's done jobs, shared by
    the workers running (`workers.store.eta`).
    `lapsed`: running jobs whose lease lapsed, their worker (or local run) gone.
    `study`: the sweep is a study's (`orchestrate tune`), whose pruner cancels
    the jobs of the trials it stops: those end a study, they do not stop it.
    `unserved`: queued jobs whose plugins no live worker has (read when asked).
    """

    name: str
    total: int
    states: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    hosts: dict[str, int] = field(default_factory=dict)
    jobs_per_s: float = 0.0
    eta_s: float | None = None
    lapsed: int = 0
    study: bool = False
    unserved: list[Unserved] = field(default_factory=list)

    @property
    def finished(self) -> int:
        """Jobs done: those with their result."""
        return self.states.get(JobState.DONE, 0)

    @property
    def complete(self) -> bool:
        """True when every job is done."""
        return self.finished == self.total

    @property
    def phase(self) -> str:
        """`complete`; `running` (a job runs under a live lease); `queued` (jobs wait on the broker); `cancelled`; or
        `stopped`.

        A stopped sweep has jobs without a result and none running or queued (a
        job whose lease lapsed does not run: its worker is gone): nothing goes
        on until `orchestrate resume`, as for a cancelled one.
        """
        if self.complete:
            return COMPLETE
        if self.states.get(JobState.RUNNING, 0) > self.lapsed:
            return RUNNING
        if self.states.get(JobState.QUEUED):
            return QUEUED
        if self.study:
            return STOPPED if self.lapsed or self.states.get(JobState.PENDING) else COMPLETE
        return CANCELLED if self.states.get(JobState.CANCELLED) else STOPPED

    def to_dict(self) -> dict[str, Any]:
        """The status as plain JSON-ready data."""
        return {**asdict(self), "finished": self.finished, "complete": self.complete, "phase": self.phase}


@dataclass
class SweepSummary:
    """One line of `orchestrate sweeps`: a sweep, its jobs, those done, and the outcomes of those."""

    name: str
    created_at: datetime
    total: int
    finished: int
    outcomes: dict[str, int]


@dataclass(frozen=True)
class Origin:
    """Results of a sweep that share their code version, host and software, with the host's mean speed."""

    code_version: str | None
    commit: str | None
    dirty: bool | None
    host: str | None
    software: str
    results: int
    speed: float | None
    first_start: datetime | None
    last_finish: datetime | None


def sweep_status(db: Database, sweep: SweepRow, *, lease_s: float | None = None) -> SweepStatus:
    """The sweep's counts, its throughput over the last minute and, while it runs, its ETA; with `lease_s`, also its
    queued jobs that no worker live within the last `lease_s` seconds can run, lacking their plugins."""
    status = _counted_status(db, sweep)
    if lease_s is not None and status.states.get(JobState.QUEUED):
        status.unserved = unserved(db, sweep.id, lease_s)
    return status


def _counted_status(db: Database, sweep: SweepRow) -> SweepStatus:
    in_sweep = jobs.c.sweep_id == sweep.id
    with db.engine.connect() as connection:
        now = database_now(connection)
        states, outcomes, hosts = _counts(connection.execute(
            select(jobs.c.status, jobs.c.outcome, jobs.c.worker_host, func.count()).where(in_sweep)
            .group_by(jobs.c.status, jobs.c.outcome, jobs.c.worker_host)
        ).all())
        first_start = connection.scalar(select(func.min(jobs.c.started_at)).where(in_sweep))
        last_finish = connection.scalar(select(func.max(jobs.c.finished_at)).where(in_sweep))
        lapsed, starts = _running(connection, sweep.id, now)
        status = SweepStatus(sweep.name, sum(states.values()), states, outcomes, hosts, lapsed=lapsed,
                             study=sweep.kind == ExperimentKind.STUDY)
        if first_start is None or last_finish is None:
            return status
        end = now if status.phase == RUNNING else aware(last_finish)
        recent = connection.execute(
            select(func.count()).where(in_sweep, jobs.c.finished_at >= end - timedelta(seconds=RATE_WINDOW_S),
                                       jobs.c.finished_at <= end)
        ).scalar_one()
        if status.phase == RUNNING:
            running_for = max(((now - aware(start)).total_seconds() for start in starts if start), default=0.0)
            status.eta_s = remaining_seconds(job_kinds(connection, sweep.id), len(starts), running_for)
    window = min(RATE_WINDOW_S, max((end - aware(first_start)).total_seconds(), 1e-3))
    status.jobs_per_s = recent / window
    return status


def _running(connection: Connection, sweep_id: int, now: datetime) -> tuple[int, list[datetime]]:
    """The sweep's running jobs whose lease lapsed, and when each batch of the others started: a worker runs one
    batch, whose jobs were claimed together (by one host at one moment)."""
    lapsed = (jobs.c.lease_until < now).label("lapsed")
    batches = connection.execute(
        select(lapsed, jobs.c.started_at, func.count()).where(jobs.c.sweep_id == sweep_id, jobs.c.status == JobState.RUNNING)
        .group_by(jobs.c.worker_host, jobs.c.started_at, lapsed)
    ).all()
    return sum(count for gone, _, count in batches if gone), [start for gone, start, _ in batches if not gone]


def _counts(rows: Sequence[Row]) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Counts by (state, outcome, host) summed by state, by outcome (done jobs) and by host (done jobs that name one)."""
    states: dict[str, int] = {}
    outcomes: dict[str, int] = {}
    hosts: dict[str, int] = {}
    for state, outcome, host, count in rows:
        states[state] = states.get(state, 0) + count
        if outcome is not None:
            outcomes[outcome] = outcomes.get(outcome, 0) + count
        if state == JobState.DONE and host is not None:
            hosts[host] = hosts.get(host, 0) + count
    return states, outcomes, hosts


def list_sweeps(db: Database) -> list[SweepSummary]:
    """Every sweep, newest first, with its job counts and the outcomes of its done jobs (one scan of an index)."""
    counts = (select(jobs.c.sweep_id, jobs.c.status, jobs.c.outcome, func.count())
              .group_by(jobs.c.sweep_id, jobs.c.status, jobs.c.outcome))
    with db.engine.connect() as connection:
        rows = connection.execute(select(sweeps.c.id, sweeps.c.name, sweeps.c.created_at).order_by(sweeps.c.id.desc())).all()
        totals: dict[int, int] = {}
        counted: dict[int, dict[str, int]] = {}
        for sweep_id, _, outcome, count in connection.execute(counts):
            totals[sweep_id] = totals.get(sweep_id, 0) + count
            if outcome is not None:
                outcomes = counted.setdefault(sweep_id, {})
                outcomes[outcome] = outcomes.get(outcome, 0) + count
    return [
        SweepSummary(name, created, totals.get(sweep_id, 0), sum(counted.get(sweep_id, {}).values()),
                     counted.get(sweep_id, {}))
        for sweep_id, name, created in rows
    ]


def list_jobs(
    db: Database, sweep: SweepRow, status: JobState | Outcome | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """The sweep's jobs (in a lifecycle state, or done with an outcome, if given) with their board and result."""
    query = (
        select(jobs, boards.c.name.label("board"), *_result_columns())
        .join(boards, jobs.c.board_id == boards.c.id)
        .outerjoin(results, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .order_by(jobs.c.id)
        .limit(limit)
    )
    if isinstance(status, JobState):
        query = query.where(jobs.c.status == status)
    elif status is not None:
        query = query.where(jobs.c.outcome == status)
    with db.engine.connect() as connection:
        return [_job_row(row) for row in connection.execute(query)]


def job_record(db: Database, job_id: int) -> dict[str, Any]:
    """A job with its sweep, board and whole result (provenance included); PuzzleError if there is none."""
    query = (
        select(jobs, sweeps.c.name.label("sweep_name"), boards.c.name.label("board_name"), boards.c.domain,
               boards.c.size, boards.c.known_optimum)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.id == job_id)
    )
    with db.engine.connect() as connection:
        row = connection.execute(query).mappings().one_or_none()
        if row is None:
            raise PuzzleError(f"no job {job_id}")
        result = connection.execute(select(results).where(results.c.job_id == job_id)).mappings().one_or_none()
    job = {column.key: row[column] for column in jobs.columns}
    return {
        "job": _plain(job),
        "sweep": row["sweep_name"],
        "board": {"name": row["board_name"], "domain": row["domain"], "size": row["size"],
                  "known_optimum": row["known_optimum"]},
        "result": _plain(dict(result)) if result else None,
    }


def sweep_provenance(db: Database, sweep: SweepRow) -> list[Origin]:
    """The sweep's results grouped by code version (with its commit), host and software (Python, numba, numpy)."""
    details = results.c.provenance
    software = [details[name].as_string() for name in ("python", "numba", "numpy")]
    keys = [results.c.code_version, details["commit"].as_string(), details["dirty"].as_boolean(), results.c.host, *software]
    query = (
        select(*keys, func.count(), func.avg(details["speed"].as_float()), func.min(results.c.started_at),
               func.max(results.c.finished_at))
        .join(jobs, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .group_by(*keys)
        .order_by(func.min(results.c.started_at))
    )
    with db.engine.connect() as connection:
        rows = connection.execute(query).all()
    return [
        Origin(version, commit, dirty, host, _software(python, numba, numpy), count, speed, first, last)
        for version, commit, dirty, host, python, numba, numpy, count, speed, first, last in rows
    ]


def aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes; they are UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _result_columns() -> list:
    return [results.c.outcome, results.c.moves, results.c.elapsed_s, results.c.error, results.c.reason]


def _job_row(row: Row) -> dict[str, Any]:
    return {
        "id": row.id,
        "board": row.board,
        "algorithm": row.algorithm,
        "params": row.params,
        "seed": row.seed,
        "repeat": row.repeat,
        "state": row.status,
        "attempts": row.attempts,
        "host": row.worker_host,
        "outcome": row.outcome,
        "moves": row.moves,
        "elapsed_s": row.elapsed_s,
        "error": row.error or row.reason,
    }


def _software(python: str | None, numba: str | None, numpy: str | None) -> str:
    if python is None:
        return "unknown"
    return f"Python {python}, numba {numba}, numpy {numpy}"


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """A row's values as JSON-ready ones (datetimes in ISO form)."""
    return {key: aware(value).isoformat() if isinstance(value, datetime) else value for key, value in values.items()}
