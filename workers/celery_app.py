"""The Celery application: JSON messages on Redis, late acknowledgement, one message at a time.

A message carries a batch of job ids (one id for long jobs, up to a hundred
short ones), so the broker's cost per job stays small. A message is acknowledged
only after its results are stored. A lost worker's jobs come back through their
leases in the database (`workers.recovery`), within a minute; the broker's own
redelivery of unacknowledged messages, after `redelivery_seconds`, is only a
backstop, and a message for a job someone holds or has finished runs nothing.
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from celery import Celery
from kombu import Producer

from workers.messages import QUEUE, queues_for
from workers.settings import settings
from workers.store import connect
from workers.store.database import ping

BROKER_TIMEOUT_S = 10.0  # a broker that does not answer a worker's first look within this is unreachable
app = Celery("slidelab", include=["workers.tasks"])
app.conf.update(
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    task_ignore_result=True,
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_default_queue=QUEUE,
    worker_prefetch_multiplier=1,
    # Task events for Celery's monitor, Flower (README: Watching the workers); with no monitor they go nowhere.
    worker_send_task_events=True,
    task_send_sent_event=True,
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=None,
    # A job running when Redis goes away finishes and stores its result; its message may come again.
    worker_cancel_long_running_tasks_on_connection_loss=False,
)


def broker_app() -> Celery:
    """The app pointed at the broker of the current settings."""
    current = settings()
    redelivery = current.redelivery_seconds
    app.conf.broker_url = current.broker_url
    app.conf.broker_transport_options = {
        "visibility_timeout": redelivery,
        "unacked_restore_interval": max(1, min(10, int(redelivery / 4))),
        "unacked_restore_throttle": 1,
    }
    return app


@contextmanager
def broker_producer() -> Iterator[Producer]:
    """A producer on a connection of its own to the current settings' broker, closed on leaving.

    Not the app's pool: a pool keeps the broker it first connected to, and a
    process may be configured again with another (`configure`).
    """
    current = broker_app()
    with current.connection_for_write() as connection:
        yield current.amqp.Producer(connection)


def check_services() -> None:
    """Reach the current settings' database and broker once: their failure (SQLAlchemy's, kombu's) if one does not
    answer, so that a worker that could do nothing says so and stops instead of saying it is ready."""
    ping(connect(settings().database_url))
    with broker_app().connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_S)


def start_worker(concurrency: int, hostname: str | None = None) -> None:
    """Run a worker in this process until it is stopped: `concurrency` threads, each with its own job process.

    It takes the jobs of slidelab's own algorithms, and those of the plugins
    installed here (`workers.messages.queues_for`), which its heartbeat
    advertises. What slidelab's own modules log (leases, hand-backs, late
    results) goes to Celery's log at INFO and above.
    """
    from puzzles.plugins import installed_keys

    logging.getLogger("workers").setLevel(logging.INFO)
    queues = ",".join(queues_for(installed_keys()))
    argv = ["worker", "--pool=threads", f"--concurrency={concurrency}", "--loglevel=INFO", f"--queues={queues}",
            "--without-gossip", "--without-mingle"]
    broker_app().worker_main(argv + ([f"--hostname={hostname}"] if hostname else []))
