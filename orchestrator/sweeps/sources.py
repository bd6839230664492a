"""Where a sweep's boards come from: files, board lists, globs, directories, literal strings or sets."""

import glob
import os
import re
from pathlib import Path

from orchestrator.boards.catalogue import set_boards, set_name
from puzzles.domains import Instance, check_board_goal, load_instances
from puzzles.errors import PuzzleError
from workers.store import Database

_GLOB_CHARS = re.compile(r"[*?\[]")


def board_sources(sources: list[str]) -> list[str]:
    """Files, directories (their files, sorted) and globs expanded; anything else (a literal board, FILE#ID) kept."""
    expanded: list[str] = []
    for source in sources:
        if os.path.isdir(source):
            files = sorted(str(p) for p in Path(source).iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise PuzzleError(f"{source}: the directory holds no board files")
            expanded += files
        elif not os.path.exists(source) and _GLOB_CHARS.search(source) and "\n" not in source:
            matches = sorted(glob.glob(source))
            if not matches:
                raise PuzzleError(f"{source}: no file matches")
            expanded += board_sources(matches)
        else:
            expanded.append(source)
    return expanded


def load_boards(
    sources: list[str], *, goal: str | None = None, db: Database | None = None, write: bool = True
) -> list[Instance]:
    """Every board of the sources, validated; a board given twice is kept once.

    A board list gives a board per row, `set:NAME` the set's boards in order,
    read from the database `db` (a shipped set it lacks is imported there first
    if `write`). `goal` is the goal of every N-puzzle board that does not give
    its own (a set's boards have theirs); Rush Hour boards ignore it.
    """
    if not sources:
        raise PuzzleError("no boards given (--boards FILE|DIR|GLOB|BOARD|set:NAME)")
    if goal is not None:
        check_board_goal(goal)
    boards: dict[str, Instance] = {}
    for source in sources:
        for instance in _source_boards(source, goal, db, write):
            boards.setdefault(instance.id, instance)
    return list(boards.values())


def needs_database(sources: list[str]) -> bool:
    """True if a board source is a set (`set:NAME`), which is read from the results database."""
    return any(set_name(source) is not None for source in sources)


def _source_boards(source: str, goal: str | None, db: Database | None, write: bool) -> list[Instance]:
    """The boards of one source: a set's from the database, else those of its files or literal board."""
    name = set_name(source)
    if name is None:
        return [instance for path in board_sources([source]) for instance in load_instances(path, goal=goal)]
    if db is None:
        raise PuzzleError(f"{source}: a board set is read from the results database, and none was given")
    return set_boards(db, name, import_shipped=write)
