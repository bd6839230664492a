"""Alembic environment: the URL comes from the caller's config, else from the settings."""

from typing import Any

from alembic import context

from workers.settings import settings
from workers.store.migrate import VERSION_TABLE, compare_type, migration_engine
from workers.store.schema import metadata

url = context.config.get_main_option("sqlalchemy.url") or settings().database_url


def ours(name, kind, _parent) -> bool:
    """Whether autogenerate looks at a table: only slidelab's (Optuna's, on the same database, have their own history)."""
    return kind != "table" or name in metadata.tables


OPTIONS: dict[str, Any] = {"target_metadata": metadata, "render_as_batch": True, "version_table": VERSION_TABLE, "include_name": ours,
                           "compare_type": compare_type}


def run_migrations() -> None:
    """Run the migrations on `url`, in batch mode so that they also work on SQLite; the revision in slidelab's own table."""
    if context.is_offline_mode():
        context.configure(url=url, literal_binds=True, **OPTIONS)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = migration_engine(url)
    with engine.connect() as connection:
        # One transaction for the whole run, the revision read inside it (Alembic's default on SQLite is a transaction
        # per migration, the revision read before any): a second command migrating a new file at once waits for the
        # first's, then finds nothing to do, rather than creating the tables again.
        context.configure(connection=connection, transactional_ddl=True, **OPTIONS)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
