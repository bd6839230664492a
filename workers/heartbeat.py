"""A worker's heartbeat: one thread per process and host that renews the leases of every job held there.

Each beat renews the leases held with one UPDATE (`workers.store.jobs.renew`),
records itself (`workers.store.activity.record_beat`: the dashboard's
online/offline, and the database's ping) while the process is a worker (it has
duties: then with the plugins installed here, whose jobs it takes) or holds
jobs (the local pool), touches the settings' `health_file`
if there is one (a container's healthcheck reads its age), stops the
executions whose jobs were cancelled (`orchestrate cancel`: their leases are
no longer renewed, and the job's state says why), then runs the process's
periodic duties (`Heartbeat.add_duty`: a Celery worker re-queues lapsed
leases and reconciles the broker with the database). A beat
that cannot reach the database is tried again within two seconds; a job whose
lease was taken over while the link was down is only logged: its result still
counts if it comes first.
"""

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from puzzles.plugins import installed_keys
from workers.settings import settings
from workers.store import Database
from workers.store.activity import record_beat
from workers.store.database import DatabaseError, ping
from workers.store.jobs import cancelled_among, renew

log = logging.getLogger(__name__)
RETRY_S = 2.0  # the pause after a beat that failed
_beats: dict[tuple[str, str], "Heartbeat"] = {}
_made = threading.Lock()


def heartbeat(db: Database, host: str) -> "Heartbeat":
    """This process's heartbeat for the jobs `host` holds in `db`, started on first use."""
    with _made:
        key = (db.url, host)
        if key not in _beats:
            _beats[key] = Heartbeat(db, host)
            _beats[key].start()
        return _beats[key]


class Heartbeat:
    """Renews the leases of the jobs held here every `heartbeat_seconds`, then runs the duties."""

    def __init__(self, db: Database, host: str) -> None:
        self.db, self.host = db, host
        self._held: Counter[int] = Counter()  # a job id per execution holding it (a job may come back to this host)
        self._reported: set[int] = set()  # held jobs known to have been taken over
        self._stops: dict[object, tuple[set[int], Callable[[], None]]] = {}  # per execution: its jobs, how to stop it
        self._lock = threading.Lock()
        self._duties: list[Callable[[], None]] = []
        self._stopped = threading.Event()
        self._unreachable_since: float | None = None  # when the database stopped answering, during an outage
        self._installed: tuple[str, ...] | None = None  # the plugins' keys, advertised by a worker's beats
        self._thread = threading.Thread(target=self._run, name=f"slidelab-heartbeat {host}", daemon=True)

    def start(self) -> None:
        """Start the beating thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop beating (the thread ends after the beat under way)."""
        self._stopped.set()

    def add_duty(self, duty: Callable[[], None]) -> None:
        """Call `duty()` after every beat (it keeps its own pace; what it raises is logged)."""
        self._duties.append(duty)

    @contextmanager
    def holding(self, job_ids: Iterable[int], on_cancel: Callable[[], None] | None = None) -> Iterator[None]:
        """Renew the leases of `job_ids` while inside; call `on_cancel()` (once) if one of them is cancelled meanwhile."""
        ids, token = set(job_ids), object()
        with self._lock:
            self._held.update(ids)
            if on_cancel is not None:
                self._stops[token] = (ids, on_cancel)
        try:
            yield
        finally:
            with self._lock:
                self._stops.pop(token, None)
                self._held.subtract(ids)
                self._held = +self._held
                self._reported &= set(self._held)

    def beat(self) -> bool:
        """Renew every lease held here, then run the duties; False if the database could not be reached."""
        with self._lock:
            held = sorted(self._held)  # the ids held at least once
        try:
            self._renew(held)
            reached = True
        except DatabaseError as err:
            if self._unreachable_since is None:  # one line an outage, whatever its length
                self._unreachable_since = time.monotonic()
                log.warning("heartbeat: the database does not answer (%d leases not renewed); retrying every %g s: %s",
                            len(held), RETRY_S, str(err).splitlines()[0])
            reached = False
        else:
            if self._unreachable_since is not None:
                log.warning("heartbeat: the database answers again, after %.0f s", time.monotonic() - self._unreachable_since)
                self._unreachable_since = None
        for duty in self._duties:
            try:
                duty()
            except Exception:
                log.exception("heartbeat: %s failed", getattr(duty, "__qualname__", type(duty).__name__))
        return reached

    def _renew(self, held: list[int]) -> None:
        """Renew the leases held, record the beat (the leases first: they matter most); touch the health file."""
        health = settings().health_file
        if held:
            lost = set(held) - renew(self.db, held, self.host, settings().lease_seconds)
            self._report_taken(lost - self._stop_cancelled(lost))
        if held or self._duties:  # a worker is alive while idle; a finished local run is no worker
            record_beat(self.db, self.host, settings().lease_seconds, self._plugins() if self._duties else None)
        elif health:
            ping(self.db)
        if health:
            health.touch()

    def _plugins(self) -> tuple[str, ...]:
        """The keys of the plugins installed here (`puzzles.plugins.installed_keys`), read once."""
        if self._installed is None:
            self._installed = installed_keys()
        return self._installed

    def _stop_cancelled(self, gone: set[int]) -> set[int]:
        """Stop each execution holding one of the jobs among `gone` (no longer renewed) that were cancelled; those."""
        with self._lock:
            watched = set().union(*(ids for ids, _ in self._stops.values())) & gone
        cancelled = cancelled_among(self.db, sorted(watched)) if watched else set()
        if cancelled:
            log.info("jobs %s: cancelled; their job processes are stopped", sorted(cancelled))
        with self._lock:  # under the lock: an execution that has ended is never stopped
            for token, (ids, stop) in list(self._stops.items()):
                if ids & cancelled:
                    del self._stops[token]
                    stop()
        return cancelled

    def _report_taken(self, taken: set[int]) -> None:
        with self._lock:
            taken = (taken & set(self._held)) - self._reported  # not those stored since, nor those told already
            self._reported |= taken
        if taken:
            log.warning("jobs %s: their lease lapsed and they were re-queued; a result from here still counts if it"
                        " is the first", sorted(taken))

    def _run(self) -> None:
        pause = settings().heartbeat_seconds
        while not self._stopped.wait(pause):
            pause = settings().heartbeat_seconds if self.beat() else min(RETRY_S, settings().heartbeat_seconds)
