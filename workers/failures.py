"""Failures of the services slidelab talks to (the results database, the broker), worded for the user.

The command line shows them as one line and an exit status: 2 for a URL that
does not parse (bad input), 1 for a server that could not be reached or
refused. A wrong setting is refused by `workers.settings.configure` itself.
"""

from kombu.exceptions import OperationalError as BrokerError
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from workers.settings import settings
from workers.store.database import SQLITE_WAIT_S, disk_full, masked

# What "database is locked" means once a SQLite write waited its whole wait, and what to do about it.
SQLITE_LOCKED = (f"another program held its write lock over {SQLITE_WAIT_S:.0f} s (or the URL's ?timeout=SECONDS);"
                 " many writers need PostgreSQL (docs/scaling.md)")

SQLITE_FULL = ("what was stored is intact; free space on its disk, then run the command again (a sweep: orchestrate"
               " resume SWEEP)")


def service_failure(err: Exception) -> tuple[str, int] | None:
    """(one line, exit status) for a failure of the database or the broker; None for any other exception."""
    if isinstance(err, ArgumentError):
        return "the database URL (--db or SLIDELAB_DATABASE_URL) does not parse", 2
    if isinstance(err, SQLAlchemyError):
        cause = str(getattr(err, "orig", None) or err).strip().splitlines()[0]
        advice = f": {SQLITE_LOCKED}" if cause == "database is locked" else f": {SQLITE_FULL}" if disk_full(err) else ""
        return f"{masked(settings().database_url)}: {cause}{advice}", 1
    if isinstance(err, BrokerError):
        return f"broker {masked(settings().broker_url or '')}: {err}", 1
    return None
