"""The board catalogue: boards stored once by content hash, grouped in named, ordered sets.

A set is read wherever boards are given, as `set:NAME` (`orchestrate sweep
--boards set:NAME`), in the order its boards were added. Three sets ship with
slidelab (`SHIPPED`); each is imported into a database, with the known optima
its files give, the first time a command names it. Imports are idempotent: a
board is stored once however often and under whatever name it comes, a set
never holds a board twice, and a known optimum, once stored, is never changed.
"""

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources

from puzzles.domains import Instance, find_domain, is_board_list, listed_optima, load_instance, load_instances
from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store import boards as board_store
from workers.store.boards import Imported, StoredBoard

SET_PREFIX = "set:"
SHIPPED_FILES = resources.files(__package__) / "shipped"  # package data; data/boards in a checkout links to it
_SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_ID_PREFIX = re.compile(r"[0-9a-f]{6,64}")


@dataclass(frozen=True)
class ShippedSet:
    """A set that ships with slidelab: board files under `SHIPPED_FILES`, and optima by board name that they lack."""

    files: tuple[str, ...]
    optima: dict[str, int] = field(default_factory=dict)


COURSE = ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6", "12x12_7")
# Fewest moves, proven by BFS (tests/puzzles/test_rushhour_search.py, docs/performance.md); 12x12_7's 25: no
# solution within 24 moves (`layered`, docs/performance.md) and a public solution of 25.
COURSE_OPTIMA = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33,
                 "Rushhour9x9_4": 27, "Rushhour9x9_5": 22, "Rushhour9x9_6": 18, "Rushhour12x12_7": 25}
SHIPPED = {
    "rushhour-course": ShippedSet(tuple(f"rushhour/Rushhour{board}.csv" for board in COURSE), COURSE_OPTIMA),
    "korf100": ShippedSet(("npuzzle/korf100.csv",)),
    "korf24": ShippedSet(("npuzzle/korf24.csv",)),
    "eight-puzzle-seed": ShippedSet(("npuzzle/eight-puzzle-seed.csv",)),
}


@dataclass(frozen=True)
class SetSummary:
    """One line of `orchestrate boards list`: a set, its boards and how many have a known optimum."""

    name: str
    boards: int
    optima: int
    created_at: datetime | None  # None: a shipped set not imported yet
    shipped: bool


@dataclass(frozen=True)
class BoardInfo:
    """A board, its known optimum and its sets (None: the board is not in the database)."""

    board: Instance
    known_optimum: int | None
    sets: list[str] | None


def set_name(source: str) -> str | None:
    """The name in a `set:NAME` board source, else None."""
    return source[len(SET_PREFIX):] if source.startswith(SET_PREFIX) else None


def check_set_name(name: str) -> str:
    """`name` if it can name a set (letters, digits, `.`, `_`, `-`); PuzzleError otherwise."""
    if not _SET_NAME.fullmatch(name):
        raise PuzzleError(f"set name {name!r}: use letters, digits, '.', '_' and '-' (starting with a letter or digit)")
    return name


def import_boards(db: Database, boards: list[Instance], optima: dict[str, int], name: str | None) -> Imported:
    """Store the boards (each once), their known optima, and append to set `name` the boards it lacks.

    A shipped set's name is refused; an optimum that contradicts a stored one is
    a PuzzleError, and nothing is written.
    """
    if name is not None and check_set_name(name) in SHIPPED:
        raise PuzzleError(f"{name} is a set shipped with slidelab: import into a set of another name")
    if name is not None:
        _check_unique_names(board_store.set_members(db, name) or [], boards, name)
    imported = board_store.import_boards(db, boards, optima, name)
    remember_optima(db, boards)
    return imported


def _check_unique_names(held: list[StoredBoard], boards: list[Instance], name: str) -> None:
    """PuzzleError if the set would hold two boards of one name (a name must say which board of the set it is)."""
    ids_by_name: dict[str, set[str]] = {}
    named: list[StoredBoard | Instance] = [*held, *boards]
    for board in named:
        if board.name:
            ids_by_name.setdefault(board.name, set()).add(board.id)
    repeated = sorted(board_name for board_name, ids in ids_by_name.items() if len(ids) > 1)
    if repeated:
        raise PuzzleError(f"set {name} would hold several boards named {', '.join(repeated[:5])}: board names in a set"
                          " are unique (rename the files, or import into another set)")


def set_boards(db: Database, name: str, *, import_shipped: bool = True) -> list[Instance]:
    """The boards of set `name`, in order; PuzzleError if there is no such set.

    A shipped set the database lacks is imported first, with its known optima,
    unless `import_shipped` is False (a dry run): its files are read then.
    """
    if import_shipped and name in SHIPPED:
        _import_shipped(db, name)
    return [instance(board) for board in members(db, name)]


def members(db: Database, name: str) -> list[StoredBoard]:
    """The boards of set `name`, in order, with their known optima; PuzzleError if there is no such set.

    A shipped set the database lacks is read from its files: listing writes nothing.
    """
    check_set_name(name)
    boards = board_store.set_members(db, name)
    if boards is None and name in SHIPPED:
        boards = _shipped_members(name)
    if boards is None:
        known = sorted(set(board_store.set_names(db)) | SHIPPED.keys())
        raise PuzzleError(f"no board set named {name!r} (sets: {', '.join(known)})")
    return boards


def list_sets(db: Database) -> list[SetSummary]:
    """Every set of the database by name, and the shipped sets not imported yet (counted from their files)."""
    summaries = {
        stored.name: SetSummary(stored.name, stored.boards, stored.optima, stored.created_at, stored.name in SHIPPED)
        for stored in board_store.set_counts(db)
    }
    for name in SHIPPED.keys() - summaries.keys():
        boards, optima = shipped_boards(name)
        summaries[name] = SetSummary(name, len(boards), len(optima), None, True)
    return sorted(summaries.values(), key=lambda summary: summary.name)


def board_info(db: Database, key: str) -> BoardInfo:
    """The board `key` names, with its known optimum and sets; PuzzleError if none fits.

    `key` is a board file or ``FILE#ID``, a stored or shipped board's name or
    the start of its id (6 hex digits or more), or a literal board. A shipped
    board the database lacks is described from its set's files.
    """
    if os.path.exists(key) or is_board_list(key):
        return _info(db, load_instance(key))
    named = _stored(db, key) or _shipped_named(key)
    if named is not None:
        return _info(db, instance(named))
    try:
        board = load_instance(key)
    except PuzzleError as err:
        raise PuzzleError(f"{key!r} is neither the name or id of a stored board nor a board ({err})") from None
    return _info(db, board)


def shipped_optima(board_ids: Iterable[str]) -> dict[str, int]:
    """The known optima the shipped sets give for these boards, by id: an optimum belongs to the board's content."""
    index = _shipped_index()
    return {board_id: optimum for board_id in board_ids
            if board_id in index and (optimum := index[board_id][0].known_optimum) is not None}


def remember_optima(db: Database, boards: list[Instance]) -> None:
    """Store the shipped known optima of these stored boards, whichever way they came (a file, a glob, a set)."""
    board_store.store_optima(db, shipped_optima(board.id for board in boards))


def instance(board: StoredBoard) -> Instance:
    """A stored board as the planner takes it."""
    return Instance(board.domain, board.name, board.size, board.canonical_text)


def shipped_boards(name: str) -> tuple[list[Instance], dict[str, int]]:
    """A shipped set's boards, read from its files, and their known optima by board id."""
    shipped = SHIPPED[name]
    sources = [str(SHIPPED_FILES / file) for file in shipped.files]
    boards = [board for source in sources for board in load_instances(source)]
    optima = {board.id: shipped.optima[board.name] for board in boards if board.name in shipped.optima}
    return boards, {**listed_optima(sources), **optima}


def _import_shipped(db: Database, name: str) -> None:
    """Import a shipped set, unless the database has it already."""
    if not board_store.has_set(db, name):
        board_store.import_boards(db, *shipped_boards(name), name)


def _stored(db: Database, key: str) -> StoredBoard | None:
    """The stored board named `key`, else the one whose id starts with `key`; PuzzleError if several fit."""
    found = board_store.boards_named(db, key)
    if not found and _ID_PREFIX.fullmatch(key.lower()):
        found = board_store.boards_with_id_prefix(db, key.lower())
    if len(found) > 1:
        raise PuzzleError(f"{key!r} names several boards: give one's id ({', '.join(b.id[:12] for b in found)})")
    return found[0] if found else None


def _shipped_members(name: str) -> list[StoredBoard]:
    """A shipped set's boards as its files give them, with their known optima."""
    boards, optima = shipped_boards(name)
    return [StoredBoard(b.id, b.domain, b.size, b.name, b.text, optima.get(b.id)) for b in boards]


def _shipped_named(key: str) -> StoredBoard | None:
    """The shipped board called `key`, or whose id starts with `key`; None if no shipped set has one."""
    prefix = key.lower() if _ID_PREFIX.fullmatch(key.lower()) else None
    found = [board for board, _ in _shipped_index().values()
             if board.name == key or (prefix is not None and board.id.startswith(prefix))]
    return found[0] if found else None


@lru_cache(maxsize=1)
def _shipped_index() -> dict[str, tuple[StoredBoard, list[str]]]:
    """Every shipped board by id, as its files give it, with the names of the shipped sets it is in."""
    index: dict[str, tuple[StoredBoard, list[str]]] = {}
    for name in SHIPPED:
        for board in _shipped_members(name):
            index.setdefault(board.id, (board, []))[1].append(name)
    return index


def _info(db: Database, board: Instance) -> BoardInfo:
    """The board as stored (its stored name, known optimum and sets), as shipped, or as given."""
    found = board_store.board_with_sets(db, board.id)
    if found is not None:
        stored, sets = found
        known = stored.known_optimum if stored.known_optimum is not None else shipped_optima([board.id]).get(board.id)
        return BoardInfo(instance(stored), known, sets)
    if board.id in _shipped_index():
        shipped, sets = _shipped_index()[board.id]
        return BoardInfo(instance(shipped), shipped.known_optimum, [f"{name} (shipped)" for name in sets])
    return BoardInfo(board, None, None)


def generated_name(
    domain: str, size: int, seed: int, *, min_moves: int | None = None, moves: int | None = None,
    walk: int | None = None, height: int | None = None, goal: str = "blank-last",
) -> str:
    """The name of a generation: `rushhour-6x6-s1-min20`, `npuzzle-4x4-s1-walk40-blank-first`, ...

    Every option that changes the boards is in it: generated boards are named
    after it (`<name>-001`, ...) and go to the set of that name by default, so
    two generations never share a board name or a default set.
    """
    variant = {"min": min_moves, "moves": moves, "walk": walk}
    parts = [f"{domain}-{size}x{height or size}-s{seed}", *(f"{key}{value}" for key, value in variant.items() if value is not None)]
    return "-".join(parts + ([goal] if domain == "npuzzle" and goal != "blank-last" else []))


def generated(
    domain: str,
    size: int,
    count: int,
    seed: int,
    *,
    min_moves: int | None = None,
    moves: int | None = None,
    walk: int | None = None,
    height: int | None = None,
    goal: str = "blank-last",
    max_attempts: int | None = None,
) -> tuple[list[Instance], dict[str, int]]:
    """Fresh boards of a domain (its `Domain.generate`) and the optima known of them.

    The boards are named after `generated_name`. PuzzleError for an option the
    domain does not take, or for too few boards (with what to ask instead).
    """
    prefix = generated_name(domain, size, seed, min_moves=min_moves, moves=moves, walk=walk, height=height, goal=goal)
    options = {"min_moves": min_moves, "moves": moves, "walk": walk, "height": height, "max_attempts": max_attempts}
    given = {name: value for name, value in options.items() if value is not None}
    return find_domain(domain).generate(size, count, seed, prefix, goal=goal, **given)
