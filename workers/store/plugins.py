"""Which plugins jobs need and live workers have: the reads that route jobs to the workers able to run them.

A job's plugins are `jobs.plugins` (the keys `dist==version#hash12` of the
plugins it runs, space separated; NULL for slidelab's own); a worker's are
`workers.plugins`, written with its heartbeat (`workers.store.activity`).
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import ColumnElement, func, select

from workers.store.database import Database
from workers.store.jobs import IN_CLAUSE
from workers.store.schema import database_now, jobs, workers
from workers.store.states import JobState

DENSE = 4  # ids read as a range when it holds at most this many jobs per id wanted


@dataclass(frozen=True)
class Unserved:
    """Queued jobs that need `plugins` (their keys), which no live worker has all of; `others`: for the plugins no live
    worker has, the keys of the same distributions that live workers have (another version, or other sources)."""

    plugins: tuple[str, ...]
    jobs: int
    others: tuple[str, ...] = ()


def jobs_by_plugins(db: Database, job_ids: list[int]) -> dict[str | None, list[int]]:
    """The job ids grouped by the plugins they run (None: slidelab's own), each group in the order of `job_ids`.

    Only the rows of jobs that run plugins are read: jobs of slidelab's own
    alone come back as they are, in one group.
    """
    with db.engine.connect() as connection:
        needing = {job_id: plugins for ids in _id_windows(sorted(job_ids)) for job_id, plugins in connection.execute(
            select(jobs.c.id, jobs.c.plugins).where(ids, jobs.c.plugins.is_not(None)))}
    if not needing:
        return {None: job_ids} if job_ids else {}
    groups: dict[str | None, list[int]] = {}
    for job_id in job_ids:
        groups.setdefault(needing.get(job_id), []).append(job_id)
    return groups


def _id_windows(ids: list[int]) -> Iterator[ColumnElement[bool]]:
    """Conditions on `jobs.id` that together select the sorted `ids` (and maybe jobs between them): a range where they
    are dense (a sweep's jobs mostly are: a range scan reads them a few times faster than a list of ids), else a list."""
    for start in range(0, len(ids), IN_CLAUSE):
        window = ids[start : start + IN_CLAUSE]
        dense = window[-1] - window[0] < DENSE * len(window)
        yield jobs.c.id.between(window[0], window[-1]) if dense else jobs.c.id.in_(window)


def live_worker_plugins(db: Database, lease_s: float) -> list[tuple[str, ...]]:
    """The plugin keys of each worker that beat within the last `lease_s` seconds (none recorded: no plugins)."""
    with db.engine.connect() as connection:
        since = database_now(connection) - timedelta(seconds=lease_s)
        rows = connection.scalars(select(workers.c.plugins).where(workers.c.beat_at >= since)).all()
    return [tuple(keys or ()) for keys in rows]


def queued_plugins(db: Database, sweep_id: int) -> dict[str, int]:
    """The sweep's queued jobs that run plugins, counted by their plugins."""
    query = (select(jobs.c.plugins, func.count())
             .where(jobs.c.sweep_id == sweep_id, jobs.c.status == JobState.QUEUED, jobs.c.plugins.is_not(None))
             .group_by(jobs.c.plugins))
    with db.engine.connect() as connection:
        return {plugins: count for plugins, count in connection.execute(query)}


def unserved(db: Database, sweep_id: int, lease_s: float) -> list[Unserved]:
    """The sweep's queued jobs whose plugins no live worker (one that beat within `lease_s`) has all of."""
    queued = queued_plugins(db, sweep_id)
    if not queued:
        return []
    return unserved_among(queued, live_worker_plugins(db, lease_s))


def unserved_among(waiting: dict[str, int], workers_have: Iterable[tuple[str, ...]]) -> list[Unserved]:
    """Of the jobs counted by their plugins in `waiting`, those whose plugins no worker has all of (`workers_have`:
    each worker's keys)."""
    have = [set(keys) for keys in workers_have]
    every = set().union(*have)
    found = []
    for plugins, count in sorted(waiting.items()):
        needed = tuple(plugins.split())
        if any(set(needed) <= keys for keys in have):
            continue
        missing = {distribution(key) for key in needed if key not in every}
        others = tuple(sorted(key for key in every - set(needed) if distribution(key) in missing))
        found.append(Unserved(needed, count, others))
    return found


def distribution(key: str) -> str:
    """The distribution a plugin key names: `greedy-search` of `greedy-search==0.2.0#3f2a9c1b07de`."""
    return key.partition("==")[0]
