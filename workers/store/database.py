"""A results database to talk to: its URL, its engine, and patience while it is away.

The rest of slidelab holds a `Database` and passes it to the storage
functions (`workers.store.sweeps`, `.jobs`, `.boards`, `.progress`,
`.rows`); nothing outside this package builds SQL. SQLite is the embedded
default, PostgreSQL what machines share.
"""

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from sqlalchemy import Table, create_engine, event, inspect, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError

from puzzles.errors import PuzzleError

# How long a SQLite write waits for the lock another connection holds before it fails "database is locked";
# the URL's own `?timeout=SECONDS` (the sqlite3 driver's) wins.
SQLITE_WAIT_S = 30.0
T = TypeVar("T")
# slidelab's schema revision is kept in its own table (`workers.store.migrate`), and this code reads and writes the
# newest: the last migration's revision (a test holds the two equal).
VERSION_TABLE = "slidelab_version"
SCHEMA_HEAD = "0012"
DatabaseError = SQLAlchemyError  # what a failed call of a storage function raises
# A server that stops answering (a cut link) fails a call within seconds, rather than when TCP gives up (minutes):
# a worker's heartbeat must come back to life soon after its link does. The server's side of the same: a session
# whose client vanished inside a transaction (its link cut between two statements) would keep the job rows it
# locked until the server's kernel gave up on the connection (two hours), and lapsed leases are looked for with
# SKIP LOCKED. The server's own keepalives, and its user timeout where what it sent goes unacknowledged, end such a
# session within about 11 s; a transaction idle for a minute is ended whatever the network does (a client frozen
# while its kernel still answers).
PG_SESSION = ("-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3"
              " -c tcp_user_timeout=10000 -c idle_in_transaction_session_timeout=60000")
PG_CONNECT_ARGS = {"connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                   "keepalives_count": 3, "tcp_user_timeout": 10_000, "options": PG_SESSION}


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

    @property
    def reads_side_by_side(self) -> bool:
        """Whether whole sweeps may be read at once, on connections of their own: on PostgreSQL. Two of SQLite's
        columnar readers (ADBC) opening one file at once can find it locked."""
        return self.engine.dialect.name == "postgresql"

    def insert(self, table: Table) -> Any:
        """An INSERT of this database's dialect, which can say ON CONFLICT DO NOTHING."""
        dialect = importlib.import_module(f"sqlalchemy.dialects.{self.engine.dialect.name}")  # loaded where it is used
        return dialect.insert(table)


def open_database(url: str) -> Database:
    """The database at `url`, brought to the newest schema (a new SQLite file is created, in WAL mode)."""
    db = Database(url, engine_for(url))
    if not _at_head(db):
        from workers.store.migrate import upgrade  # Alembic: loaded only where there is a schema to make or migrate

        upgrade(url)
    if db.engine.dialect.name == "sqlite":
        _write_ahead_log(db)
    return db


def _write_ahead_log(db: Database) -> None:
    """The SQLite file in WAL mode, which the file keeps: readers never block the writer.

    Switching needs the file to itself for a moment, and SQLite answers
    "locked" at once, without waiting, to a command that asks while another
    opens the new file too (two sweeps started together): such a command looks
    again (`retrying`) until the file is in WAL mode, for up to `SQLITE_WAIT_S`.
    A file that cannot be (a filesystem without shared memory) stays in its mode.
    """

    def switch() -> None:
        with db.engine.connect() as connection:
            if connection.exec_driver_sql("PRAGMA journal_mode").scalar() != "wal":
                connection.exec_driver_sql("PRAGMA journal_mode=WAL")

    retrying(switch, SQLITE_WAIT_S)


def open_existing(url: str) -> Database:
    """The database at `url` as it is, for a command that only reads: nothing is created or migrated.

    PuzzleError if there is no database there (a missing SQLite file), if it is
    not slidelab's, or if its schema is not this code's (older: `orchestrate db
    upgrade` brings it up to date; newer: made by a newer slidelab).
    """
    shown = masked(check_url(url))
    location = make_url(url)
    if location.get_backend_name() == "sqlite" and location.database not in (None, "", ":memory:"):
        if not Path(location.database).is_file():
            raise PuzzleError(f"{shown}: no results database there (a sweep or orchestrate db upgrade makes one)")
    db = Database(url, engine_for(_read_only_snapshot(location) or url))
    if not _at_head(db):
        _check_revision(db)
    return db


def _at_head(db: Database) -> bool:
    """Whether slidelab's version table says the schema is at `SCHEMA_HEAD`: the common case, told without Alembic
    (whose import and reading of the migrations cost a command more than its query). False for a SQLite file not
    there yet."""
    if db.file is not None and not db.file.is_file():
        return False
    with db.engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return False
        return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar() == SCHEMA_HEAD


def _check_revision(db: Database) -> None:
    """PuzzleError unless the database holds slidelab's schema at this code's revision (Alembic's reading)."""
    from workers.store.migrate import head_revision, known_revisions, revision

    url, shown = db.url, db.shown_url
    with db.engine.connect() as connection:
        found = revision(connection, known_revisions(url))
    head = head_revision(url)
    if found is None:
        raise PuzzleError(f"{shown}: not a slidelab results database (no schema revision in it)")
    if found != head:
        known = found in known_revisions(url)
        hint = f"run: orchestrate db upgrade --db {shown}" if known else "it was made by a newer slidelab"
        raise PuzzleError(f"{shown}: the schema is at revision {found}, this slidelab reads {head}: {hint}")


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
    engine = create_engine(url, pool_pre_ping=True, connect_args=sqlite_connect_args(url))
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


_ENGINES: list[Engine] = []  # made by engine_for in this process


@lru_cache
def engine_for(url: str) -> Engine:
    """One engine per URL and process (create it after forking, never at import time); PuzzleError for a URL that
    is not SQLite's or PostgreSQL's (`check_url`)."""
    check_url(url)
    postgresql_ = make_url(url).get_backend_name() == "postgresql"
    engine = create_engine(url, pool_pre_ping=True, connect_args=PG_CONNECT_ARGS if postgresql_ else sqlite_connect_args(url))
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    _ENGINES.append(engine)
    return engine


def close_all() -> None:
    """Close every connection this process's engines hold, as a command ends: the last connection to a SQLite file
    closed folds its write-ahead log into it and removes the log, so the folder holds the database alone."""
    for engine in _ENGINES:
        engine.dispose()


def sqlite_connect_args(url: str) -> dict[str, float]:
    """The sqlite3 driver's arguments for `url`: a wait of SQLITE_WAIT_S for a lock, unless the URL says `?timeout=`."""
    return {} if "timeout" in make_url(url).query else {"timeout": SQLITE_WAIT_S}


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


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
    if disk_full(err):
        return False  # waiting does not free space: the caller stops, and `resume` goes on once there is room
    return isinstance(err, OperationalError) or err.connection_invalidated


def disk_full(err: BaseException) -> bool:
    """True for SQLite's "database or disk is full": its file's disk (or the temporary folder's) has no room left."""
    return getattr(getattr(err, "orig", None), "sqlite_errorname", None) == "SQLITE_FULL"
