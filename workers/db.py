"""The results database: boards and their sets, sweeps, jobs and results (SQLAlchemy 2).

The SQL database is the source of truth of every sweep; its schema changes only
through the Alembic migrations in `migrations/`. The caller owns the session:
`with Session(engine) as session, session.begin(): ...`.
"""

from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Text
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base with stable constraint names."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Board(Base):
    """A board, stored once: its id is the sha256 of its canonical text."""

    __tablename__ = "boards"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    domain: Mapped[str] = mapped_column(String(16))
    size: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(200), default="")
    canonical_text: Mapped[str] = mapped_column(Text)
    known_optimum: Mapped[int | None] = mapped_column(Integer)


class BoardSet(Base):
    """A named, ordered group of boards: `--boards set:NAME`."""

    __tablename__ = "board_sets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class BoardSetMember(Base):
    """A board's place in a set: each board at most once per set."""

    __tablename__ = "board_set_members"

    set_id: Mapped[int] = mapped_column(ForeignKey("board_sets.id", ondelete="CASCADE"), primary_key=True)
    board_id: Mapped[str] = mapped_column(ForeignKey("boards.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)


class Sweep(Base):
    """A named grid of jobs, with the grid as the user gave it and its limits."""

    __tablename__ = "sweeps"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    limits: Mapped[dict[str, Any]] = mapped_column(JSON)


class Job(Base):
    """One run of one algorithm with one parameter set and seed on one board."""

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_sweep_id_status", "sweep_id", "status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sweep_id: Mapped[int] = mapped_column(ForeignKey("sweeps.id", ondelete="CASCADE"))
    board_id: Mapped[str] = mapped_column(ForeignKey("boards.id"))
    algorithm: Mapped[str] = mapped_column(String(32))
    params: Mapped[str] = mapped_column(Text)  # canonical JSON: sorted keys, no spaces
    seed: Mapped[int | None] = mapped_column(BigInteger)
    repeat: Mapped[int] = mapped_column(Integer, default=0)
    job_key: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker_host: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Result(Base):
    """The outcome of a job: at most one per job."""

    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), unique=True)
    status: Mapped[str] = mapped_column(String(16))
    moves: Mapped[int | None] = mapped_column(Integer)
    steps: Mapped[int | None] = mapped_column(Integer)
    expanded: Mapped[int] = mapped_column(BigInteger, default=0)
    generated: Mapped[int] = mapped_column(BigInteger, default=0)
    max_frontier: Mapped[int] = mapped_column(BigInteger, default=0)
    stored: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    elapsed_s: Mapped[float] = mapped_column(Float, default=0.0)  # the search's wall time alone
    cpu_s: Mapped[float | None] = mapped_column(Float)  # the job process's CPU time over the search
    warmup_s: Mapped[float | None] = mapped_column(Float)  # compiling or loading kernels and tables, before the search
    peak_mem_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    solution: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)  # which limit stopped the search
    error: Mapped[str | None] = mapped_column(Text)  # why the job raised (status "error")
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # e.g. exhaustive BFS's counts per depth
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # the job in its process
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    host: Mapped[str | None] = mapped_column(String(200))  # the worker that ran it
    code_version: Mapped[str | None] = mapped_column(String(120))  # workers.provenance.code_version
    provenance: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # versions, commit, process, speed, the job as run
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


@lru_cache
def engine_for(url: str) -> Engine:
    """One engine per URL and process (create it after forking, never at import time)."""
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
