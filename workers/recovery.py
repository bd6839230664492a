"""Getting lost work back: jobs whose lease lapsed, and queued jobs the broker no longer carries.

`Recovery` re-queues the running jobs whose worker stopped renewing their
lease; every worker runs it on its heartbeat, and so do `status --watch` and
`--wait` while they follow a sweep. It acts only once the database has answered
it for a beat and a half, so that after an outage every live worker has renewed
its leases before anyone judges them lapsed. `Reconciler` compares the jobs the
database says are queued with the job ids of the broker's messages (waiting or
delivered and unacknowledged); a job missing from two looks in a row (Redis
restarted without its data, a sender that died) is sent again.
"""

import json
import logging
import time
from collections.abc import Callable
from functools import partial

from workers import dispatch
from workers.heartbeat import Heartbeat
from workers.messages import PLUGIN_QUEUES, QUEUE, carried_job_ids
from workers.settings import settings
from workers.store import Database
from workers.store.database import DatabaseError, ping
from workers.store.jobs import queued_ids, requeue_lapsed
from workers.store.states import JobState

log = logging.getLogger(__name__)
PRIORITY_SEP = "\x06\x16"  # kombu's Redis transport: queue NAME, priority p in NAME + sep + p
UNACKED = "unacked"  # kombu's hash of delivered, unacknowledged messages
UNACKED_INDEX = "unacked_index"  # kombu's sorted set of their delivery tags, scored by when they were delivered


def watch(beat: Heartbeat) -> None:
    """Give a worker's heartbeat the duties every worker shares: lapsed leases, then the broker's reconciliation."""
    send = partial(dispatch.send, beat.db)
    beat.add_duty(Recovery(beat.db, send))
    beat.add_duty(Reconciler(beat.db, send))


class Recovery:
    """Re-queues (or, without a broker, makes pending) the jobs whose lease lapsed, at most every `heartbeat_seconds`."""

    def __init__(self, db: Database, send: Callable[[list[int]], object] | None) -> None:
        self.db, self.send = db, send
        self._reachable_since: float | None = None
        self._outage = False  # the database did not answer the last look: said once
        self._next = 0.0

    def __call__(self) -> None:
        """Look once, if it is time; a database that does not answer only postpones the look."""
        now, pace = time.monotonic(), settings().heartbeat_seconds
        if now < self._next:
            return
        self._next = now + pace
        settled = self._reachable_since is not None and now - self._reachable_since >= 1.5 * pace
        try:
            if settled:
                self._requeue()
            else:
                ping(self.db)
        except DatabaseError as err:
            if not self._outage:  # said once an outage (the heartbeat says when it ends)
                log.warning("lapsed leases not looked for while the database does not answer: %s",
                            str(err).splitlines()[0])
            self._reachable_since, self._outage = None, True
            return
        self._reachable_since, self._outage = self._reachable_since or now, False

    def _requeue(self) -> None:
        state = JobState.QUEUED if self.send else JobState.PENDING
        again, poisoned = requeue_lapsed(self.db, state, settings().max_attempts)
        if poisoned:
            log.warning("jobs %s: their worker was lost %d times; stored as errors", poisoned, settings().max_attempts)
        if again:
            log.warning("jobs %s: their worker's lease lapsed; %s again", again, state)
            if self.send:
                self.send(again)


class Reconciler:
    """Sends again, every `reconcile_seconds`, the queued jobs no message on the broker names twice in a row."""

    def __init__(self, db: Database, send: Callable[[list[int]], object]) -> None:
        self.db, self.send = db, send
        self._suspects: set[int] = set()
        self._next = time.monotonic() + settings().reconcile_seconds

    def __call__(self) -> None:
        """Look once, if it is time; a service that does not answer only postpones the look."""
        now, url = time.monotonic(), settings().broker_url
        if now < self._next or url is None:  # without a broker (a local pool), nothing to reconcile with
            return
        self._next = now + settings().reconcile_seconds
        try:
            missing = queued_ids(self.db) - broker_job_ids(url)
        except Exception as err:  # noqa: BLE001 - the database's or the broker's failure: look again later
            log.warning("broker not reconciled: %s", str(err).splitlines()[0] if str(err) else type(err).__name__)
            return
        again, self._suspects = sorted(missing & self._suspects), missing - self._suspects
        if again:
            log.warning("jobs %s: queued in the database, but no message carries them; sent again", again)
            self.send(again)


BROKER_LOOK_S = 5.0  # a Redis that does not answer the worker's look at its settings within this is left unread


def eviction_warning(url: str) -> str | None:
    """A warning if the Redis at `url` may evict keys (maxmemory-policy other than noeviction): under memory pressure
    it would drop queued messages, sent again from the database only a minute later. None if it may not, or if
    it does not say (a managed Redis that refuses CONFIG, or none answers)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=BROKER_LOOK_S, socket_connect_timeout=BROKER_LOOK_S)
    try:
        policy = client.config_get("maxmemory-policy").get("maxmemory-policy")
    except redis.exceptions.RedisError:  # the heartbeat, started next, says if the broker cannot be reached
        return None
    finally:
        client.close()
    if policy in (None, "noeviction"):
        return None
    return (f"the broker's Redis has maxmemory-policy {policy}: it may evict queued jobs under memory pressure"
            " (they are sent again from the database a minute later); set maxmemory-policy noeviction")


def broker_job_ids(url: str) -> set[int]:
    """The job ids in the broker's messages of jobs (`workers.messages`), waiting on any of its queues (slidelab's
    own and those of plugins), or delivered within the last `reconcile_seconds` and not acknowledged.

    A worker claims a delivered message's jobs at once, so a queued job whose
    message was delivered longer ago is on an orphan: one a worker took just
    before Redis died and came back from its append-only file, that no worker
    holds now (kombu would deliver it again only after `redelivery_seconds`).
    """
    import redis

    client = redis.Redis.from_url(url)
    try:
        plugin_queues = [name.decode() for name in client.scan_iter(match=f"{PLUGIN_QUEUES}*", count=1000)]
        queues = [*plugin_queues, QUEUE, *(f"{QUEUE}{PRIORITY_SEP}{p}" for p in (3, 6, 9))]
        waiting = [payload for name in queues for payload in client.lrange(name, 0, -1)]
        since = time.time() - settings().reconcile_seconds
        recent = set(client.zrangebyscore(UNACKED_INDEX, since, "+inf"))
        delivered = [json.loads(entry)[0] for tag, entry in client.hgetall(UNACKED).items() if tag in recent]
    finally:
        client.close()
    return {job_id for message in [*map(json.loads, waiting), *delivered] for job_id in carried_job_ids(message)}
