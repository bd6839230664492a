"""Finding a stored sweep by name, or the newest one, with an error that names the known ones."""

from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store import sweeps as sweep_store
from workers.store.sweeps import SweepRow


def find_sweep(db: Database, name: str) -> SweepRow:
    """The sweep called `name`; PuzzleError naming the known sweeps if there is none."""
    sweep = sweep_store.find(db, name)
    if sweep is None:
        known = sweep_store.recent_names(db)
        hint = f" (recent: {', '.join(known)})" if known else " (there are none yet)"
        raise PuzzleError(f"no sweep named {name!r}{hint}")
    return sweep


def newest_sweep(db: Database) -> SweepRow:
    """The sweep made last; PuzzleError if the database holds none."""
    sweep = sweep_store.newest(db)
    if sweep is None:
        raise PuzzleError(f"{db.shown_url} holds no sweeps yet")
    return sweep
