"""One driver for every kind of experiment: a proposer says which jobs to run, a backend runs them.

A proposer (`Proposer`: the grid's, a study's, a split search's, an optimum
proof's) stores the jobs it wants run and hands their ids over as a `Batch`
(`suggest`); while they run, and once they are done, it learns from their
results (`observe`), which may settle the batch early (a split search's
subtree holds a solution): the batch's jobs still running are then stopped,
stored with the outcome limit. `suggest` returns None once the experiment
needs nothing more.

The driver owns, once for every kind: the backend (`LocalPool`: job processes
here; `CeleryQueue`: the broker's workers), progress (a callback with the
experiment's status, four times a second at most), Ctrl-C (the local job
processes hand their jobs back before KeyboardInterrupt is raised), `cancel`
(a cancelled experiment's batch ends and nothing more is proposed), recovery
of lost workers' jobs (`workers.recovery.Recovery`) and the final status.
Resuming an experiment is running the proposer its kind builds from the
stored definition again: jobs already done are not run again.
"""

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Protocol, TypeVar

from orchestrator.sweeps.running import POLL_S, Paced, WarmUp, deferred_interrupts, job_processes, run_local, watch
from puzzles.errors import PuzzleError
from puzzles.plugins import is_file_name
from workers.dispatch import chunk_size, send
from workers.recovery import Recovery
from workers.runner import JobRunner
from workers.settings import settings
from workers.store import Database, masked
from workers.store.database import DatabaseError
from workers.store.progress import CANCELLED, COMPLETE, STOPPED, SweepStatus, sweep_status
from workers.store.records import JobResult
from workers.store.states import JobState
from workers.store.sweeps import ExperimentKind, SweepRow, find, is_cancelled, job_states

OnProgress = Callable[[SweepStatus, WarmUp | None], None]  # the experiment's status, and a local pool's warm-up
OnNote = Callable[[str], None]  # a line about the run itself (the database stopped answering, and answers again)
WAITING = (JobState.PENDING, JobState.QUEUED)
ALL_AT_ONCE = (ExperimentKind.GRID, ExperimentKind.OPTIMUM)  # kinds that propose every job in one batch
SETTLE_S = 3.0  # how long another kind must look ended to a follower: its driver may be proposing the next batch
T = TypeVar("T")


@dataclass(frozen=True)
class Batch:
    """Jobs a proposer wants run now (stored already), in the order to run them; `chunk`: jobs per message or
    local batch (default: `chunk_size`); `take_over`: jobs to run even where others hold them under these leases;
    `held`: jobs live workers hold, left to them, which the Celery queue follows to their end as well."""

    job_ids: list[int]
    chunk: int | None = None
    take_over: Mapping[int, int] | None = None
    held: tuple[int, ...] = ()


class Proposer(Protocol):
    """What to run next, and what was learnt from the results so far: one per kind of experiment."""

    experiment: SweepRow

    def suggest(self) -> Batch | None:
        """The next jobs to run, stored; None once the experiment needs no more."""

    def observe(self) -> str | None:
        """Learn from the results stored so far (called while a batch runs and once it ended); a reason when the
        batch's jobs still running are no longer needed, else None."""


@dataclass(frozen=True)
class ExperimentStatus:
    """How a run of an experiment ended: its status, whether it was cancelled, and, when it ran on a broker, how many
    jobs it queued in how many messages on which broker, and whether it followed them to the end (`waited`)."""

    experiment: SweepRow
    status: SweepStatus
    cancelled: bool = False
    queued: int = 0
    messages: int = 0
    broker: str | None = None
    waited: bool = True


class LocalPool:
    """`workers` job processes here, started on entry and kept for every batch; stopped on exit."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.runners: list[JobRunner] = []
        self._processes = job_processes(workers)

    def __enter__(self) -> "LocalPool":
        self.runners = self._processes.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self._processes.__exit__(kind, error, trace)

    def run(self, db: Database, experiment: SweepRow, batch: Batch, poll: Callable[[WarmUp | None], str | None]) -> None:
        """Run the batch's free jobs in the job processes; wait for those others hold (recovered once their lease
        lapses); once `poll` gives a reason, stop the job processes, their jobs stored as limit with it."""
        recover = Recovery(db, None)
        stopped = False

        def on_poll(warm_up: WarmUp | None) -> None:
            nonlocal stopped
            reason = poll(warm_up)
            if reason is not None and not stopped:
                stopped = True
                for runner in self.runners:
                    runner.stop(JobResult.limit(reason))

        while not stopped and not is_cancelled(db, experiment.id):
            states = job_states(db, batch.job_ids)
            left = [job_id for job_id in batch.job_ids if job_id in states and states[job_id][0] in (*WAITING, JobState.RUNNING)]
            if not left:
                return
            taken = batch.take_over or {}
            free = [job_id for job_id in left if not states[job_id][1] or job_id in taken]
            if free:
                run_local(db, free, self.workers, batch.chunk or chunk_size(len(free)), Paced(on_poll), batch.take_over,
                          self.runners)
            else:
                recover()
                time.sleep(POLL_S)
                on_poll(None)


class CeleryQueue:
    """The broker's Celery workers: a batch's waiting jobs sent, then followed, the jobs of lost workers re-queued."""

    def __init__(self, *, wait: bool = True) -> None:
        self.wait = wait
        self.queued = self.messages = 0

    def __enter__(self) -> "CeleryQueue":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        return None

    def run(self, db: Database, experiment: SweepRow, batch: Batch, poll: Callable[[WarmUp | None], str | None]) -> None:
        """Send the batch's pending and queued jobs; unless not waiting, follow them until none is left to run."""
        states = job_states(db, batch.job_ids)
        waiting = [job_id for job_id in batch.job_ids if job_id in states and
                   (states[job_id][0] in WAITING or (batch.take_over and job_id in batch.take_over))]
        if waiting:
            self.messages += send(db, waiting, batch.chunk, take_over=batch.take_over, sweep=experiment.name)
            self.queued += len(waiting)
        if not self.wait:
            return
        recover = Recovery(db, partial(send, db))

        def over() -> bool:
            recover()
            poll(None)
            current = job_states(db, [*batch.job_ids, *batch.held])
            return is_cancelled(db, experiment.id) or not any(state in (*WAITING, JobState.RUNNING)
                                                              for state, _ in current.values())

        _paced_watch(_answering(over))


def backend_for(workers: int, *, wait: bool = True) -> LocalPool | CeleryQueue:
    """The Celery queue when the settings name a broker, else a pool of `workers` job processes here."""
    return CeleryQueue(wait=wait) if settings().broker_url else LocalPool(workers)


def check_runnable(algorithms: Iterable[str]) -> None:
    """PuzzleError if the settings name a broker and one of `algorithms` is a plugin in a file (`--algo FILE.py:NAME`):
    the workers run only what is installed on them. Called before anything is stored."""
    if not settings().broker_url:
        return
    for name in algorithms:
        if is_file_name(name):
            path, _, function = name.rpartition(":")
            raise PuzzleError(f"--algo {_shown_path(path)}:{function} is a file on this machine: install it as a package"
                              " on the workers to run it there (docs/plugins.md)")


def _shown_path(path: str) -> str:
    """A file's path as the user may have typed it: from the current folder if it is under it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def run_experiment(db: Database, proposer: Proposer, backend: LocalPool | CeleryQueue, *,
                   on_progress: OnProgress | None = None, on_note: OnNote | None = None) -> ExperimentStatus:
    """Run the proposer's batches on the backend until it proposes nothing more, or the experiment is cancelled.

    `on_progress` gets the experiment's status as it runs; `on_note` a line
    when the database stops answering and when it answers again. Ctrl-C
    (KeyboardInterrupt, re-raised) leaves every job without a result to run
    again: `resume` continues the experiment.
    """
    experiment = proposer.experiment
    notes = _Outage(on_note)

    def poll(warm_up: WarmUp | None) -> str | None:
        if interrupted.is_set():
            raise KeyboardInterrupt
        reason = notes.answered(proposer.observe)
        if on_progress is not None:
            current = notes.answered(lambda: sweep_status(db, experiment, lease_s=settings().lease_seconds))
            if current is not None:
                on_progress(current, warm_up)
        return reason

    with backend, deferred_interrupts() as interrupted:  # Ctrl-C raised at the next poll or batch, never mid-write
        while not is_cancelled(db, experiment.id) and (batch := proposer.suggest()) is not None:
            backend.run(db, experiment, batch, poll)
            proposer.observe()
            if interrupted.is_set():
                raise KeyboardInterrupt
            if isinstance(backend, CeleryQueue) and not backend.wait:
                break
    final = find(db, experiment.name) or experiment
    status = sweep_status(db, final, lease_s=settings().lease_seconds)
    if on_progress is not None:
        on_progress(status, None)
    if isinstance(backend, CeleryQueue):
        return ExperimentStatus(final, status, final.cancelled_at is not None, backend.queued, backend.messages,
                                masked(settings().broker_url), backend.wait)
    return ExperimentStatus(final, status, final.cancelled_at is not None)


def follow(db: Database, experiment: SweepRow, *, on_progress: OnProgress, on_note: OnNote | None = None) -> SweepStatus:
    """Follow an experiment run elsewhere until every job is done, or it has stopped (nothing runs or waits) or was
    cancelled; the jobs of lost workers re-queued meanwhile (sent to the broker if there is one, else made pending).

    A study or a split search proposes its jobs a batch at a time: between two batches it looks done, or
    stopped, for as long as its driver takes to propose the next; it is followed until it has looked so for
    SETTLE_S seconds, its counts unchanged.
    """
    recover = Recovery(db, partial(send, db) if settings().broker_url else None)
    notes = _Outage(on_note)
    last: list[SweepStatus] = []
    settle_s = 0.0 if experiment.kind in ALL_AT_ONCE else SETTLE_S
    ended_at: list = []  # when it first looked ended so, and its counts then

    def poll() -> bool:
        recover()
        current = notes.answered(lambda: sweep_status(db, experiment, lease_s=settings().lease_seconds))
        if current is None:
            return False
        on_progress(current, None)
        last[:] = [current]
        counts = (current.phase, current.states, current.outcomes)
        if current.phase not in (COMPLETE, STOPPED, CANCELLED) or current.lapsed:
            ended_at.clear()
            return False
        if not ended_at or ended_at[1] != counts:  # ended, or ended otherwise: a batch came and went
            ended_at[:] = [time.monotonic(), counts]
        return current.phase == CANCELLED or time.monotonic() - ended_at[0] >= settle_s

    watch(poll)
    return last[0]


class _Outage:
    """Calls made while the database may not answer: None for one that failed, a note once when it stops answering
    and once when it answers again."""

    def __init__(self, on_note: OnNote | None) -> None:
        self.on_note, self.down = on_note, False

    def answered(self, call: Callable[[], T]) -> T | None:
        try:
            value = call()
        except DatabaseError as err:
            if not self.down and self.on_note:
                self.on_note(f"the database does not answer ({str(err).splitlines()[0]}): waiting for it")
            self.down = True
            return None
        if self.down and self.on_note:
            self.on_note("the database answers again")
        self.down = False
        return value


def _paced_watch(poll: Callable[[], bool]) -> None:
    """Call `poll` until it returns True: every POLL_S seconds, or twice as long as it took if longer (the look at a
    large batch's states then takes at most half a core)."""
    while True:
        started = time.monotonic()
        if poll():
            return
        time.sleep(max(POLL_S, 2 * (time.monotonic() - started)))


def _answering(poll: Callable[[], bool]) -> Callable[[], bool]:
    """`poll`, False while the database does not answer (the driver's progress says so)."""
    notes = _Outage(None)
    return lambda: bool(notes.answered(poll))

