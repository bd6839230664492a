"""The results database's schema history: Alembic's migrations, slidelab's revision kept apart from Optuna's.

Only the processes that create, upgrade or check a database's schema load
this (and Alembic with it): `open_database`, `open_existing`, `orchestrate
db`; a worker's job processes, which never touch the database, do not.
"""

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import String, create_engine, event, inspect, table
from sqlalchemy.engine import Connection, Engine, make_url

from puzzles.errors import PuzzleError
from workers.store.database import VERSION_TABLE, engine_for, masked, sqlite_connect_args

MIGRATIONS = "workers.store:migrations"  # Alembic's scripts, package data found by importlib.resources
# Where Optuna's RDB storage (`orchestrate tune`'s studies, on the same URL) keeps its schema revision; a database
# made by a slidelab without VERSION_TABLE holds slidelab's revision there (`_move_revision` moves it).
SHARED_VERSION_TABLE = "alembic_version"
# The tables of Optuna's RDB storage (optuna.storages._rdb.models): another history, which slidelab never migrates.
OPTUNA_TABLES = frozenset({
    "studies", "study_directions", "study_user_attributes", "study_system_attributes", "trials", "trial_user_attributes",
    "trial_system_attributes", "trial_params", "trial_values", "trial_intermediate_values", "trial_heartbeats",
    "version_info", SHARED_VERSION_TABLE,
})


def compare_type(context, inspected_column, metadata_column, inspected_type, metadata_type) -> bool | None:
    """Alembic's comparison of a column's type, less a VARCHAR's length on SQLite, which ignores it (any text fits).

    `jobs.algorithm` grew to 255 characters in migration 0012 on PostgreSQL;
    SQLite's declared VARCHAR(32) stays, and holds a plugin file's path as well.
    """
    if context.dialect.name == "sqlite" and isinstance(inspected_type, String) and isinstance(metadata_type, String):
        return False
    return None  # Alembic's own comparison


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


def head_revision(url: str) -> str | None:
    """The newest revision of slidelab's schema: the one this code reads and writes."""
    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


def revision(connection: Connection, known: set[str]) -> str | None:
    """slidelab's schema revision of the database: in its own version table, else (kept there before) in
    `alembic_version` if that holds one of the `known` revisions; None for neither."""
    found = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE}).get_current_revision()
    if found is None and inspect(connection).has_table(SHARED_VERSION_TABLE):
        shared = MigrationContext.configure(connection).get_current_revision()
        found = shared if shared in known else None
    return found


def known_revisions(url: str) -> set[str]:
    """Every revision of slidelab's schema history."""
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
            connection.execute(table(SHARED_VERSION_TABLE).delete())


def _check_ours(url: str) -> None:
    known = known_revisions(url)
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
    transaction begins with an explicit BEGIN (SQLAlchemy's documented recipe),
    IMMEDIATE: it takes the write lock first, so that two commands opening a new
    file at once migrate it one after the other. A transaction that read first
    would fail at its first write, without waiting, once the other had written.
    """
    sqlite_ = make_url(url).get_backend_name() == "sqlite"
    engine = create_engine(url, connect_args=sqlite_connect_args(url) if sqlite_ else {})
    if sqlite_:
        event.listen(engine, "connect", _sqlite_autocommit)
        event.listen(engine, "begin", lambda connection: connection.exec_driver_sql("BEGIN IMMEDIATE"))
    return engine


def _sqlite_autocommit(connection, _record) -> None:
    connection.isolation_level = None


def downgrade(url: str, revision: str) -> None:
    """Undo the migrations down to `revision` (`base`: an empty database)."""
    _move_revision(url, known_revisions(url))
    command.downgrade(alembic_config(url), revision)
