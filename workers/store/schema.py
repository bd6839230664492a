"""The results database's tables (SQLAlchemy Core), changed only by the Alembic migrations beside it (`migrations/`).

The `results` table's columns are derived from the fields of `JobResult`
(itself `puzzles.result.Findings` and what a stored result adds): a result's
fields are declared once, in Python, and the table follows them.
"""

import json
from dataclasses import MISSING, fields
from datetime import datetime
from types import NoneType, UnionType
from typing import Any, get_args, get_type_hints

from sqlalchemy import JSON, BigInteger, Column, DateTime, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeDecorator, TypeEngine

from puzzles.result import Outcome
from workers.store.records import JobResult, utc_now
from workers.store.states import JobState

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
NAME = String(200)
KIND = ("sweep_id", "board_id", "algorithm", "params")  # a sweep's kind of job: the same board, algorithm, parameters
metadata = MetaData(naming_convention=NAMING_CONVENTION)


def database_now(connection: Connection) -> datetime:
    """The current time by the database's clock, which every lease and heartbeat is stamped and read by.

    PostgreSQL's, so that workers whose own clocks are wrong neither take over
    live jobs nor keep a dead one's lease alive; a SQLite file is read on one
    machine, whose clock this process reads.
    """
    if connection.dialect.name == "postgresql":
        return connection.execute(select(func.clock_timestamp())).scalar_one()
    return utc_now()


def canonical_params(params: dict[str, Any]) -> str:
    """A job's parameters as its row keeps them and its key digests them: JSON with sorted keys and no spaces."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


class CanonicalParams(TypeDecorator):
    """The `params` column: a dict in Python, its `canonical_params` text in SQL (decoded here, and nowhere else)."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: dict[str, Any] | None, dialect: Any) -> str | None:
        """The text stored for a job's parameters."""
        return None if value is None else canonical_params(value)

    def process_result_value(self, value: str | None, dialect: Any) -> dict[str, Any] | None:
        """A job's parameters read back."""
        return None if value is None else json.loads(value)


boards = Table(
    "boards",
    metadata,
    Column("id", String(64), primary_key=True),  # the sha256 of the canonical text
    Column("domain", String(16), nullable=False),
    Column("size", Integer, nullable=False),
    Column("name", NAME, nullable=False, default=""),
    Column("canonical_text", Text, nullable=False),
    Column("known_optimum", Integer),
)

board_sets = Table(
    "board_sets",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", NAME, nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utc_now),
)

board_set_members = Table(
    "board_set_members",
    metadata,
    Column("set_id", ForeignKey("board_sets.id", ondelete="CASCADE"), primary_key=True),
    Column("board_id", ForeignKey("boards.id"), primary_key=True),
    Column("position", Integer, nullable=False),
)

sweeps = Table(
    "sweeps",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", NAME, nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utc_now),
    Column("definition", JSON, nullable=False),  # the experiment's definition, as its kind writes it
    Column("limits", JSON, nullable=False),
    Column("kind", String(16), nullable=False),  # an `ExperimentKind`: grid, study, split or optimum
    Column("cancelled_at", DateTime(timezone=True)),  # set by cancel, cleared by resume: no more jobs are proposed
)

jobs = Table(
    "jobs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sweep_id", ForeignKey("sweeps.id", ondelete="CASCADE"), nullable=False),
    Column("board_id", ForeignKey("boards.id"), nullable=False),
    Column("algorithm", String(255), nullable=False),  # a plugin file's is its path
    Column("params", CanonicalParams, nullable=False),  # a dict, stored as canonical JSON text
    Column("seed", BigInteger),
    Column("repeat", Integer, nullable=False, default=0),
    Column("job_key", String(64), nullable=False, unique=True),
    Column("status", String(16), nullable=False, default=JobState.PENDING),  # a `JobState`
    Column("outcome", String(16)),  # a done job's: its result's `Outcome`, repeated here for counts by GROUP BY
    Column("attempts", Integer, nullable=False, default=0),  # times a worker started it
    Column("lost", Integer, nullable=False, default=0),  # times its worker (or job process) went away without a result
    Column("worker_host", NAME),
    Column("lease_until", DateTime(timezone=True)),  # a running job's worker renews this while it lives
    Column("created_at", DateTime(timezone=True), nullable=False, default=utc_now),
    Column("started_at", DateTime(timezone=True)),  # when the batch holding it was claimed
    Column("finished_at", DateTime(timezone=True)),
    Column("seconds", Float),  # a done job's: its result's `run_seconds`, repeated here for the ETA's GROUP BY
    Column("plugins", Text),  # the keys of the plugins it runs (`puzzles.plugins.plugins_key`); NULL for slidelab's own
    Index("ix_jobs_sweep_id_status_outcome", "sweep_id", "status", "outcome", "worker_host"),  # status, sweeps
    Index("ix_jobs_sweep_id_id", "sweep_id", "id"),  # jobs --limit
    Index("ix_jobs_sweep_id_started_at", "sweep_id", "started_at"),  # a sweep's first start
    Index("ix_jobs_sweep_id_finished_at", "sweep_id", "finished_at"),  # its last finish, its recent pace
    Index("ix_jobs_status_lease_until", "status", "lease_until"),
    Index("ix_jobs_sweep_id_board_id", *KIND, "status", "seconds"),  # the ETA: a sweep's jobs by kind, state, seconds
)

workers = Table(
    "workers",
    metadata,
    Column("host", NAME, primary_key=True),  # a worker's name (`w1@host`, `host/local`), as jobs.worker_host has it
    Column("started_at", DateTime(timezone=True), nullable=False),  # its first heartbeat
    Column("beat_at", DateTime(timezone=True), nullable=False),  # its last: no beat for a lease and it is offline
    Column("plugins", JSON),  # the keys of the plugins it has (`puzzles.plugins.installed_keys`): it runs their jobs
)


def _sql_type(annotation: Any) -> tuple[TypeEngine, bool]:
    """The column type of a result field's annotation, and whether it is nullable."""
    optional = isinstance(annotation, UnionType)
    base = next(option for option in get_args(annotation) if option is not NoneType) if optional else annotation
    base = getattr(base, "__origin__", base)  # dict[str, Any] is a dict
    types: dict[Any, TypeEngine[Any]] = {
        Outcome: String(16), int: BigInteger(), float: Float(), str: Text(), dict: JSON(), datetime: DateTime(timezone=True),
    }
    return types[base], optional or base is dict


def _result_columns() -> list[Column]:
    """A column per field of `JobResult`: its type from the annotation, NOT NULL where the field has a plain default."""
    hints = get_type_hints(JobResult)
    columns = []
    for item in fields(JobResult):
        kind, nullable = _sql_type(hints[item.name])
        default = None if item.default is MISSING else item.default
        columns.append(Column(item.name, kind, nullable=nullable, default=default))
    return columns


results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("job_id", ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False, unique=True),
    *_result_columns(),
    Column("created_at", DateTime(timezone=True), nullable=False, default=utc_now),
    Index("ix_results_host_finished_at", "host", "finished_at"),  # the dashboard's hosts and their throughput
)

RESULT_FIELDS = tuple(item.name for item in fields(JobResult))
