"""Sending jobs to the broker: batches of job ids, one message each, and the jobs marked queued.

The orchestrator sends a sweep's jobs this way, and a worker the jobs it hands
back or re-queues. Messages are sent by the task's name (`workers.messages`),
so a sender never imports the worker's tasks, and Celery is imported only when
something is sent.
"""

from collections.abc import Iterator, Mapping

from workers.messages import message
from workers.store import Database
from workers.store.jobs import mark_queued

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
    """Send the jobs (of `sweep`) to the broker in messages of `size` ids (default: `chunk_size`), then mark them queued.

    The number of messages sent. A job in `take_over` (job id -> lease) is run
    by the worker that gets its message even if another worker holds it under
    that lease (`resume --force`).
    """
    from workers.celery_app import broker_producer

    sent = 0
    with broker_producer() as producer:
        for batch in chunks(job_ids, size or chunk_size(len(job_ids))):
            send_jobs(batch, sweep, producer, take_over=take_over)
            sent += 1
    mark_queued(db, job_ids)
    return sent


def send_jobs(job_ids: list[int], sweep: str | None, producer, *, take_over: Mapping[int, int] | None = None) -> None:
    """Queue one batch of jobs (of `sweep`) through `producer` (`workers.celery_app.broker_producer`), by name."""
    from workers.celery_app import app

    app.send_task(**message(job_ids, sweep, take_over=take_over), producer=producer)
