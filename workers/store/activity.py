"""What is going on across every sweep of a database, for the dashboard: jobs held, hosts, recent results.

Read only. Each row is a plain dict; a job held by a worker carries its
worker host, since when, its attempts and the time its lease runs out.
"""

from typing import Any

from sqlalchemy import func, select

from puzzles.result import Outcome
from workers.store.database import Database
from workers.store.schema import boards, jobs, results, sweeps
from workers.store.states import JobState
from workers.store.sweeps import SweepRow


def held_jobs(db: Database, limit: int = 200) -> list[dict[str, Any]]:
    """The running jobs, oldest claim first: id, sweep, board, algorithm, params, worker host, since, attempts, lease."""
    query = (
        select(jobs.c.id, sweeps.c.name.label("sweep"), boards.c.name.label("board"), jobs.c.algorithm, jobs.c.params,
               jobs.c.worker_host.label("host"), jobs.c.started_at.label("since"), jobs.c.attempts,
               jobs.c.lease_until)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .where(jobs.c.status == JobState.RUNNING)
        .order_by(jobs.c.started_at, jobs.c.id)
        .limit(limit)
    )
    with db.engine.connect() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def host_activity(db: Database) -> list[dict[str, Any]]:
    """Per host that stored results: how many, and when its first and last result finished."""
    query = (
        select(results.c.host, func.count().label("results"), func.min(results.c.finished_at).label("first"),
               func.max(results.c.finished_at).label("last"))
        .where(results.c.host.is_not(None))
        .group_by(results.c.host)
        .order_by(func.max(results.c.finished_at).desc())
    )
    with db.engine.connect() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def recent_results(db: Database, limit: int = 20, *, outcomes: tuple[Outcome, ...] = ()) -> list[dict[str, Any]]:
    """The results stored last (only those with one of `outcomes`, if given), newest first, with their job's names."""
    query = (
        select(jobs.c.id, sweeps.c.name.label("sweep"), boards.c.name.label("board"), jobs.c.algorithm, jobs.c.params,
               results.c.outcome, results.c.moves, results.c.elapsed_s, results.c.host, results.c.finished_at,
               func.coalesce(results.c.error, results.c.reason).label("reason"))
        .join(jobs, results.c.job_id == jobs.c.id)
        .join(sweeps, jobs.c.sweep_id == sweeps.c.id)
        .join(boards, jobs.c.board_id == boards.c.id)
        .order_by(results.c.id.desc())
        .limit(limit)
    )
    if outcomes:
        query = query.where(results.c.outcome.in_(outcomes))
    with db.engine.connect() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def sweep_version(db: Database, sweep: SweepRow) -> tuple[int, int, int]:
    """What changes whenever the sweep's results or job states do: (results, their largest id, jobs running)."""
    in_sweep = jobs.c.sweep_id == sweep.id
    with db.engine.connect() as connection:
        count, last = connection.execute(
            select(func.count(results.c.id), func.coalesce(func.max(results.c.id), 0))
            .join(jobs, results.c.job_id == jobs.c.id).where(in_sweep)
        ).one()
        running = connection.execute(select(func.count()).where(in_sweep, jobs.c.status == JobState.RUNNING)).scalar_one()
    return int(count), int(last), int(running)
