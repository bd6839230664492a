"""The databases a library call opens: read as they are for reports, brought to the newest schema for runs.

Every call takes `db` (a database URL) and, where work is queued, `broker`;
those left None come from the environment (`SLIDELAB_DATABASE_URL`, else
`sqlite:///slidelab.db`; `SLIDELAB_BROKER_URL`, else the local pool), as the
command line's `--db` and `--broker` do.
"""

from workers.settings import Settings, configure
from workers.store import Database, open_database, open_existing


def configured(db: str | None = None, broker: str | None = None) -> Settings:
    """The environment's settings with `db` and `broker` where given, made this process's settings."""
    return configure(database_url=db, broker_url=broker)


def reading(db: str | None = None) -> Database:
    """The database at `db` as it is: nothing is created or migrated; PuzzleError if there is none there."""
    return open_existing(configured(db).database_url)


def writing(db: str | None = None, broker: str | None = None) -> Database:
    """The database at `db`, made or brought to the newest schema, for a call that stores jobs and results."""
    return open_database(configured(db, broker).database_url)
