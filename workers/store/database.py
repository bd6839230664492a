"""A results database to talk to: its URL, its engine, its schema migrations, and patience while it is away.

The rest of slidelab holds a `Database` and passes it to the storage
functions (`workers.store.sweeps`, `.jobs`, `.boards`, `.progress`,
`.rows`); nothing outside this package builds SQL. SQLite is the embedded
default, PostgreSQL what machines share.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from puzzles.errors import PuzzleError

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
T = TypeVar("T")


@dataclass(frozen=True)
class Database:
    """A results database: its URL and the engine that reaches it (one per URL and process)."""

    url: str
    engine: Engine

    @property
    def shown_url(self) -> str:
        """The URL fit to print: its password replaced by ***."""
        return masked(self.url)

    def insert(self, table: Table) -> Any:
        """An INSERT of this database's dialect, which can say ON CONFLICT DO NOTHING."""
        return (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(table)


def open_database(url: str) -> Database:
    """The database at `url`, brought to the newest schema (a new SQLite file is created)."""
    upgrade(url)
    return Database(url, engine_for(url))


def open_existing(url: str) -> Database:
    """The database at `url` as it is, for a command that only reads: nothing is created or migrated.

    PuzzleError if there is no database there (a missing SQLite file), if it is
    not slidelab's, or if its schema is not this code's (older: `orchestrate db
    upgrade` brings it up to date; newer: made by a newer slidelab).
    """
    shown = masked(url)
    location = make_url(url)
    if location.get_backend_name() == "sqlite" and location.database not in (None, "", ":memory:"):
        if not Path(location.database).is_file():
            raise PuzzleError(f"{shown}: no results database there (a sweep or orchestrate db upgrade makes one)")
    db = Database(url, engine_for(url))
    with db.engine.connect() as connection:
        found = MigrationContext.configure(connection).get_current_revision()
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if found is None:
        raise PuzzleError(f"{shown}: not a slidelab results database (no schema revision in it)")
    if found != head:
        known = found in {script.revision for script in ScriptDirectory.from_config(alembic_config(url)).walk_revisions()}
        hint = f"run: orchestrate db upgrade --db {shown}" if known else "it was made by a newer slidelab"
        raise PuzzleError(f"{shown}: the schema is at revision {found}, this slidelab reads {head}: {hint}")
    return db


def open_read_only(url: str) -> Database:
    """The database at `url` as `open_existing` checks it, on a connection that cannot write (the dashboard's).

    SQLite connections run with `PRAGMA query_only`, PostgreSQL sessions with
    `default_transaction_read_only`: a write fails in the database itself.
    """
    open_existing(url)
    return Database(url, _read_only_engine(url))


@lru_cache
def _read_only_engine(url: str) -> Engine:
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, connect_args={"options": "-c default_transaction_read_only=on"})
    engine = create_engine(url, pool_pre_ping=True)
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "connect", _query_only)
    return engine


def _query_only(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def connect(url: str) -> Database:
    """The database at `url` as it is, for a process that only reads and writes rows (a worker, a job's pool)."""
    return Database(url, engine_for(url))


def masked(url: str) -> str:
    """A URL fit to print: its password replaced by ***."""
    return make_url(url).render_as_string(hide_password=True)


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


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at `url`, without an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every migration up to `revision`; a new SQLite file is created on the way."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Undo the migrations down to `revision` (`base`: an empty database)."""
    command.downgrade(alembic_config(url), revision)


def retrying(operation: Callable[[], T], patience_s: float) -> T:
    """`operation()`, tried again with growing pauses while the database is unreachable, for up to `patience_s`."""
    give_up = time.monotonic() + patience_s
    pause = 0.2
    while True:
        try:
            return operation()
        except (OperationalError, DBAPIError) as err:
            if not _disconnected(err) or time.monotonic() + pause > give_up:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 5.0)


def _disconnected(err: DBAPIError) -> bool:
    return isinstance(err, OperationalError) or err.connection_invalidated
