"""The local pool: jobs run in this process's threads, each with its own job process (the driver's `LocalPool`).

The threads hand batches of job ids to `workers.execute.execute`, as Celery
workers do from theirs. Ctrl-C is deferred while the pool runs, so that the
job processes hand their jobs back before KeyboardInterrupt is raised.
"""

import math
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import TypeVar

from workers.dispatch import chunks
from workers.execute import execute
from workers.runner import JobRunner, warm_up_jobs
from workers.store import Database
from workers.store.jobs import job_inputs
from workers.store.records import JobInput

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


def run_pool(items: list[T], workers: int, handle: Callable[[JobRunner, T], object], on_poll: Callable[[], None],
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
    try:
        with deferred_interrupts() as interrupted:  # before any thread starts: a Ctrl-C then waits for them all
            for thread in threads:
                thread.start()
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
            if thread.ident is not None:  # started
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
