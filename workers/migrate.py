"""Bring a results database to the newest schema with the Alembic migrations in `migrations/`."""

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"


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
