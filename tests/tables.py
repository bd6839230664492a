"""The results tables as ORM classes, for the tests' own queries and assertions (slidelab itself uses Core)."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session, registry

from workers.store.schema import board_set_members, board_sets, boards, jobs, results, sweeps

_registry = registry()


class _Row:
    """A row made from its column values."""

    def __init__(self, **values):
        for name, value in values.items():
            setattr(self, name, value)


class Board(_Row):
    """A row of `boards`."""


class BoardSet(_Row):
    """A row of `board_sets`."""


class BoardSetMember(_Row):
    """A row of `board_set_members`."""


class Sweep(_Row):
    """A row of `sweeps`."""


class Job(_Row):
    """A row of `jobs`."""


class Result(_Row):
    """A row of `results`."""


for _model, _table in ((Board, boards), (BoardSet, board_sets), (BoardSetMember, board_set_members), (Sweep, sweeps),
                       (Job, jobs), (Result, results)):
    _model.__table__, _model.__tablename__ = _table, _table.name
    _registry.map_imperatively(_model, _table)


def expire_leases(engine, job_ids) -> None:
    """The jobs' leases lapsed a second ago, as if their worker had stopped renewing them."""
    with Session(engine) as session, session.begin():
        session.execute(update(Job).where(Job.id.in_(job_ids))
                        .values(lease_until=datetime.now(UTC) - timedelta(seconds=1)))


def job_rows(db) -> dict:
    """Every job row of the database `db`, by id."""
    with Session(db.engine) as session:
        return {job.id: job for job in session.scalars(select(Job).order_by(Job.id))}


def result_rows(db) -> dict:
    """Every result row of the database `db`, by job id."""
    with Session(db.engine) as session:
        return {result.job_id: result for result in session.scalars(select(Result))}
