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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from puzzles.domains import Instance, instance_of, load_instance, load_instances
from puzzles.errors import PuzzleError
from puzzles.npuzzle_generate import random_boards
from puzzles.npuzzle_formats import ListedBoard, canonical_text, read_board_list, split_board_list
from puzzles.rushhour_generate import TooFewBoards, hardest_boards
from puzzles.textio import text_id
from workers.db import Board, BoardSet, BoardSetMember

SET_PREFIX = "set:"
DATA = Path(__file__).resolve().parents[1] / "data" / "boards"
OPTIMAL_COLUMN = "optimal"
_SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_ID_PREFIX = re.compile(r"[0-9a-f]{6,64}")


@dataclass(frozen=True)
class ShippedSet:
    """A set that ships with slidelab: board files under data/boards, and optima by board name that they lack."""

    files: tuple[str, ...]
    optima: dict[str, int] = field(default_factory=dict)


COURSE = ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6", "12x12_7")
# Fewest moves, proven by BFS (tests/puzzles/test_rushhour_search.py, docs/performance.md); 12x12_7's is unknown.
COURSE_OPTIMA = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33,
                 "Rushhour9x9_4": 27, "Rushhour9x9_5": 22, "Rushhour9x9_6": 18}
SHIPPED = {
    "rushhour-course": ShippedSet(tuple(f"rushhour/Rushhour{board}.csv" for board in COURSE), COURSE_OPTIMA),
    "korf100": ShippedSet(("npuzzle/korf100.csv",)),
    "eight-puzzle-seed": ShippedSet(("npuzzle/eight-puzzle-seed.csv",)),
}


@dataclass(frozen=True)
class Imported:
    """What an import did: boards read, boards new to the database, optima given, boards added to the set."""

    boards: int
    new: int
    optima: int
    added: int


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


def listed_optima(sources: list[str], *, goal: str | None = None) -> dict[str, int]:
    """The known optima that the board lists among `sources` give in their `optimal` column, by board id."""
    optima: dict[str, int] = {}
    for source in sources:
        listed = split_board_list(source)
        if listed is not None:
            _add_listed_optima(optima, listed[0], goal)
    return optima


def import_boards(engine: Engine, boards: list[Instance], optima: dict[str, int], name: str | None) -> Imported:
    """Store the boards (each once), their known optima, and append to set `name` the boards it lacks.

    A shipped set's name is refused; an optimum that contradicts a stored one is
    a PuzzleError, and nothing is written.
    """
    if name is not None and check_set_name(name) in SHIPPED:
        raise PuzzleError(f"{name} is a set shipped with slidelab: import into a set of another name")
    return _store(engine, boards, optima, name)


def set_boards(engine: Engine, name: str) -> list[Instance]:
    """The boards of set `name`, in order (a shipped set is imported first if it is not yet); PuzzleError if none."""
    return [instance(board) for board in members(engine, name)]


def members(engine: Engine, name: str) -> list[Board]:
    """The stored boards of set `name`, in order, with their known optima; PuzzleError if there is no such set."""
    check_set_name(name)
    if name in SHIPPED:
        _import_shipped(engine, name)
    with Session(engine) as session:
        set_id = session.scalar(select(BoardSet.id).where(BoardSet.name == name))
        if set_id is None:
            raise PuzzleError(f"no board set named {name!r} (sets: {', '.join(_set_names(session))})")
        boards = list(
            session.scalars(
                select(Board).join(BoardSetMember, BoardSetMember.board_id == Board.id)
                .where(BoardSetMember.set_id == set_id).order_by(BoardSetMember.position)
            )
        )
        session.expunge_all()
    return boards


def all_boards(engine: Engine) -> list[Board]:
    """Every stored board, in or out of sets, by name."""
    with Session(engine) as session:
        boards = list(session.scalars(select(Board).order_by(Board.name, Board.id)))
        session.expunge_all()
    return boards


def list_sets(engine: Engine) -> list[SetSummary]:
    """Every set of the database by name, and the shipped sets not imported yet (counted from their files)."""
    with Session(engine) as session:
        rows = session.execute(
            select(BoardSet.name, func.count(Board.id), func.count(Board.known_optimum), BoardSet.created_at)
            .join(BoardSetMember, BoardSetMember.set_id == BoardSet.id)
            .join(Board, Board.id == BoardSetMember.board_id)
            .group_by(BoardSet.id)
        ).all()
    summaries = {name: SetSummary(name, count, optima, created, name in SHIPPED) for name, count, optima, created in rows}
    for name in SHIPPED.keys() - summaries.keys():
        boards, optima = shipped_boards(name)
        summaries[name] = SetSummary(name, len(boards), len(optima), None, True)
    return sorted(summaries.values(), key=lambda summary: summary.name)


def board_info(engine: Engine, key: str) -> BoardInfo:
    """The board `key` names, with its known optimum and sets if it is stored; PuzzleError if none fits.

    `key` is a board file or ``FILE#ID``, a stored board's name or the start of
    its id (6 hex digits or more), or a literal board.
    """
    if os.path.exists(key) or split_board_list(key) is not None:
        return _info(engine, load_instance(key))
    stored = _stored(engine, key) or _stored_shipped(engine, key)
    if stored is not None:
        return _info(engine, instance(stored))
    try:
        board = load_instance(key)
    except PuzzleError as err:
        raise PuzzleError(f"{key!r} is neither the name or id of a stored board nor a board ({err})") from None
    return _info(engine, board)


def instance(board: Board) -> Instance:
    """A stored board as the planner takes it."""
    return Instance(board.domain, board.name, board.size, board.canonical_text)


def store_boards(session: Session, boards: list[Instance]) -> int:
    """Insert the boards the database lacks (ON CONFLICT DO NOTHING on the id); how many were new."""
    before = session.scalar(select(func.count()).select_from(Board))
    rows = [{"id": b.id, "domain": b.domain, "size": b.size, "name": b.name, "canonical_text": b.text} for b in boards]
    session.execute(_insert(session, Board).on_conflict_do_nothing(index_elements=["id"]), rows)
    return session.scalar(select(func.count()).select_from(Board)) - before


def store_optima(session: Session, optima: dict[str, int]) -> None:
    """Store the known optimum of each board id that has none yet; a stored one is never changed."""
    if not optima:
        return
    boards = Board.__table__
    statement = (
        update(boards)
        .where(boards.c.id == bindparam("board"), boards.c.known_optimum.is_(None))
        .values(known_optimum=bindparam("optimum"))
    )
    session.execute(statement, [{"board": board_id, "optimum": optimum} for board_id, optimum in optima.items()])


def shipped_boards(name: str) -> tuple[list[Instance], dict[str, int]]:
    """A shipped set's boards, read from its files, and their known optima by board id."""
    shipped = SHIPPED[name]
    sources = [str(DATA / file) for file in shipped.files]
    boards = [board for source in sources for board in load_instances(source)]
    optima = {board.id: shipped.optima[board.name] for board in boards if board.name in shipped.optima}
    return boards, {**listed_optima(sources), **optima}


def _import_shipped(engine: Engine, name: str) -> None:
    """Import a shipped set, unless the database has it already."""
    with Session(engine) as session:
        if session.scalar(select(BoardSet.id).where(BoardSet.name == name)) is not None:
            return
    _store(engine, *shipped_boards(name), name)


def _stored(engine: Engine, key: str) -> Board | None:
    """The stored board named `key`, else the one whose id starts with `key`; PuzzleError if several fit."""
    with Session(engine) as session:
        found = list(session.scalars(select(Board).where(Board.name == key).limit(5)))
        if not found and _ID_PREFIX.fullmatch(key.lower()):
            found = list(session.scalars(select(Board).where(Board.id.startswith(key.lower())).limit(5)))
        session.expunge_all()
    if len(found) > 1:
        raise PuzzleError(f"{key!r} names several boards: give one's id ({', '.join(b.id[:12] for b in found)})")
    return found[0] if found else None


def _stored_shipped(engine: Engine, name: str) -> Board | None:
    """The board called `name` of a shipped set, imported with its set if need be; None if no shipped set has it."""
    shipped = next((shipped for shipped in SHIPPED if any(b.name == name for b in shipped_boards(shipped)[0])), None)
    if shipped is None:
        return None
    _import_shipped(engine, shipped)
    return _stored(engine, name)


def _info(engine: Engine, board: Instance) -> BoardInfo:
    """The board as stored (its stored name, known optimum and sets), or as given if it is not in the database."""
    with Session(engine) as session:
        stored = session.get(Board, board.id)
        if stored is None:
            return BoardInfo(board, None, None)
        sets = session.scalars(
            select(BoardSet.name).join(BoardSetMember, BoardSetMember.set_id == BoardSet.id)
            .where(BoardSetMember.board_id == board.id).order_by(BoardSet.name)
        )
        return BoardInfo(instance(stored), stored.known_optimum, list(sets))


def _store(engine: Engine, boards: list[Instance], optima: dict[str, int], name: str | None) -> Imported:
    """One transaction: the boards, the optima given for them, and the set's new members."""
    names = {board.id: board.name for board in boards}
    optima = {board_id: optimum for board_id, optimum in optima.items() if board_id in names}
    with Session(engine) as session, session.begin():
        _check_optima(session, optima, names)
        new = store_boards(session, boards)
        store_optima(session, optima)
        added = _add_members(session, name, boards) if name else 0
    return Imported(len(boards), new, len(optima), added)


def _check_optima(session: Session, optima: dict[str, int], names: dict[str, str]) -> None:
    """PuzzleError if a given optimum differs from the one the database holds for the board."""
    stored = session.execute(
        select(Board.id, Board.known_optimum).where(Board.id.in_(optima), Board.known_optimum.is_not(None))
    ).all()
    for board_id, known in stored:
        if optima[board_id] != known:
            shown = names[board_id] or board_id[:12]
            raise PuzzleError(f"board {shown}: the optimum given is {optima[board_id]}, the database holds {known}")


def _add_members(session: Session, name: str, boards: list[Instance]) -> int:
    """Append to the set (made if new) the boards it lacks, in order; how many were added."""
    made = {"name": name, "created_at": datetime.now(timezone.utc)}
    session.execute(_insert(session, BoardSet).on_conflict_do_nothing(index_elements=["name"]), [made])
    set_id = session.scalar(select(BoardSet.id).where(BoardSet.name == name))
    held = set(session.scalars(select(BoardSetMember.board_id).where(BoardSetMember.set_id == set_id)))
    last = session.scalar(select(func.max(BoardSetMember.position)).where(BoardSetMember.set_id == set_id))
    fresh = [board for board in boards if board.id not in held]
    start = 0 if last is None else last + 1
    rows = [{"set_id": set_id, "board_id": board.id, "position": start + i} for i, board in enumerate(fresh)]
    if rows:
        session.execute(_insert(session, BoardSetMember).on_conflict_do_nothing(), rows)
    return len(rows)


def _add_listed_optima(optima: dict[str, int], path: str, goal: str | None) -> None:
    """Add the optima of a board list's rows; PuzzleError if a board has two."""
    for row in read_board_list(path, goal=goal):
        optimum = _optimum(row, path)
        board_id = text_id(canonical_text(row.board))
        if optimum is not None and optima.setdefault(board_id, optimum) != optimum:
            raise PuzzleError(f"the board has the optimum {optima[board_id]} on an earlier line", source=path, line=row.line)


def _optimum(row: ListedBoard, path: str) -> int | None:
    """A board list row's `optimal` column: a whole number of moves, or None when empty or absent."""
    text = row.columns.get(OPTIMAL_COLUMN, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise PuzzleError(f"{OPTIMAL_COLUMN} must be a whole number of moves or empty, not {text!r}", source=path, line=row.line)
    return int(text)


def _insert(session: Session, model: type) -> Any:
    """An INSERT of the session's dialect, which can say ON CONFLICT DO NOTHING."""
    return (postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert)(model)


def _set_names(session: Session) -> list[str]:
    """The names of the sets in the database and of the shipped ones."""
    return sorted(set(session.scalars(select(BoardSet.name))) | SHIPPED.keys())


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
    """Fresh boards of a domain (`puzzles.rushhour_generate`, `puzzles.npuzzle_generate`) and the optima known of them.

    PuzzleError for an option the domain does not take, or for too few boards (with what to ask instead).
    """
    if domain == "rushhour":
        if walk is not None or height is not None:
            raise PuzzleError("--walk and --height are N-puzzle options")
        try:
            found = hardest_boards(size, count, seed, min_moves=min_moves, moves=moves, max_attempts=max_attempts)
        except TooFewBoards as err:
            easier = "--moves" if moves else "--min-moves"
            raise PuzzleError(f"{err}: allow more with --max-attempts, or ask for an easier {easier}") from None
        boards = [instance_of(board) for board, _ in found]
        return boards, {board.id: optimum for board, (_, optimum) in zip(boards, found)}
    if domain == "npuzzle":
        if min_moves is not None or moves is not None or max_attempts is not None:
            raise PuzzleError("--min-moves, --moves and --max-attempts are Rush Hour options (the N-puzzle takes --walk)")
        return [instance_of(board) for board in random_boards(size, height or size, count, seed, walk=walk, goal=goal)], {}
    raise PuzzleError(f"unknown domain {domain!r} (choose from rushhour, npuzzle)")
