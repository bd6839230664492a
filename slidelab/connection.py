"""The database a library call opens: as it is for reading, brought to the newest schema for running.

Every call takes `db`: a database URL, an open `Database`, or None for the
environment's (`SLIDELAB_DATABASE_URL`, else `sqlite:///slidelab.db`); and,
where work is queued, `broker` (None: `SLIDELAB_BROKER_URL`, else the local
pool), as the command line's `--db` and `--broker` do.
"""

from typing import TypeAlias

from workers.settings import configure
from workers.store import Database, open_database, open_existing

DbArg: TypeAlias = str | Database | None  # a database URL, an open database, or None: the environment's


def database(db: DbArg = None, broker: str | None = None, *, existing: bool = False) -> Database:
    """The database of `db`, made or brought to the newest schema (`existing`: as it is, never created or migrated;
    PuzzleError if there is none there); the process configured with it and `broker`."""
    if isinstance(db, Database):
        return db
    url = configure(database_url=db, broker_url=broker).database_url
    return open_existing(url) if existing else open_database(url)
