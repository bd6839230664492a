"""The one settings object, read from the environment (`SLIDELAB_*`), and the one place a process is configured.

`configure` is where process-wide configuration is set, and nowhere else:
the command line calls it with its options (`--db`, `--broker`), a job
process with its parent's settings. It also points the solver core at the
settings' cache directory (the pattern databases' folder). Nothing else in
slidelab reads `os.environ`.
"""

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from puzzles.errors import PuzzleError

__all__ = ["Settings", "configure", "settings"]


class Settings(BaseSettings):
    """Where results go, where work is queued, where caches live."""

    model_config = SettingsConfigDict(env_prefix="SLIDELAB_")

    database_url: str = "sqlite:///slidelab.db"
    broker_url: str | None = None  # none: sweeps run in a local process pool
    cache_dir: Path = Path.home() / ".cache" / "slidelab"
    db_retry_seconds: float = 300.0  # how long a worker waits for an unreachable database
    redelivery_seconds: float = 3600.0  # the broker's backstop: an unacknowledged message is delivered again
    lease_seconds: float = 45.0  # a running job whose worker has not renewed its lease for this long is re-queued
    heartbeat_seconds: float = 10.0  # how often a worker renews its leases and looks for lapsed ones
    max_attempts: int = 3  # a job whose worker was lost this many times is stored as an error
    reconcile_seconds: float = 30.0  # how often a worker compares the broker's queue with the database's
    health_file: Path | None = None  # touched by a worker's heartbeat whenever it reached the database
    max_jobs: int = 1_000_000  # the most jobs one sweep may plan: a typo in a grid is refused, not expanded

    @field_validator("broker_url")
    @classmethod
    def _empty_is_none(cls, url: str | None) -> str | None:
        return url or None  # SLIDELAB_BROKER_URL= (as a .env file may say): no broker, as if unset

    @model_validator(mode="after")
    def _renewed_before_lapsing(self) -> "Settings":
        if self.heartbeat_seconds >= self.lease_seconds:
            raise ValueError("SLIDELAB_HEARTBEAT_SECONDS must be shorter than SLIDELAB_LEASE_SECONDS")
        return self


_current: list[Settings] = []
BROKER_SCHEMES = ("redis", "rediss", "amqp", "amqps", "redis+socket", "pyamqp", "sentinel", "memory")


def check_broker_url(url: str) -> str:
    """`url` once it is a broker URL whose scheme Celery speaks and whose port is a number; PuzzleError if not."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # reading it parses it
    except ValueError:  # a port that is no number, a bracket that opens no IPv6 address
        raise PuzzleError("the broker URL (--broker or SLIDELAB_BROKER_URL) is not valid: its host or port does not"
                          " parse (a password with / or @ must be percent-encoded)") from None
    if parts.scheme not in BROKER_SCHEMES or "://" not in url:
        raise PuzzleError(f"the broker URL (--broker or SLIDELAB_BROKER_URL) must start with one of"
                          f" {', '.join(s + '://' for s in BROKER_SCHEMES[:4])}")
    return url


def settings() -> Settings:
    """This process's settings: as `configure` set them, else the environment's."""
    if not _current:
        configure()
    return _current[0]


def configure(base: Settings | None = None, **overrides: Any) -> Settings:
    """Set this process's configuration: `base` (default: the environment's) with the overrides that are not None.

    The broker's URL is checked here; the database's where a connection to
    it is first made (`workers.store.database.engine_for`), with SQLAlchemy's
    parser, which a command or a job process that never opens the database
    then never loads. The solver core's pattern databases live in the `pdb`
    folder of the settings' cache directory.
    """
    from puzzles.npuzzle import pdb_folder  # no compiled code: a command that only reads results loads none

    try:
        current = (base or Settings()).model_copy(update={k: v for k, v in overrides.items() if v is not None})
    except ValidationError as err:
        problem = err.errors()[0]
        where = f"SLIDELAB_{str(problem['loc'][0]).upper()}: " if problem["loc"] else ""
        raise PuzzleError(where + problem["msg"].removeprefix("Value error, ")) from None
    if current.broker_url is not None:
        check_broker_url(current.broker_url)
    _current[:] = [current]
    pdb_folder.use_directory(current.cache_dir / "pdb")
    return current
