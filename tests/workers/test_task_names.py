"""Celery messages name their sweep and jobs (`workers.tasks.send_jobs`), as Flower and the worker log show them:
read back from a real Redis broker."""

import base64
import json

import redis

from workers.celery_app import QUEUE, broker_app
from workers.settings import configure
from workers.tasks import TASK, jobs_text, send_jobs

BROKER_DB = 6


def test_a_message_carries_a_readable_name_its_job_ids_and_its_sweep(redis_server):
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    configure(broker_url=url)
    try:
        with broker_app().producer_or_acquire() as producer:
            send_jobs([12, 13, 14], "beam-k", producer)
        (raw,) = client.lrange(QUEUE, 0, -1)
    finally:
        configure()
        client.flushdb()
    message = json.loads(raw)
    headers = message["headers"]

    assert headers["task"] == TASK and headers["shadow"] == "slidelab.run_jobs[beam-k]"
    assert headers["argsrepr"] == "jobs=[12, 13, 14]" and headers["kwargsrepr"] == "sweep='beam-k'"
    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert args == [[12, 13, 14]] and kwargs == {"sweep": "beam-k"}


def test_long_batches_are_described_by_their_first_ids():
    assert jobs_text(list(range(1, 101))) == "jobs=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, +90 more]"
    assert jobs_text([7]) == "jobs=[7]"
