"""The one settings object, read from the environment (`SLIDELAB_*`).

Command-line options override it; nothing else in slidelab reads `os.environ`.
"""

from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url


class Settings(BaseSettings):
    """Where results go, where work is queued, where caches live."""

    model_config = SettingsConfigDict(env_prefix="SLIDELAB_")

    database_url: str = "sqlite:///slidelab.db"
    broker_url: str | None = None  # none: sweeps run in a local process pool
    cache_dir: Path = Path.home() / ".cache" / "slidelab"


@lru_cache
def settings() -> Settings:
    """The settings of this process."""
    return Settings()


def masked(url: str) -> str:
    """A URL fit to print: its password replaced by ***."""
    return make_url(url).render_as_string(hide_password=True)
