"""Boards, stored once by content hash, their known optima, and the named, ordered sets they are grouped in.

A known optimum, once stored, is never changed; a set never holds a board twice.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.engine import Connection

from puzzles.errors import PuzzleError
from puzzles.result import Outcome
from workers.store.database import Database
from workers.store.records import utc_now
from workers.store.schema import board_set_members, board_sets, boards, jobs, results
from workers.store.sweeps import store_boards

if TYPE_CHECKING:
    from puzzles.domains import Instance


@dataclass(frozen=True)
class StoredBoard:
    """A board as the database holds it."""

    id: str
    domain: str
    size: int
    name: str
    canonical_text: str
    known_optimum: int | None


@dataclass(frozen=True)
class Imported:
    """What an import did: boards read, boards new to the database, optima given, boards added to the set."""

    boards: int
    new: int
    optima: int
    added: int


@dataclass(frozen=True)
class SetCount:
    """A stored set: its name, how many boards it holds and how many of them have a known optimum."""

    name: str
    boards: int
    optima: int
    created_at: datetime


@dataclass(frozen=True)
class SolvedResult:
    """A solved result on a board, with what decides whether it proves an optimum (the caller judges)."""

    board_id: str
    algorithm: str
    params: dict
    domain: str
    text: str
    moves: int


def import_boards(
    db: Database, instances: "list[Instance]", optima: dict[str, int], set_name: str | None
) -> Imported:
    """One transaction: the boards, the optima given for them, and the set's new members (the set made if new).

    PuzzleError, and nothing written, if a given optimum contradicts a stored one.
    """
    names = {board.id: board.name for board in instances}
    optima = {board_id: optimum for board_id, optimum in optima.items() if board_id in names}
    with db.engine.begin() as connection:
        _check_optima(connection, optima, names)
        new = store_boards(db, connection, instances)
        _store_optima(connection, optima)
        added = _add_members(db, connection, set_name, instances) if set_name else 0
    return Imported(len(instances), new, len(optima), added)


def has_set(db: Database, name: str) -> bool:
    """True if the database holds a set called `name`."""
    with db.engine.connect() as connection:
        return connection.scalar(select(board_sets.c.id).where(board_sets.c.name == name)) is not None


def set_members(db: Database, name: str) -> list[StoredBoard] | None:
    """The boards of set `name` in order, or None if there is no such set."""
    with db.engine.connect() as connection:
        set_id = connection.scalar(select(board_sets.c.id).where(board_sets.c.name == name))
        if set_id is None:
            return None
        query = (
            select(boards)
            .join(board_set_members, board_set_members.c.board_id == boards.c.id)
            .where(board_set_members.c.set_id == set_id)
            .order_by(board_set_members.c.position)
        )
        return [StoredBoard(*row) for row in connection.execute(query)]


def set_names(db: Database) -> list[str]:
    """The names of the stored sets."""
    with db.engine.connect() as connection:
        return list(connection.scalars(select(board_sets.c.name).order_by(board_sets.c.name)))


def set_counts(db: Database) -> list[SetCount]:
    """Every stored set with its board count and known optima."""
    query = (
        select(board_sets.c.name, func.count(boards.c.id), func.count(boards.c.known_optimum), board_sets.c.created_at)
        .join(board_set_members, board_set_members.c.set_id == board_sets.c.id)
        .join(boards, boards.c.id == board_set_members.c.board_id)
        .group_by(board_sets.c.id)
    )
    with db.engine.connect() as connection:
        return [SetCount(*row) for row in connection.execute(query)]


def all_boards(db: Database) -> list[StoredBoard]:
    """Every stored board, in or out of sets, by name."""
    with db.engine.connect() as connection:
        return [StoredBoard(*row) for row in connection.execute(select(boards).order_by(boards.c.name, boards.c.id))]


def boards_named(db: Database, name: str, limit: int = 5) -> list[StoredBoard]:
    """Stored boards called `name` (at most `limit`)."""
    with db.engine.connect() as connection:
        return [StoredBoard(*row) for row in connection.execute(select(boards).where(boards.c.name == name).limit(limit))]


def boards_with_id_prefix(db: Database, prefix: str, limit: int = 5) -> list[StoredBoard]:
    """Stored boards whose id starts with `prefix` (at most `limit`)."""
    query = select(boards).where(boards.c.id.startswith(prefix)).limit(limit)
    with db.engine.connect() as connection:
        return [StoredBoard(*row) for row in connection.execute(query)]


def board_with_sets(db: Database, board_id: str) -> tuple[StoredBoard, list[str]] | None:
    """The stored board with this id and the names of its sets, or None."""
    with db.engine.connect() as connection:
        row = connection.execute(select(boards).where(boards.c.id == board_id)).one_or_none()
        if row is None:
            return None
        query = (
            select(board_sets.c.name)
            .join(board_set_members, board_set_members.c.set_id == board_sets.c.id)
            .where(board_set_members.c.board_id == board_id)
            .order_by(board_sets.c.name)
        )
        return StoredBoard(*row), list(connection.scalars(query))


def solved_by(db: Database, board_ids: Iterable[str], algorithms: Iterable[str]) -> list[SolvedResult]:
    """Every solved result on the boards by one of the algorithms, anywhere in the database."""
    query = (
        select(jobs.c.board_id, jobs.c.algorithm, jobs.c.params, boards.c.domain, boards.c.canonical_text, results.c.moves)
        .join(results, results.c.job_id == jobs.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.board_id.in_(list(board_ids)), jobs.c.algorithm.in_(list(algorithms)),
               results.c.outcome == Outcome.SOLVED)
    )
    with db.engine.connect() as connection:
        return [
            SolvedResult(board_id, algorithm, params, domain, text, moves)
            for board_id, algorithm, params, domain, text, moves in connection.execute(query)
        ]


def store_optima(db: Database, optima: dict[str, int]) -> dict[str, int]:
    """Store the optimum of each board id that has none stored; those stored, by id."""
    with db.engine.begin() as connection:
        lacking = connection.scalars(
            select(boards.c.id).where(boards.c.id.in_(list(optima)), boards.c.known_optimum.is_(None))
        )
        stored = {board_id: optima[board_id] for board_id in lacking}
        _store_optima(connection, stored)
    return stored


def outcomes_lacking_optimum(db: Database, sweep_id: int, board_ids: list[str]) -> dict[str, int]:
    """The outcomes of the sweep's jobs on those of the boards that still lack a known optimum, counted."""
    query = (
        select(results.c.outcome, func.count())
        .join(jobs, results.c.job_id == jobs.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.sweep_id == sweep_id, jobs.c.board_id.in_(board_ids), boards.c.known_optimum.is_(None))
        .group_by(results.c.outcome)
    )
    with db.engine.connect() as connection:
        return dict(connection.execute(query).all())


def _store_optima(connection: Connection, optima: dict[str, int]) -> None:
    if not optima:
        return
    statement = (
        update(boards)
        .where(boards.c.id == bindparam("board"), boards.c.known_optimum.is_(None))
        .values(known_optimum=bindparam("optimum"))
    )
    connection.execute(statement, [{"board": board_id, "optimum": optimum} for board_id, optimum in optima.items()])


def _check_optima(connection: Connection, optima: dict[str, int], names: dict[str, str]) -> None:
    """PuzzleError if a given optimum differs from the one the database holds for the board."""
    stored = connection.execute(
        select(boards.c.id, boards.c.known_optimum).where(boards.c.id.in_(list(optima)), boards.c.known_optimum.is_not(None))
    ).all()
    for board_id, known in stored:
        if optima[board_id] != known:
            shown = names[board_id] or board_id[:12]
            raise PuzzleError(f"board {shown}: the optimum given is {optima[board_id]}, the database holds {known}")


def _add_members(db: Database, connection: Connection, name: str, instances: "list[Instance]") -> int:
    """Append to the set (made if new) the boards it lacks, in order; how many were added."""
    made = {"name": name, "created_at": utc_now()}
    connection.execute(db.insert(board_sets).on_conflict_do_nothing(index_elements=["name"]), [made])
    set_id = connection.scalar(select(board_sets.c.id).where(board_sets.c.name == name))
    members = board_set_members.c
    held = set(connection.scalars(select(members.board_id).where(members.set_id == set_id)))
    last = connection.scalar(select(func.max(members.position)).where(members.set_id == set_id))
    fresh = [board for board in instances if board.id not in held]
    start = 0 if last is None else last + 1
    rows = [{"set_id": set_id, "board_id": board.id, "position": start + i} for i, board in enumerate(fresh)]
    if rows:
        connection.execute(db.insert(board_set_members).on_conflict_do_nothing(), rows)
    return len(rows)
