"""Alembic environment: the URL comes from the caller's config, else from the settings."""

from alembic import context

from workers.settings import settings
from workers.store.database import migration_engine
from workers.store.schema import metadata

url = context.config.get_main_option("sqlalchemy.url") or settings().database_url


def run_migrations() -> None:
    """Run the migrations on `url`, in batch mode so that they also work on SQLite."""
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=metadata, render_as_batch=True, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = migration_engine(url)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
