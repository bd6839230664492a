"""What `orchestrate tune` reads and writes of a study's jobs: ids by key, cancelling a pruned trial's,
and results a sweep already has for the same point.

A study's jobs are ordinary jobs of the sweep row named after the study (see
`sweeps.save`); Optuna keeps the study itself in its own tables, through its
own RDB storage on the same database.
"""

from datetime import timedelta
from typing import Any

from sqlalchemy import column, func, select, table, update

from workers.store.boards import StoredBoard
from workers.store.database import Database
from workers.store.jobs import IN_CLAUSE
from workers.store.records import utc_now
from workers.store.schema import RESULT_FIELDS, boards, database_now, jobs, results, sweeps, workers
from workers.store.states import UNFINISHED, JobState

OPTUNA_STUDIES = table("studies", column("study_id"), column("study_name"))  # Optuna's own tables, as far as read here
OPTUNA_TRIALS = table("trials", column("study_id"), column("datetime_complete"))


def job_ids(db: Database, keys: list[str]) -> dict[str, int]:
    """The ids of the stored jobs among `keys`, by key."""
    with db.engine.connect() as connection:
        return {key: job_id for start in range(0, len(keys), IN_CLAUSE)
                for key, job_id in connection.execute(
                    select(jobs.c.job_key, jobs.c.id).where(jobs.c.job_key.in_(keys[start : start + IN_CLAUSE])))}


def optima(db: Database, board_ids: list[str]) -> dict[str, int | None]:
    """The known optimum (in moves) of each board among `board_ids`, None where unknown."""
    with db.engine.connect() as connection:
        return dict(connection.execute(select(boards.c.id, boards.c.known_optimum).where(boards.c.id.in_(board_ids))).all())


def cancel_jobs(db: Database, ids: list[int]) -> int:
    """Put the unfinished jobs among `ids` in the state `cancelled` (a pruned trial's); how many.

    Waiting ones are never claimed; a running one is stopped by its worker's heartbeat, as `sweeps.cancel` has it.
    """
    with db.engine.begin() as connection:
        return sum(len(connection.execute(
            update(jobs).where(jobs.c.id.in_(ids[start : start + IN_CLAUSE]), jobs.c.status.in_(UNFINISHED))
            .values(status=JobState.CANCELLED).returning(jobs.c.id)).all()) for start in range(0, len(ids), IN_CLAUSE))


def reuse_results(db: Database, sweep_id: int, ids: list[int]) -> int:
    """Store, for the pending jobs among `ids`, the result of a done job of another sweep with the same point.

    The same point: board, algorithm, parameters (canonical text), seed,
    repeat index and plugins (the same versions), under the same limits. The result is copied, with its
    provenance, so the job is done without running again; how many were.
    """
    twin = jobs.alias("twin")
    twin_sweep = sweeps.alias("twin_sweep")
    own_sweep = select(sweeps.c.limits).where(sweeps.c.id == sweep_id).scalar_subquery()
    query = (
        select(jobs.c.id, twin_sweep.c.limits, *(results.c[name] for name in RESULT_FIELDS))
        .join(twin, (twin.c.board_id == jobs.c.board_id) & (twin.c.algorithm == jobs.c.algorithm)
              & (twin.c.params == jobs.c.params) & (twin.c.repeat == jobs.c.repeat) & (twin.c.sweep_id != sweep_id)
              & ((twin.c.seed == jobs.c.seed) | (twin.c.seed.is_(None) & jobs.c.seed.is_(None)))
              & ((twin.c.plugins == jobs.c.plugins) | (twin.c.plugins.is_(None) & jobs.c.plugins.is_(None))))
        .join(twin_sweep, twin_sweep.c.id == twin.c.sweep_id)
        .join(results, results.c.job_id == twin.c.id)
        .where(jobs.c.status == JobState.PENDING, twin.c.status == JobState.DONE)
    )
    with db.engine.begin() as connection:
        limits = connection.execute(select(own_sweep)).scalar_one()
        found: dict[int, dict[str, Any]] = {}
        for start in range(0, len(ids), IN_CLAUSE):
            for row in connection.execute(query.where(jobs.c.id.in_(ids[start : start + IN_CLAUSE]))):
                if row.limits == limits:
                    found.setdefault(row.id, {name: row._mapping[name] for name in RESULT_FIELDS})
        if found:
            connection.execute(db.insert(results).on_conflict_do_nothing(index_elements=["job_id"]),
                               [{"job_id": job_id, **values} for job_id, values in found.items()])
            connection.execute(update(jobs).where(jobs.c.id.in_(list(found))).values(status=JobState.DONE, finished_at=utc_now()))
    return len(found)


def online_workers(db: Database, lease_s: float) -> int:
    """How many Celery workers beat within the last `lease_s` seconds (local pools, HOST/local, left out)."""
    with db.engine.connect() as connection:
        return connection.execute(select(func.count()).where(
            workers.c.beat_at >= database_now(connection) - timedelta(seconds=lease_s),
            workers.c.host.not_like("%/local"))).scalar_one()


def trials_version(db: Database, study_name: str) -> tuple[int, int, str]:
    """What changes as the study's trials are asked for and told: (trials, trials finished, the last finish)."""
    query = (select(func.count(), func.count(OPTUNA_TRIALS.c.datetime_complete), func.max(OPTUNA_TRIALS.c.datetime_complete))
             .select_from(OPTUNA_TRIALS.join(OPTUNA_STUDIES, OPTUNA_TRIALS.c.study_id == OPTUNA_STUDIES.c.study_id))
             .where(OPTUNA_STUDIES.c.study_name == study_name))
    with db.engine.connect() as connection:
        trials, finished, last = connection.execute(query).one()
    return int(trials), int(finished), str(last)


def stored_boards(db: Database, board_ids: list[str]) -> list[StoredBoard]:
    """The stored boards of `board_ids`, in their order (a study's or split search's, read back to resume it)."""
    with db.engine.connect() as connection:
        found = {row.id: StoredBoard(*row) for row in connection.execute(select(boards).where(boards.c.id.in_(board_ids)))}
    return [found[board_id] for board_id in board_ids if board_id in found]
