"""Running a sweep's jobs: in a local pool, or by enqueueing them for Celery workers.

Both modes hand batches of job ids to `workers.store.execute`; the local pool
calls it from its own threads (each with a job process), Celery workers from
theirs. Progress is always read from the database, the one source of truth.
"""

import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from workers.db import Job
from workers.runner import JobRunner
from workers.store import execute, release

MAX_CHUNK = 100  # jobs per batch, at most
LOCAL_HOST = f"{socket.gethostname()}/local"  # the worker host of jobs run by the local pool
POLL_S = 0.25  # seconds between looks at the database while following a sweep
T = TypeVar("T")


def chunk_size(total: int) -> int:
    """Jobs per batch: one for small sweeps, up to MAX_CHUNK so large ones need few messages."""
    return max(1, min(MAX_CHUNK, total // 256))


def chunks(job_ids: list[int], size: int) -> Iterator[list[int]]:
    """The ids in consecutive batches of `size`."""
    for start in range(0, len(job_ids), size):
        yield job_ids[start : start + size]


def run_pool(items: list[T], workers: int, handle: Callable[[JobRunner, T], None], on_poll: Callable[[], None]) -> None:
    """Call `handle(runner, item)` for every item in `workers` threads, each with its own job process.

    `on_poll` is called four times a second. Ctrl-C (KeyboardInterrupt) kills
    the job processes and is re-raised once every thread has returned; an
    error in a thread is re-raised here once they all have.
    """
    work: queue.SimpleQueue[T] = queue.SimpleQueue()
    for item in items:
        work.put(item)
    runners = [JobRunner() for _ in range(max(1, min(workers, len(items))))]
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_drain, args=(work, runner, handle, errors), daemon=True) for runner in runners]
    for thread in threads:
        thread.start()
    try:
        while any(thread.is_alive() for thread in threads):
            time.sleep(POLL_S)  # not Thread.join: Ctrl-C inside it marks a running thread finished (CPython < 3.13)
            on_poll()
    except KeyboardInterrupt:
        for runner in runners:
            runner.stop()
        for thread in threads:
            thread.join()
        raise
    finally:
        for runner in runners:
            runner.close()
    if errors:
        raise errors[0]


def run_local(engine: Engine, job_ids: list[int], workers: int, size: int, on_poll: Callable[[], None]) -> None:
    """Run and store the jobs in `workers` threads, each with its own job process; `on_poll` is called as they run.

    After Ctrl-C (re-raised) every result the threads had is stored and the
    jobs they held are pending again.
    """
    try:
        run_pool(list(chunks(job_ids, size)), workers, lambda runner, batch: execute(engine, batch, runner, LOCAL_HOST), on_poll)
    except KeyboardInterrupt:
        release(engine, job_ids, LOCAL_HOST)
        raise


def enqueue(engine: Engine, job_ids: list[int], size: int) -> int:
    """Send the jobs to the Celery queue in batches and mark them queued; the number of messages."""
    from workers.celery_app import configured  # imports Celery only when a broker is used
    from workers.tasks import run_jobs

    sent = 0
    with configured().producer_or_acquire() as producer:
        for batch in chunks(job_ids, size):
            run_jobs.apply_async(args=[batch], producer=producer, retry=True, retry_policy={"max_retries": 3})
            sent += 1
    with Session(engine) as session, session.begin():
        for batch in chunks(job_ids, 10_000):
            session.execute(update(Job).where(Job.id.in_(batch), Job.status == "pending").values(status="queued"))
    return sent


def watch(poll: Callable[[], bool], interval: float = POLL_S) -> None:
    """Call `poll` every `interval` seconds until it returns True."""
    while not poll():
        time.sleep(interval)


def _drain(work: queue.SimpleQueue, runner: JobRunner, handle: Callable, errors: list[BaseException]) -> None:
    try:
        while not runner.stopping:
            try:
                item = work.get_nowait()
            except queue.Empty:
                return
            handle(runner, item)
    except Exception as err:  # noqa: BLE001 - handed to the main thread, which re-raises it
        errors.append(err)
