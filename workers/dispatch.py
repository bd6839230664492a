"""Sending jobs to the broker: batches of job ids, one message each, and the jobs marked queued.

The orchestrator sends a sweep's jobs this way, and a worker the jobs it hands
back or re-queues. Messages are sent by the task's name (`workers.messages`),
so a sender never imports the worker's tasks, and Celery is imported only when
something is sent. A batch holds jobs that run the same plugins (or none) and
goes to their queue (`workers.messages.queue_of`), which only the workers that
have those plugins consume.
"""

from collections.abc import Iterator, Mapping

from workers.messages import QUEUE, message, queue_of
from workers.store import Database
from workers.store.jobs import mark_queued
from workers.store.plugins import jobs_by_plugins

MAX_CHUNK = 100  # jobs per message, at most


def chunk_size(total: int) -> int:
    """Jobs per batch: one for small sweeps, up to MAX_CHUNK so large ones need few messages."""
    return max(1, min(MAX_CHUNK, total // 256))


def chunks(job_ids: list[int], size: int) -> Iterator[list[int]]:
    """The ids in consecutive batches of `size`."""
    for start in range(0, len(job_ids), size):
        yield job_ids[start : start + size]


def send(db: Database, job_ids: list[int], size: int | None = None, *, take_over: Mapping[int, int] | None = None,
         sweep: str | None = None) -> int:
    """Send the jobs (of `sweep`) to the broker in messages of `size` ids (default: `chunk_size` of the jobs that run
    the same plugins), each to the queue of its jobs' plugins, then mark them queued.

    The number of messages sent. A job in `take_over` (job id -> lease) is run
    by the worker that gets its message even if another worker holds it under
    that lease (`resume --force`).
    """
    from workers.celery_app import broker_producer

    sent = 0
    with broker_producer() as producer:
        for plugins, ids in jobs_by_plugins(db, job_ids).items():
            for batch in chunks(ids, size or chunk_size(len(ids))):
                send_jobs(batch, sweep, producer, take_over=take_over, queue=queue_of(plugins))
                sent += 1
    mark_queued(db, job_ids)
    return sent


def send_jobs(job_ids: list[int], sweep: str | None, producer, *, take_over: Mapping[int, int] | None = None,
              queue: str = QUEUE) -> None:
    """Queue one batch of jobs (of `sweep`) on `queue` through `producer` (`workers.celery_app.broker_producer`),
    by name."""
    from workers.celery_app import app

    app.send_task(**message(job_ids, sweep, take_over=take_over, queue=queue), producer=producer)
