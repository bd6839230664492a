"""The one settings object, read from the environment (`SLIDELAB_*`).

Command-line options override it; nothing else in slidelab reads `os.environ`.
"""

from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url


class Settings(BaseSettings):
    """Where results go, where work is queued, where caches live."""

    model_config = SettingsConfigDict(env_prefix="SLIDELAB_")

    database_url: str = "sqlite:///slidelab.db"
    broker_url: str | None = None  # none: sweeps run in a local process pool
    cache_dir: Path = Path.home() / ".cache" / "slidelab"
    db_retry_seconds: float = 300.0  # how long a worker waits for an unreachable database
    redelivery_seconds: float = 3600.0  # a job on a lost worker is delivered again after this


_current: list[Settings] = []


def settings() -> Settings:
    """The settings of this process: the environment's, with any overrides applied."""
    if not _current:
        _current.append(Settings())
    return _current[0]


def override(**values: Any) -> Settings:
    """Replace the given settings for this process (command-line options); None leaves one as it is."""
    updated = settings().model_copy(update={name: value for name, value in values.items() if value is not None})
    _current[:] = [updated]
    return updated


def masked(url: str) -> str:
    """A URL fit to print: its password replaced by ***."""
    return make_url(url).render_as_string(hide_password=True)
