"""A grid sweep's proposer: every job of the sweep without a result, proposed once.

Started by storing the plan (`start`); resumed by proposing again the jobs
still without a result (`resumed`), those live workers hold left to them
unless they are taken over (`--force`).
"""

from collections.abc import Mapping
from dataclasses import dataclass

from orchestrator.sweeps.driver import Batch
from orchestrator.sweeps.plan import SweepPlan, store_plan
from workers.settings import settings
from workers.store import Database
from workers.store.jobs import held_leases
from workers.store.sweeps import SweepRow, find, unfinished_jobs


class GridProposer:
    """Proposes the given jobs once, then nothing: a sweep learns nothing from its results."""

    def __init__(self, experiment: SweepRow, job_ids: list[int], *, chunk: int | None = None,
                 take_over: Mapping[int, int] | None = None, held: tuple[int, ...] = ()) -> None:
        self.experiment = experiment
        self._batch: Batch | None = Batch(job_ids, chunk, take_over, held)

    def suggest(self) -> Batch | None:
        """Every job, the first time; then None."""
        batch, self._batch = self._batch, None
        return batch

    def observe(self) -> None:
        """Nothing to learn."""


@dataclass(frozen=True)
class Started:
    """A sweep stored from its plan: its proposer, its jobs, and how many of them are new."""

    proposer: GridProposer
    jobs: int
    added: int

    @property
    def name(self) -> str:
        """The sweep's name."""
        return self.proposer.experiment.name


def start(db: Database, plan: SweepPlan, *, rerun: bool = False, extend: bool = False, chunk: int | None = None,
          plugin_changed: str | None = None) -> Started:
    """Store the plan (`extend`: into a sweep of another grid; `plugin_changed`: what to do with done jobs another
    version of their plugins made, see `plan.plugin_changes`) and propose its jobs without a result.

    With a broker, only those never queued: it may still hold the queued jobs
    of an earlier run (`resume` queues them all).
    """
    sweep_id, added = store_plan(db, plan, rerun=rerun, extend=extend, plugin_changed=plugin_changed)
    job_ids = unfinished_jobs(db, sweep_id, pending_only=bool(settings().broker_url))
    experiment = find(db, plan.name)
    assert experiment is not None  # stored just now
    return Started(GridProposer(experiment, job_ids, chunk=chunk), len(plan.jobs), added)


@dataclass(frozen=True)
class ResumedSweep:
    """A sweep to go on with: its proposer, and how many jobs live workers hold (left to them)."""

    proposer: GridProposer
    held: int


def resumed(db: Database, experiment: SweepRow, *, force: bool = False, chunk: int | None = None) -> ResumedSweep:
    """Propose the sweep's jobs without a result; those live workers hold are left to them (the Celery queue waits
    for them too), or with `force` taken over."""
    free = unfinished_jobs(db, experiment.id, held_too=False)
    held = tuple(sorted(set(unfinished_jobs(db, experiment.id)) - set(free)))
    if force:
        every = sorted([*free, *held])
        return ResumedSweep(GridProposer(experiment, every, chunk=chunk, take_over=held_leases(db, every)), len(held))
    return ResumedSweep(GridProposer(experiment, free, chunk=chunk, held=held), len(held))
