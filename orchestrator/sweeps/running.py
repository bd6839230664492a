"""Running a sweep's jobs: in a local pool, or by enqueueing them for Celery workers; and following them.

Both modes hand batches of job ids to `workers.execute.execute`; the local
pool calls it from its own threads (each with a job process), Celery workers
from theirs. Progress is always read from the database, the one source of
truth, and shown on stderr; stdout gets the final status.
"""

import math
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import TypeVar

from rich.console import Console

from orchestrator.sweeps import status_view
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.plan import SweepPlan, store_plan
from puzzles.textio import plural
from workers.dispatch import chunk_size, chunks, send
from workers.execute import execute
from workers.recovery import Recovery
from workers.runner import JobRunner, warm_up_jobs
from workers.settings import settings
from workers.store import Database, masked
from workers.store.database import DatabaseError
from workers.store.jobs import job_inputs
from workers.store.progress import CANCELLED, COMPLETE, STOPPED, sweep_status
from workers.store.records import JobInput
from workers.store.sweeps import SweepRow, unfinished_jobs

LOCAL_HOST = f"{socket.gethostname()}/local"  # the worker host of jobs run by the local pool
POLL_S = 0.25  # seconds between looks at the database while following a sweep
T = TypeVar("T")


@contextmanager
def job_processes(workers: int) -> Iterator[list[JobRunner]]:
    """`workers` job processes, started now and kept for several pools (`run_pool`'s `runners`), stopped after.

    Started in the calling thread: the first also starts this process's fork
    server (`workers.runner`), which lasts as long as that thread.
    """
    runners = [JobRunner() for _ in range(workers)]
    try:
        for runner in runners:
            runner.start()
        yield runners
    finally:
        for runner in runners:
            runner.close()


def run_pool(items: list[T], workers: int, handle: Callable[[JobRunner, T], None], on_poll: Callable[[], None],
             runners: list[JobRunner] | None = None) -> None:
    """Call `handle(runner, item)` for every item in `workers` threads, each with its own job process.

    `on_poll` is called four times a second and as a thread returns. Ctrl-C (KeyboardInterrupt) kills
    the job processes and is re-raised once every thread has returned; an
    error in a thread is re-raised here once they all have. `runners`: job
    processes to use (from `job_processes`, left running), else new ones, stopped after.
    """
    if runners is None:
        with job_processes(max(1, min(workers, len(items)))) as started:
            return run_pool(items, workers, handle, on_poll, started)
    work: queue.SimpleQueue[T] = queue.SimpleQueue()
    for item in items:
        work.put(item)
    runners = runners[: max(1, min(len(runners), len(items)))]
    errors: list[BaseException] = []
    ended = threading.Event()  # set by each thread as it returns
    threads = [threading.Thread(target=_drain, args=(work, runner, handle, errors, ended), daemon=True)
               for runner in runners]
    for thread in threads:
        thread.start()
    try:
        with deferred_interrupts() as interrupted:
            while any(thread.is_alive() for thread in threads) and not interrupted.is_set():
                ended.wait(POLL_S)  # not Thread.join: Ctrl-C inside it marks a running thread finished (CPython < 3.13)
                ended.clear()
                on_poll()
        if interrupted.is_set():
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        for runner in runners:
            runner.stop()
        for thread in threads:
            thread.join()
        raise
    if errors:
        raise errors[0]


@contextmanager
def deferred_interrupts() -> Iterator[threading.Event]:
    """Inside, Ctrl-C (and a hang-up that `interruptible` turns into one) only sets the event yielded, for the caller to
    raise KeyboardInterrupt where it holds no lock.

    Raised by the signal, it lands at any bytecode of the main thread, where
    it may leave a lock half taken (the connection pool's, while it polls the
    database): the threads handing their jobs back then wait for it forever.
    Outside the main thread, where no handler can be set, the event is never set.
    """
    interrupted = threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGHUP):
            if callable(signal.getsignal(signum)):  # one that raises KeyboardInterrupt: not ignored, not the default end
                previous[signum] = signal.signal(signum, lambda *_: interrupted.set())
    try:
        yield interrupted
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class WarmUp:
    """A local pool's warm-up: one job of each kind the jobs need (`warm_up_jobs`), run before the pool fans out, which
    compiles its kernels (the first run on a machine) or loads them; how many are ready and which are under way."""

    def __init__(self, jobs: list[JobInput]) -> None:
        self.jobs = warm_up_jobs(jobs)
        self.ready = 0
        self.under_way: list[JobInput] = []
        self._lock = threading.Lock()

    def run(self, runner: JobRunner, job: JobInput) -> None:
        """Warm one kind up in `runner`'s job process (a `run_pool` handler)."""
        with self._lock:
            self.under_way.append(job)
        list(runner.run([job]))
        with self._lock:
            self.under_way.remove(job)
            self.ready += 1


def run_local(db: Database, job_ids: list[int], workers: int, size: int, on_poll: Callable[[WarmUp | None], None],
              take_over: Mapping[int, int] | None = None, runners: list[JobRunner] | None = None) -> None:
    """Run and store the jobs in `workers` threads, each with its own job process; `on_poll` is called as they run,
    with the warm-up while it lasts, then with None.

    After Ctrl-C (re-raised) every result the threads had is stored and the
    jobs they held are pending again. `take_over`: also the jobs others hold under these leases (job id -> lease).
    `runners`: job processes kept across calls (`job_processes`).
    """
    with job_processes(min(workers, len(job_ids))) if runners is None else nullcontext(runners) as pool:
        warm_up = WarmUp(job_inputs(db, job_ids))
        run_pool(warm_up.jobs, workers, warm_up.run, lambda: on_poll(warm_up), pool)
        run_pool(list(chunks(job_ids, size)), workers,
                 lambda runner, batch: execute(db, batch, runner, LOCAL_HOST, take_over=take_over),
                 lambda: on_poll(None), pool)


class Paced:
    """A call skipped until twice as long has passed since it last started as it took: a large sweep's status, read
    four times a second (0.7 s at a million jobs), then takes at most half a core from the jobs."""

    def __init__(self, call: Callable[..., None]) -> None:
        self.call, self.started, self.took = call, -math.inf, 0.0

    def __call__(self, *args: object) -> None:
        """Make the call, unless the last one is too recent for what it took."""
        if time.monotonic() - self.started < 2 * self.took:
            return
        self.started = time.monotonic()
        self.call(*args)
        self.took = time.monotonic() - self.started


def watch(poll: Callable[[], bool], interval: float = POLL_S) -> None:
    """Call `poll` every `interval` seconds until it returns True."""
    while not poll():
        time.sleep(interval)


def store_and_run(db: Database, plan: SweepPlan, *, rerun: bool, workers: int, chunk: int | None, wait: bool,
                  runners: list[JobRunner] | None = None, extend: bool = False) -> SweepRow:
    """Store the plan (`extend`: into a sweep of another grid), then run (or queue) its jobs that have no result; the
    sweep. `runners`: as `run_jobs` takes them."""
    sweep_id, added = store_plan(db, plan, rerun=rerun, extend=extend)
    print(f"sweep {plan.name}: {plural(len(plan.jobs), 'job')}, {added:,} new", flush=True)
    # A broker may still hold the queued jobs of an earlier run: queue only the new ones (resume queues all).
    job_ids = unfinished_jobs(db, sweep_id, pending_only=bool(settings().broker_url))
    sweep = find_sweep(db, plan.name)
    run_jobs(db, sweep, job_ids, workers=workers, chunk=chunk, wait=wait, runners=runners)
    return sweep


def run_jobs(db: Database, sweep: SweepRow, job_ids: list[int], *, workers: int, chunk: int | None, wait: bool,
             take_over: Mapping[int, int] | None = None, runners: list[JobRunner] | None = None) -> None:
    """Run the jobs here with a live progress bar, or queue them when there is a broker (and follow them with `wait`).

    Ctrl-C of a local run stores what is done, gives the rest back and raises
    KeyboardInterrupt. `take_over` (job id -> lease, `held_leases`): those jobs
    are run even where others still hold them under those leases.
    `runners`: the local job processes to run them in, kept running (`job_processes`).
    """
    size = chunk or chunk_size(len(job_ids))
    broker = settings().broker_url
    if broker:
        messages = send(db, job_ids, size, take_over=take_over, sweep=sweep.name)
        print(f"queued {plural(len(job_ids), 'job')} in {plural(messages, 'message')} on {masked(broker)}", flush=True)
        if wait:
            follow(db, sweep)
        else:
            print(f"follow with: orchestrate status {sweep.name} --watch", flush=True)
        return
    with status_view.live_bar(Console(stderr=True), sweep.name, len(job_ids), here=True) as update:
        run_local(db, job_ids, workers, size, Paced(lambda warm_up: update(sweep_status(db, sweep), warm_up)), take_over,
                  runners)
        update(sweep_status(db, sweep))
    print(status_view.status_text(sweep_status(db, sweep)), flush=True)


def follow(db: Database, sweep: SweepRow) -> None:
    """A live progress bar on stderr until every job of the sweep is done, or it has stopped (nothing runs or waits)
    or was cancelled.

    Meanwhile the jobs of lost workers (their leases lapsed) are re-queued, if
    no worker did it first: sent to the broker if there is one, else made pending.
    While the database does not answer, a line says so, and another when it answers again.
    """
    recover = Recovery(db, partial(send, db) if settings().broker_url else None)
    console, down = Console(stderr=True), False
    with status_view.live_bar(console, sweep.name, 0) as update:

        def poll() -> bool:
            nonlocal down
            recover()
            try:
                current = sweep_status(db, sweep)
            except DatabaseError as err:
                if not down:
                    console.print(f"the database does not answer ({str(err).splitlines()[0]}): waiting for it")
                down = True
                return False
            if down:
                console.print("the database answers again")
            down = False
            update(current)
            return current.phase in (COMPLETE, STOPPED, CANCELLED) and not current.lapsed

        watch(poll)


def _drain(work: queue.SimpleQueue, runner: JobRunner, handle: Callable, errors: list[BaseException],
           ended: threading.Event) -> None:
    try:
        while not runner.stopping:
            try:
                item = work.get_nowait()
            except queue.Empty:
                return
            handle(runner, item)
    except Exception as err:  # noqa: BLE001 - handed to the main thread, which re-raises it
        errors.append(err)
    finally:
        ended.set()
