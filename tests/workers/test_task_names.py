"""Celery messages name their sweep and jobs (`workers.dispatch.send_jobs`), as Flower and the worker log show them:
read back from a real Redis broker."""

import base64
import json
import logging

import pytest
import redis

from workers.celery_app import broker_producer
from workers.dispatch import send_jobs
from workers.messages import QUEUE, TASK, jobs_text
from workers.settings import configure
from workers.tasks import run_jobs

BROKER_DB = 6


def test_a_message_carries_a_readable_name_its_job_ids_and_its_sweep(redis_server):
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    configure(broker_url=url)
    try:
        with broker_producer() as producer:
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


def test_a_process_configured_again_sends_to_its_new_broker(redis_server):
    clients = {db: redis.Redis.from_url(redis_server.url_for(db)) for db in (BROKER_DB, BROKER_DB + 1)}
    try:
        for db, client in clients.items():
            client.flushdb()
            configure(broker_url=redis_server.url_for(db))
            with broker_producer() as producer:
                send_jobs([db], "again", producer)
        queued = {db: client.lrange(QUEUE, 0, -1) for db, client in clients.items()}
    finally:
        configure()
        for client in clients.values():
            client.flushdb()
    assert {db: [json.loads(base64.b64decode(json.loads(raw)["body"]))[0] for raw in messages]
            for db, messages in queued.items()} == {BROKER_DB: [[[BROKER_DB]]], BROKER_DB + 1: [[[BROKER_DB + 1]]]}


def test_long_batches_are_described_by_their_first_ids():
    assert jobs_text(list(range(1, 101))) == "jobs=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, +90 more]"
    assert jobs_text([7]) == "jobs=[7]"


@pytest.mark.parametrize("job_ids, take_over, sweep", [
    ("12", None, None), ([], None, None), ([1.5], None, None), ([True], None, None), ([2**63], None, None),
    ([1], "yes", None), ([1], None, ["beam-k"]), (list(range(1, 10_002)), None, None),
    ([1], True, None), ([1], [[1]], None), ([1], [[1, 0]], None), ([1], [[2, 1]], None), ([1], {"1": 1}, None),
])
def test_a_crafted_message_is_refused_with_a_log_line_before_touching_the_database(caplog, job_ids, take_over, sweep):
    configure(database_url="postgresql://nobody@127.0.0.1:1/none")  # never reached: the message is refused first
    try:
        with caplog.at_level(logging.ERROR, logger="workers.tasks"):
            assert run_jobs(job_ids, take_over, sweep) == 0
    finally:
        configure()
    assert [record.getMessage().split(":")[0] for record in caplog.records] == ["refused a message"]
