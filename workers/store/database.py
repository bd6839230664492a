"""A results database to talk to: its URL, its engine, its schema migrations, and patience while it is away.

The rest of slidelab holds a `Database` and passes it to the storage
functions (`workers.store.sweeps`, `.jobs`, `.boards`, `.progress`,
`.rows`); nothing outside this package builds SQL. SQLite is the embedded
default, PostgreSQL what machines share.
"""

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Table, create_engine, event, inspect, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError

from puzzles.errors import PuzzleError

MIGRATIONS = "workers.store:migrations"  # Alembic's scripts, package data found by importlib.resources
# slidelab's schema revision, kept apart from `alembic_version`, which Optuna's RDB storage (`orchestrate tune`'s
# studies, on the same URL) keeps its own in; slidelab kept its revision there before.
VERSION_TABLE = "slidelab_version"
SHARED_VERSION_TABLE = "alembic_version"
# The tables of Optuna's RDB storage (optuna.storages._rdb.models): another history, which slidelab never migrates.
OPTUNA_TABLES = frozenset({
    "studies", "study_directions", "study_user_attributes", "study_system_attributes", "trials", "trial_user_attributes",
    "trial_system_attributes", "trial_params", "trial_values", "trial_intermediate_values", "trial_heartbeats",
    "version_info", SHARED_VERSION_TABLE,
})
T = TypeVar("T")
DatabaseError = SQLAlchemyError  # what a failed call of a storage function raises
# A server that stops answering (a cut link) fails a call within seconds, rather than when TCP gives up (minutes):
# a worker's heartbeat must come back to life soon after its link does.
PG_CONNECT_ARGS = {"connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                   "keepalives_count": 3, "tcp_user_timeout": 10_000}


@dataclass(frozen=True)
class Database:
    """A results database: its URL and the engine that reaches it (one per URL and process)."""

    url: str
    engine: Engine

    @property
    def shown_url(self) -> str:
        """The URL fit to print: its password replaced by ***."""
        return masked(self.url)

    @property
    def file(self) -> Path | None:
        """The SQLite file holding the database, if it is one."""
        location = make_url(self.url)
        if location.get_backend_name() != "sqlite" or location.database in (None, "", ":memory:"):
            return None
        return Path(location.database)

    def insert(self, table: Table) -> Any:
        """An INSERT of this database's dialect, which can say ON CONFLICT DO NOTHING."""
        return (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(table)


def open_database(url: str) -> Database:
    """The database at `url`, brought to the newest schema (a new SQLite file is created, in WAL mode)."""
    upgrade(url)
    db = Database(url, engine_for(url))
    if db.engine.dialect.name == "sqlite":
        with db.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA journal_mode=WAL")  # kept by the file: readers never block the writer
    return db


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
    db = Database(url, engine_for(_read_only_snapshot(location) or url))
    with db.engine.connect() as connection:
        found = revision(connection, _known_revisions(url))
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if found is None:
        raise PuzzleError(f"{shown}: not a slidelab results database (no schema revision in it)")
    if found != head:
        known = found in _known_revisions(url)
        hint = f"run: orchestrate db upgrade --db {shown}" if known else "it was made by a newer slidelab"
        raise PuzzleError(f"{shown}: the schema is at revision {found}, this slidelab reads {head}: {hint}")
    return db


def _read_only_snapshot(location: URL) -> str | None:
    """For a SQLite file this process cannot write (or whose folder it cannot): a URL that reads it as it is.

    SQLite would otherwise need to write beside it (its lock and WAL index files).
    """
    path = location.database
    if location.get_backend_name() != "sqlite" or path in (None, "", ":memory:") or path.startswith("file:"):
        return None
    if os.access(path, os.W_OK) and os.access(Path(path).resolve().parent, os.W_OK):
        return None
    return f"sqlite:///file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1&uri=true"


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


def ping(db: Database) -> None:
    """Ask the database for nothing: DatabaseError if it does not answer."""
    with db.engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def masked(url: str) -> str:
    """A URL fit to print: its password replaced by ***."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "the database URL"


def check_url(url: str) -> str:
    """`url` once it parses as a SQLite or PostgreSQL URL; PuzzleError (one line, no password) if not."""
    try:
        backend, port = make_url(url).get_backend_name(), make_url(url).port
    except (ArgumentError, ValueError) as err:
        detail = "its port is not a number" if isinstance(err, ValueError) else "it does not parse"
        raise PuzzleError(f"the database URL (--db or SLIDELAB_DATABASE_URL) is not valid: {detail}") from None
    if backend not in ("sqlite", "postgresql"):
        raise PuzzleError(f"{masked(url)}: slidelab keeps results in SQLite (sqlite:///FILE) or PostgreSQL"
                          f" (postgresql://USER@HOST/DB), not {backend}")
    if port is not None and not 0 < port < 65536:
        raise PuzzleError(f"{masked(url)}: port {port} is out of range")
    return url


@lru_cache
def engine_for(url: str) -> Engine:
    """One engine per URL and process (create it after forking, never at import time)."""
    postgresql_ = make_url(url).get_backend_name() == "postgresql"
    engine = create_engine(url, pool_pre_ping=True, connect_args=PG_CONNECT_ARGS if postgresql_ else {})
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def alembic_config(url: str) -> Config:
    """An Alembic configuration for the database at `url`, without an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every migration up to `revision`, in one transaction; a new SQLite file is created on the way.

    Only an empty database or slidelab's own (by its schema revision) is
    migrated: another application's is refused untouched.
    """
    _check_ours(url)
    command.upgrade(alembic_config(url), revision)


def revision(connection: Connection, known: set[str]) -> str | None:
    """slidelab's schema revision of the database: in its own version table, else (kept there before) in
    `alembic_version` if that holds one of the `known` revisions; None for neither."""
    found = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE}).get_current_revision()
    if found is None and inspect(connection).has_table(SHARED_VERSION_TABLE):
        shared = MigrationContext.configure(connection).get_current_revision()
        found = shared if shared in known else None
    return found


def _known_revisions(url: str) -> set[str]:
    return {script.revision for script in ScriptDirectory.from_config(alembic_config(url)).walk_revisions()}


def _move_revision(url: str, known: set[str]) -> None:
    """A revision slidelab kept in `alembic_version` moved to its own table, so that Optuna can keep its own there."""
    with migration_engine(url).begin() as connection:
        if not inspect(connection).has_table(SHARED_VERSION_TABLE):
            return
        shared = MigrationContext.configure(connection)
        own = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        found = shared.get_current_revision()
        if found in known and own.get_current_revision() is None:
            own.stamp(ScriptDirectory.from_config(alembic_config(url)), found)
            connection.execute(shared._version.delete())


def _check_ours(url: str) -> None:
    known = _known_revisions(url)
    with engine_for(url).connect() as connection:
        found = revision(connection, known)
        tables = set(inspect(connection).get_table_names()) - {VERSION_TABLE} - OPTUNA_TABLES  # left empty by a downgrade
    if found is None and tables:
        shown = ", ".join(sorted(tables)[:4]) + (", ..." if len(tables) > 4 else "")
        raise PuzzleError(f"{masked(url)}: not a slidelab results database (it holds the tables {shown} and no"
                          " slidelab schema revision); nothing was changed: give --db another database")
    if found is not None and found not in known:
        raise PuzzleError(f"{masked(url)}: its schema revision {found} is not one of slidelab's (made by a newer"
                          " slidelab, or another application); nothing was changed")
    _move_revision(url, known)


def migration_engine(url: str) -> Engine:
    """An engine for migrations: on SQLite, with transactions that hold DDL too, so a migration is all or nothing.

    Python's sqlite3 runs CREATE and ALTER outside the transaction it opens for
    writes; here the driver's own transaction handling is turned off and each
    transaction begins with an explicit BEGIN (SQLAlchemy's documented recipe).
    """
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_autocommit)
        event.listen(engine, "begin", lambda connection: connection.exec_driver_sql("BEGIN"))
    return engine


def _sqlite_autocommit(connection, _record) -> None:
    connection.isolation_level = None


def downgrade(url: str, revision: str) -> None:
    """Undo the migrations down to `revision` (`base`: an empty database)."""
    _move_revision(url, _known_revisions(url))
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
