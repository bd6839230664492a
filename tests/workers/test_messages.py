"""The queue's message contract (`workers.messages`): one module the sender, the worker and the reconciler share.

Sending goes by the task's name, so a process that sends a sweep's jobs never
imports the worker's tasks; and inside `workers/` the imports run one way.
"""

import ast
import inspect
import json
import subprocess
import sys
import time
from pathlib import Path

import redis

from workers.messages import QUEUE, TASK, carried_job_ids, malformed, message
from workers.recovery import UNACKED, UNACKED_INDEX, broker_job_ids, eviction_warning
from workers.settings import configure
from workers.tasks import run_jobs

BROKER_DB = 5
ROOT = Path(__file__).resolve().parents[2]
# Each module imports only the ones before it: the contract first, the worker's tasks last.
ORDER = ["messages", "celery_app", "dispatch", "recovery", "tasks"]

SEND_A_SWEEP = """
import json, sys
from workers import dispatch
from workers.settings import configure
from workers.store import open_database

configure(broker_url=sys.argv[1])
sent = dispatch.send(open_database(sys.argv[2]), [1, 2, 3], 2, sweep="beam-k")
print(json.dumps({"sent": sent, "tasks imported": "workers.tasks" in sys.modules}))
"""


def test_sending_a_batch_leaves_the_workers_tasks_unimported(redis_server, tmp_path):
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        done = subprocess.run([sys.executable, "-c", SEND_A_SWEEP, url, f"sqlite:///{tmp_path / 'sent.db'}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"sent": 2, "tasks imported": False}
        assert client.llen(QUEUE) == 2 and broker_job_ids(url) == {1, 2, 3}  # read back as the reconciler reads
    finally:
        client.flushdb()
        client.close()


def test_a_message_as_made_fits_the_task_and_passes_its_check():
    for take_over, carried in ((None, None), ({13: 2, 99: 1}, [[13, 2]])):  # a lease for each of its jobs held
        made = message([12, 13, 14], "beam-k", take_over=take_over)
        bound = inspect.signature(run_jobs.run).bind(*made["args"], **made["kwargs"])
        bound.apply_defaults()
        assert made["name"] == run_jobs.name and bound.arguments["take_over"] == carried
        assert malformed(**bound.arguments) is None


def test_only_the_task_s_messages_carry_jobs():
    body = json.dumps([[[4, 5]], {"sweep": None}, {}])
    assert carried_job_ids({"headers": {"task": "slidelab.run_jobs"}, "body": body}) == [4, 5]
    assert carried_job_ids({"headers": {"task": "celery.ping"}, "body": body}) == []


def imported_workers_modules(name: str) -> set[str]:
    """The `workers.*` modules a module of `workers/` imports, at its top or inside a function."""
    tree = ast.parse((ROOT / "workers" / f"{name}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {module.split(".")[1] for module in found if module.startswith("workers.")}


def test_the_contract_comes_first_and_the_tasks_last_inside_workers():
    for position, name in enumerate(ORDER):
        later = set(ORDER[position:])
        assert not imported_workers_modules(name) & later, f"workers.{name} imports a module after it in {ORDER}"
    assert imported_workers_modules("messages") == set()


def test_a_broker_that_may_evict_jobs_is_warned_of_and_one_that_may_not_is_not(redis_server):
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    try:
        assert eviction_warning(url) is None  # the tests' Redis, as docker-compose.yml's: noeviction
        client.config_set("maxmemory-policy", "allkeys-lru")
        assert "maxmemory-policy allkeys-lru: it may evict queued jobs" in (eviction_warning(url) or "")
    finally:
        client.config_set("maxmemory-policy", "noeviction")
        client.close()
    assert eviction_warning("redis://127.0.0.1:1/0") is None  # none answers: the heartbeat says so, not this


def test_a_delivered_message_carries_its_jobs_for_one_look_after_its_delivery_only(redis_server):
    """A message a worker took just before Redis died comes back from the append-only file as delivered and held by
    no one; past `reconcile_seconds` it no longer carries its jobs, so the reconciler sends them again."""
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    configure(broker_url=url, reconcile_seconds=30.0)
    try:
        for tag, job_ids, delivered_at in (("fresh", [1, 2], time.time()), ("orphan", [3], time.time() - 31)):
            envelope = {"headers": {"task": TASK}, "body": json.dumps([[job_ids], {}, {}]), "properties": {}}
            client.hset(UNACKED, tag, json.dumps([envelope, QUEUE, QUEUE]))
            client.zadd(UNACKED_INDEX, {tag: delivered_at})
        assert broker_job_ids(url) == {1, 2}
    finally:
        client.flushdb()
        client.close()
