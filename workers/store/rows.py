"""A sweep's jobs as flat rows, for reports, exports and verification, and the boards of its spec file.

Reports read a sweep's jobs as Arrow columns (`job_table`), through the ADBC
drivers: the database's rows go into columns without a Python object per
value, which is what keeps a million-job report within seconds and a few
hundred MB (docs/notes/2026-12-05-million-jobs.md).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import BigInteger, ColumnElement, CompoundSelect, Float, Select, String, cast, func, literal, select, union_all
from sqlalchemy.engine import make_url

from puzzles.errors import PuzzleError
from puzzles.result import Outcome, measures
from workers.store.boards import StoredBoard
from workers.store.database import Database
from workers.store.records import JobRow
from workers.store.schema import boards, jobs, results
from workers.store.sweeps import JOB_COLUMNS, SweepRow, job_row

if TYPE_CHECKING:
    import pyarrow as pa

MEASURES = measures()
SAMPLE = {BigInteger: 0, Float: 0.0, String: ""}  # a value of each kind of column, for SQLite's first row
BOARD_COLUMNS = (boards.c.id, boards.c.domain, boards.c.size, boards.c.name, boards.c.canonical_text, boards.c.known_optimum)


@dataclass(frozen=True)
class BoardSolution:
    """A board of a sweep and the shortest solution the sweep stored for it: the solved job with the fewest moves, its
    moves and its solution (all None if none)."""

    board: StoredBoard
    job_id: int | None
    moves: int | None
    solution: str | None


def job_rows(db: Database, sweep: SweepRow) -> list[tuple[JobRow, StoredBoard]]:
    """Every job of the sweep with its result (None for a job not done) and its board, in id order."""
    query = (
        select(*JOB_COLUMNS, *(column.label(f"boards_{column.name}") for column in BOARD_COLUMNS))
        .join(boards, jobs.c.board_id == boards.c.id)
        .outerjoin(results, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .order_by(jobs.c.id)
    )
    with db.engine.connect() as connection:
        return [(job_row(row), StoredBoard(*(row[f"boards_{column.name}"] for column in BOARD_COLUMNS)))
                for row in connection.execute(query).mappings()]


def sweep_boards(db: Database, sweep: SweepRow) -> list[StoredBoard]:
    """The boards of the sweep's jobs, in the order of their first job."""
    with db.engine.connect() as connection:
        return [StoredBoard(*row) for row in connection.execute(_boards_in_sweep(sweep))]


def board_solutions(db: Database, sweep: SweepRow) -> list[BoardSolution]:
    """The sweep's boards in the order of their first job, each with its shortest solution stored by the sweep."""
    solved = (
        select(jobs.c.board_id, jobs.c.id, results.c.moves, results.c.solution)
        .join(results, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id, results.c.outcome == Outcome.SOLVED, results.c.solution.is_not(None))
        .order_by(results.c.moves.desc(), jobs.c.id.desc())  # the shortest, then the first, comes last and stays
    )
    with db.engine.connect() as connection:
        found = [StoredBoard(*row) for row in connection.execute(_boards_in_sweep(sweep))]
        best = {board_id: (job_id, moves, text) for board_id, job_id, moves, text in connection.execute(solved)}
    return [BoardSolution(board, *best.get(board.id, (None, None, None))) for board in found]


def _boards_in_sweep(sweep: SweepRow) -> Select:
    """The boards of the sweep's jobs (`BOARD_COLUMNS`), in the order of their first job."""
    first_job = func.min(jobs.c.id)
    return (select(*BOARD_COLUMNS)
            .join(jobs, jobs.c.board_id == boards.c.id)
            .where(jobs.c.sweep_id == sweep.id)
            .group_by(*BOARD_COLUMNS)
            .order_by(first_job))


def job_table(db: Database, sweep: SweepRow) -> "pa.Table":
    """Every job of the sweep with its result's measures, as Arrow columns, in id order (None where a job has none).

    Columns: job_id, board_id, algorithm, params (the canonical JSON text the
    row keeps), seed, repeat, state, outcome, the `MEASURES`, reason (the
    result's, else its error), host (the result's, else the job's worker),
    code_version, plugins (the job's plugins key, None for slidelab's own), speed (the host's, from the provenance).
    """
    query, skipped = _job_query(db, sweep)
    return _arrow(db, query)[skipped:]


def job_slices(db: Database, sweep: SweepRow, rows: int) -> Iterator["pa.Table"]:
    """`job_table` a slice at a time, each of at least `rows` jobs but the last, read as the database sends them."""
    import pyarrow as pa

    query, skipped = _job_query(db, sweep)
    with _adbc(db) as connection, connection.cursor() as cursor:
        if db.engine.dialect.name == "sqlite":  # its driver's batches are of 1,024 rows, PostgreSQL's of ~16 MB
            cursor.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(rows)})
        cursor.execute(_sql(db, query))
        held: list[pa.RecordBatch] = []
        for batch in cursor.fetch_record_batch():
            held.append(batch)
            if sum(len(batch) for batch in held) - skipped >= rows:
                yield pa.Table.from_batches(held)[skipped:]
                held, skipped = [], 0
        if held:
            yield pa.Table.from_batches(held)[skipped:]


def sweep_board_ids(db: Database, sweep: SweepRow) -> list[str]:
    """The ids of the boards the sweep's jobs are on."""
    with db.engine.connect() as connection:
        return list(connection.scalars(select(jobs.c.board_id).where(jobs.c.sweep_id == sweep.id).distinct()))


def sweep_params(db: Database, sweep: SweepRow) -> list[dict[str, Any]]:
    """The distinct parameters of the sweep's jobs."""
    with db.engine.connect() as connection:
        return list(connection.scalars(select(jobs.c.params).where(jobs.c.sweep_id == sweep.id).distinct()))


def _job_query(db: Database, sweep: SweepRow) -> tuple[Select | CompoundSelect, int]:
    """The query of `job_table`, and how many rows of samples lead its answer."""
    columns = _table_columns()
    query: Select = (
        select(*(cast(column, kind).label(name) for name, column, kind in columns))
        .select_from(jobs.outerjoin(results, results.c.job_id == jobs.c.id))
        .where(jobs.c.sweep_id == sweep.id)
        .order_by(jobs.c.id)
    )
    if db.engine.dialect.name != "sqlite":
        return query, 0
    # SQLite's driver takes each column's type from its first rows: a first row of samples sets them all
    sample = select(*(literal(SAMPLE[kind], kind()).label(name) for name, _, kind in columns))
    return union_all(sample, select(query.subquery())), 1


def board_table(db: Database, board_ids: list[str]) -> list[StoredBoard]:
    """The boards of `board_ids`."""
    with db.engine.connect() as connection:
        return [StoredBoard(*row) for row in connection.execute(select(*BOARD_COLUMNS).where(boards.c.id.in_(board_ids)))]


def _table_columns() -> list[tuple[str, ColumnElement[Any], type]]:
    """(name, expression, kind) of each column of `job_table`."""
    kinds: dict[str, type] = {"job_id": BigInteger, "seed": BigInteger, "repeat": BigInteger, "speed": Float}
    kinds |= {name: Float if isinstance(results.c[name].type, Float) else BigInteger for name in MEASURES}
    expressions = {
        "job_id": jobs.c.id, "board_id": jobs.c.board_id, "algorithm": jobs.c.algorithm, "params": jobs.c.params,
        "seed": jobs.c.seed, "repeat": jobs.c.repeat, "state": jobs.c.status, "outcome": results.c.outcome,
        **{name: results.c[name] for name in MEASURES},
        "reason": func.coalesce(func.nullif(results.c.reason, ""), results.c.error),
        "host": func.coalesce(func.nullif(results.c.host, ""), jobs.c.worker_host),
        "code_version": results.c.code_version, "plugins": jobs.c.plugins,
        "speed": results.c.provenance["speed"].as_float(),
    }
    return [(name, expression, kinds.get(name, String)) for name, expression in expressions.items()]


def _arrow(db: Database, query: Select | CompoundSelect) -> "pa.Table":
    """The rows of `query` as an Arrow table, read by the database's ADBC driver."""
    with _adbc(db) as connection, connection.cursor() as cursor:
        cursor.execute(_sql(db, query))
        return cursor.fetch_arrow_table()


def _sql(db: Database, query: Select | CompoundSelect) -> str:
    """`query` as SQL text for the database, its values written in."""
    return str(query.compile(dialect=db.engine.dialect, compile_kwargs={"literal_binds": True}))


def _adbc(db: Database) -> Any:
    """An ADBC connection to the database, read only for a SQLite file."""
    if db.engine.dialect.name == "sqlite":
        import adbc_driver_sqlite.dbapi

        if db.file is None:
            raise PuzzleError(f"{db.shown_url}: reports read a SQLite database from a file")
        frozen = "&immutable=1" if db.engine.url.query.get("immutable") else ""  # a file this process cannot write
        return adbc_driver_sqlite.dbapi.connect(f"file:{quote(str(db.file.resolve()))}?mode=ro{frozen}")
    import adbc_driver_postgresql.dbapi

    return adbc_driver_postgresql.dbapi.connect(
        make_url(db.url).set(drivername="postgresql").render_as_string(hide_password=False))
