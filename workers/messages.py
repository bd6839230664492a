"""The queue's message contract: the task's name and queues, and how a message of job ids is made, checked and read back.

A message carries a batch of job ids as its one argument and the sweep (and,
for `resume --force`, `take_over`: the [job id, lease] pairs of the leases it
replaces) as keywords. It names what it carries, so
that Celery's own monitor (Flower) and the worker's log read
`slidelab.run_jobs[beam-k]` with `jobs=[12, 13, 14]` and `sweep='beam-k'`
rather than an id. The sender (`workers.dispatch`) sends it by name, the worker
(`workers.tasks`) checks it before touching the database, and the reconciler
(`workers.recovery`) reads its job ids back from the broker. This module
imports none of them, nor Celery.

Jobs of slidelab's own algorithms and heuristics go to one queue, QUEUE. A job
that runs plugins (at most an algorithm's and a heuristic's) goes to the queue
its plugins name (`queue_of`), which only the workers that have every one of
them consume (`queues_for`): a worker never takes a job it cannot run.
"""

import base64
import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping

QUEUE = "slidelab"
PLUGIN_QUEUES = f"{QUEUE}.p."  # a plugins queue's name: this, then 16 hex digits of the plugins' digest
PLUGINS_PER_JOB = 2  # a job runs at most an algorithm plugin and a heuristic plugin
TASK = "slidelab.run_jobs"
SHOWN_IDS = 10  # job ids written out in a message's description; more are counted
MAX_MESSAGE_JOBS = 10_000  # job ids in one message, at most (the orchestrator sends up to 100)


def queue_of(plugins: str | None) -> str:
    """The queue of the jobs that run `plugins` (`jobs.plugins`: their keys, sorted, space separated): QUEUE for
    slidelab's own (None), else `slidelab.p.` and the first 16 hex digits of the text's sha256."""
    if not plugins:
        return QUEUE
    return PLUGIN_QUEUES + hashlib.sha256(plugins.encode()).hexdigest()[:16]


def queues_for(installed: Iterable[str]) -> list[str]:
    """The queues a worker with the `installed` plugin keys consumes: QUEUE, and the queue of every set of one or
    two of them (what a job may run)."""
    keys = sorted(set(installed))
    sets = itertools.chain.from_iterable(itertools.combinations(keys, size) for size in range(1, PLUGINS_PER_JOB + 1))
    return [QUEUE, *(queue_of(" ".join(chosen)) for chosen in sets)]


def message(job_ids: list[int], sweep: str | None, *, take_over: Mapping[int, int] | None = None,
            queue: str = QUEUE) -> dict:
    """The arguments of Celery's `app.send_task` that make the message of a batch of jobs (of `sweep`) on `queue`.

    `take_over` (job id -> lease) names the leases of other workers that the
    batch may take (`resume --force`). Named for Flower and the logs, not
    stored as a result, and its publishing retried three times when the
    broker's connection drops.
    """
    replaced = [[job_id, take_over[job_id]] for job_id in job_ids if job_id in take_over] if take_over else []
    kwargs = {"sweep": sweep} | ({"take_over": replaced} if replaced else {})
    return {
        "name": TASK,
        "queue": queue,
        "args": [job_ids],
        "kwargs": kwargs,
        "shadow": f"{TASK}[{sweep or '-'}]",
        "argsrepr": jobs_text(job_ids),
        "kwargsrepr": ", ".join(f"{key}={value!r}" for key, value in kwargs.items()),
        "ignore_result": True,
        "retry": True,
        "retry_policy": {"max_retries": 3},
    }


def malformed(job_ids: object, take_over: object, sweep: object) -> str | None:
    """What is wrong with a message's arguments (they may come from anyone who reaches the broker); None if nothing."""
    if not isinstance(job_ids, list) or not 0 < len(job_ids) <= MAX_MESSAGE_JOBS:
        return f"job ids must be a list of 1 to {MAX_MESSAGE_JOBS:,} ids, not {type(job_ids).__name__}"
    if not all(type(job_id) is int and 0 < job_id < 2**63 for job_id in job_ids):
        return "job ids must be positive whole numbers below 2^63"
    if not (sweep is None or isinstance(sweep, str)):
        return "sweep must be a name"
    if take_over is None:
        return None
    if not isinstance(take_over, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(type(n) is int and 0 < n < 2**63 for n in pair)
            for pair in take_over):
        return "take_over must be a list of [job id, lease] pairs of positive whole numbers"
    if not {pair[0] for pair in take_over} <= set(job_ids):
        return "take_over names jobs the message does not carry"
    return None


def carried_job_ids(envelope: dict) -> list[int]:
    """The job ids a message of TASK carries, from its envelope as kombu keeps it in Redis; none for another task's."""
    if envelope.get("headers", {}).get("task") != TASK:
        return []
    body = envelope["body"]
    if envelope.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args, _kwargs, _embed = json.loads(body)
    return list(args[0])


def jobs_text(job_ids: list[int]) -> str:
    """`jobs=[12, 13, 14]`, or the first SHOWN_IDS ids and how many more: `jobs=[1, ..., 10, +90 more]`."""
    shown = ", ".join(map(str, job_ids[:SHOWN_IDS]))
    more = f", +{len(job_ids) - SHOWN_IDS} more" if len(job_ids) > SHOWN_IDS else ""
    return f"jobs=[{shown}{more}]"
