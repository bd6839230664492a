"""What the database says about sweeps: counts, throughput, ETA, hosts, provenance, and job listings."""

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from puzzles.errors import PuzzleError
from workers.db import Board, Job, Result, Sweep
from workers.store import FINAL

RATE_WINDOW_S = 60.0  # throughput is measured over the last minute


@dataclass
class SweepStatus:
    """A sweep's jobs counted by job status, result status and worker host, with its pace."""

    name: str
    total: int
    jobs: dict[str, int] = field(default_factory=dict)
    results: dict[str, int] = field(default_factory=dict)
    hosts: dict[str, int] = field(default_factory=dict)
    jobs_per_s: float = 0.0
    eta_s: float | None = None

    @property
    def finished(self) -> int:
        """Jobs with their final result."""
        return sum(self.jobs.get(status, 0) for status in FINAL)

    @property
    def complete(self) -> bool:
        """True when every job has its final result."""
        return self.finished == self.total

    def to_dict(self) -> dict[str, Any]:
        """The status as plain JSON-ready data."""
        return {**asdict(self), "finished": self.finished, "complete": self.complete}


@dataclass
class SweepSummary:
    """One line of `orchestrate sweeps`."""

    name: str
    created_at: datetime
    total: int
    finished: int
    failed: int


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


def sweep_status(engine: Engine, sweep: Sweep) -> SweepStatus:
    """The sweep's counts and its throughput over the last minute, with the ETA it implies."""
    with Session(engine) as session:
        in_sweep = Job.sweep_id == sweep.id
        jobs = dict(session.execute(select(Job.status, func.count()).where(in_sweep).group_by(Job.status)).all())
        results = dict(
            session.execute(
                select(Result.status, func.count()).join(Job, Result.job_id == Job.id).where(in_sweep).group_by(Result.status)
            ).all()
        )
        hosts = dict(
            session.execute(
                select(Job.worker_host, func.count())
                .where(in_sweep, Job.status.in_(FINAL), Job.worker_host.is_not(None))
                .group_by(Job.worker_host)
            ).all()
        )
        now = datetime.now(timezone.utc)
        first_start = session.scalar(select(func.min(Job.started_at)).where(in_sweep))
        recent = session.scalar(
            select(func.count()).where(in_sweep, Job.finished_at >= now - timedelta(seconds=RATE_WINDOW_S))
        )
    status = SweepStatus(sweep.name, sum(jobs.values()), jobs, results, hosts)
    if first_start is not None and recent:
        window = min(RATE_WINDOW_S, max((now - _aware(first_start)).total_seconds(), 1e-3))
        status.jobs_per_s = recent / window
        status.eta_s = (status.total - status.finished) / status.jobs_per_s
    return status


def sweep_provenance(engine: Engine, sweep: Sweep) -> list[Origin]:
    """The sweep's results grouped by code version (with its commit), host and software (Python, numba, numpy)."""
    details = Result.provenance
    software = [details[name].as_string() for name in ("python", "numba", "numpy")]
    keys = [Result.code_version, details["commit"].as_string(), details["dirty"].as_boolean(), Result.host, *software]
    query = (
        select(*keys, func.count(), func.avg(details["speed"].as_float()), func.min(Result.started_at),
               func.max(Result.finished_at))
        .join(Job, Result.job_id == Job.id)
        .where(Job.sweep_id == sweep.id)
        .group_by(*keys)
        .order_by(func.min(Result.started_at))
    )
    with Session(engine) as session:
        rows = session.execute(query).all()
    return [
        Origin(version, commit, dirty, host, _software(python, numba, numpy), count, speed, first, last)
        for version, commit, dirty, host, python, numba, numpy, count, speed, first, last in rows
    ]


def job_record(engine: Engine, job_id: int) -> dict[str, Any]:
    """A job with its sweep, board and whole result (provenance included); PuzzleError if there is none."""
    query = (
        select(Job, Sweep.name, Board, Result)
        .join(Sweep, Job.sweep_id == Sweep.id)
        .join(Board, Job.board_id == Board.id)
        .outerjoin(Result, Result.job_id == Job.id)
        .where(Job.id == job_id)
    )
    with Session(engine) as session:
        row = session.execute(query).one_or_none()
        if row is None:
            raise PuzzleError(f"no job {job_id}")
        job, sweep_name, board, result = row
        return {
            "job": {**_columns(job), "params": json.loads(job.params)},
            "sweep": sweep_name,
            "board": {"name": board.name, "domain": board.domain, "size": board.size, "known_optimum": board.known_optimum},
            "result": _columns(result) if result else None,
        }


def list_sweeps(engine: Engine) -> list[SweepSummary]:
    """Every sweep, newest first, with its job counts."""
    finished = func.sum(case((Job.status.in_(FINAL), 1), else_=0))
    failed = func.sum(case((Job.status == "failed", 1), else_=0))
    with Session(engine) as session:
        rows = session.execute(
            select(Sweep.name, Sweep.created_at, func.count(Job.id), finished, failed)
            .outerjoin(Job, Job.sweep_id == Sweep.id)
            .group_by(Sweep.id)
            .order_by(Sweep.id.desc())
        ).all()
    return [SweepSummary(name, created, total, done or 0, bad or 0) for name, created, total, done, bad in rows]


def list_jobs(engine: Engine, sweep: Sweep, status: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The sweep's jobs (those with `status`, if given) with their board and result, in id order."""
    query = (
        select(Job, Board.name, Result)
        .join(Board, Job.board_id == Board.id)
        .outerjoin(Result, Result.job_id == Job.id)
        .where(Job.sweep_id == sweep.id)
        .order_by(Job.id)
        .limit(limit)
    )
    if status is not None:
        query = query.where(Job.status == status)
    with Session(engine) as session:
        return [_job_row(job, board, result) for job, board, result in session.execute(query).all()]


def _job_row(job: Job, board: str, result: Result | None) -> dict[str, Any]:
    return {
        "id": job.id,
        "board": board,
        "algorithm": job.algorithm,
        "params": job.params,
        "seed": job.seed,
        "repeat": job.repeat,
        "status": job.status,
        "attempts": job.attempts,
        "host": job.worker_host,
        "result": result.status if result else None,
        "moves": result.moves if result else None,
        "elapsed_s": result.elapsed_s if result else None,
        "error": (result.error or result.reason) if result else None,
    }


def _software(python: str | None, numba: str | None, numpy: str | None) -> str:
    if python is None:
        return "unknown"
    return f"Python {python}, numba {numba}, numpy {numpy}"


def _columns(row: Job | Result) -> dict[str, Any]:
    """A row's columns as JSON-ready values (datetimes in ISO form)."""
    values = {column.key: getattr(row, column.key) for column in row.__table__.columns}
    return {key: _aware(value).isoformat() if isinstance(value, datetime) else value for key, value in values.items()}


def _aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes; they are UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

