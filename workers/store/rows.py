"""A sweep's jobs as flat rows, for reports, exports and verification, and the boards of its spec file."""

from typing import Any

from sqlalchemy import func, select

from puzzles.result import Outcome
from workers.store.database import Database
from workers.store.schema import RESULT_FIELDS, boards, jobs, results
from workers.store.sweeps import SweepRow


def job_rows(db: Database, sweep: SweepRow) -> list[dict[str, Any]]:
    """Every job of the sweep with its board and its result's fields (None for a job not done), in id order."""
    query = (
        select(
            jobs.c.id.label("job_id"), jobs.c.board_id, jobs.c.algorithm, jobs.c.params, jobs.c.seed, jobs.c.repeat,
            jobs.c.status.label("state"), jobs.c.worker_host, boards.c.name.label("board"),
            boards.c.size.label("board_size"), boards.c.domain, boards.c.canonical_text, boards.c.known_optimum,
            *(results.c[name] for name in RESULT_FIELDS),
        )
        .join(boards, jobs.c.board_id == boards.c.id)
        .outerjoin(results, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .order_by(jobs.c.id)
    )
    with db.engine.connect() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def sweep_boards(db: Database, sweep: SweepRow) -> list[dict[str, str]]:
    """The boards of the sweep's jobs (name, domain, canonical text), in the order of their first job."""
    first_job = func.min(jobs.c.id)
    query = (
        select(boards.c.name, boards.c.domain, boards.c.canonical_text, first_job)
        .join(jobs, jobs.c.board_id == boards.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .group_by(boards.c.id, boards.c.name, boards.c.domain, boards.c.canonical_text)
        .order_by(first_job)
    )
    with db.engine.connect() as connection:
        return [{"name": name, "domain": domain, "text": text} for name, domain, text, _ in connection.execute(query)]


def board_solutions(db: Database, sweep: SweepRow) -> list[dict[str, Any]]:
    """The sweep's boards in the order of their first job, each with its shortest solution stored by the sweep.

    Each: id, name, domain, canonical text, known optimum, and `job_id`,
    `moves`, `solution` of the solved job with the fewest moves (None if none).
    """
    first_job = func.min(jobs.c.id)
    in_sweep = (
        select(boards.c.id, boards.c.name, boards.c.domain, boards.c.canonical_text, boards.c.known_optimum)
        .join(jobs, jobs.c.board_id == boards.c.id)
        .where(jobs.c.sweep_id == sweep.id)
        .group_by(boards.c.id, boards.c.name, boards.c.domain, boards.c.canonical_text, boards.c.known_optimum)
        .order_by(first_job)
    )
    solved = (
        select(jobs.c.board_id, jobs.c.id, results.c.moves, results.c.solution)
        .join(results, results.c.job_id == jobs.c.id)
        .where(jobs.c.sweep_id == sweep.id, results.c.outcome == Outcome.SOLVED, results.c.solution.is_not(None))
        .order_by(results.c.moves.desc(), jobs.c.id.desc())  # the shortest, then the first, comes last and stays
    )
    with db.engine.connect() as connection:
        found = [dict(row._mapping) for row in connection.execute(in_sweep)]
        best = {board_id: (job_id, moves, text) for board_id, job_id, moves, text in connection.execute(solved)}
    for board in found:
        board["job_id"], board["moves"], board["solution"] = best.get(board["id"], (None, None, None))
    return found
