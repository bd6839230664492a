"""A child process that runs jobs under a memory cap and a hard deadline.

Each execution thread (a local pool slot, a Celery worker thread) owns one
`JobRunner`. The child lives across jobs, so the compiled kernels load once;
each job runs under RLIMIT_AS set to the child's address space, its kernels
loaded, plus the job's memory limit. A child that outlives a job's deadline is
killed (the job's result: a time limit), one that dies is replaced (the job is
`Lost`, or out of memory under a memory cap); either way the next job gets a
fresh child. Children are forked from a fork server, started once per process
with the job function, numba and its compiler loaded (`workers.fork_server`):
a child starts in about 0.1 CPU-s, not the 1.2 of a new interpreter. A child
dies with the fork server, and the server with the thread that started it
(PR_SET_PDEATHSIG): a local pool's main thread, a Celery worker's pool thread,
each as long-lived as its process. So a worker killed with SIGKILL leaves no
search running.
"""

import ctypes
import multiprocessing
import os
import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from workers import provenance
from workers.jobs import run_job, stamped
from workers.settings import Settings, configure, settings
from workers.store.records import JobInput, JobResult

_FORK_SERVER = multiprocessing.get_context("forkserver")
_FORK_SERVER.set_forkserver_preload(["__main__", "workers.fork_server"])  # the main module too: not again per child
COMPILE_ALLOWANCE_S = 600.0  # the first job of an algorithm in a child may compile its kernels
_PR_SET_PDEATHSIG = 1
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Lost:
    """A job whose process died under it without a result, not under a memory cap: it may run again elsewhere."""

    cause: str  # e.g. "the job process died (exit code -9)"


def hard_deadline(time_limit: float) -> float:
    """Seconds after which a job with this time limit is killed: the search stops itself well before."""
    return time_limit * 1.25 + 5.0


class JobRunner:
    """Runs batches of jobs in one child process, replacing it when it dies or overruns."""

    def __init__(self) -> None:
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._warm: set[tuple[str, str]] = set()
        self._stopping = False
        self._for_good = False
        self._verdict: JobResult | None = None

    def run(self, jobs: list[JobInput]) -> Iterator[tuple[JobInput, JobResult | Lost]]:
        """Each job with its result (or `Lost`, its process having died under it), in order, as soon as it is done."""
        pending = list(jobs)
        try:
            while pending and not self._stopping:
                conn = self._started()
                conn.send(pending)
                for job in list(pending):
                    result = self._receive(conn, job)
                    if self._stopping:
                        return  # stopped from outside: this job has no result and stays unfinished
                    pending.pop(0)
                    lost = self._process is None
                    if not lost:
                        self._warm.add((job.domain, job.algorithm))
                    yield job, result
                    if lost:
                        break  # the rest of the batch goes to a new child
        finally:
            if pending:
                self.close()  # abandoned mid-batch: the child's late results must not reach the next batch

    def start(self) -> None:
        """Start the child process now rather than with the first batch, so that its start-up overlaps other work."""
        self._started()

    @property
    def stopping(self) -> bool:
        """True once `stop` was called."""
        return self._stopping

    @property
    def verdict(self) -> JobResult | None:
        """The result `stop` was given for the jobs the runner held (None: they are handed back)."""
        return self._verdict

    def stop(self, verdict: JobResult | None = None, *, batch_only: bool = False) -> None:
        """Kill the child from another thread (Ctrl-C); `run` ends without a result for the job it held.

        `verdict`: the result the jobs it held are to be stored with (their
        answer is no longer wanted), rather than handed back to run again.
        `batch_only`: only the batch under way is stopped (its jobs were
        cancelled); `rearm` readies the runner for the next one.
        """
        self._verdict = verdict
        self._for_good = self._for_good or not batch_only
        self._stopping = True
        process = self._process
        if process is not None:
            process.kill()

    def rearm(self) -> None:
        """Ready for the next batch after `stop(batch_only=True)`; a runner stopped otherwise stays stopped."""
        if not self._for_good:
            self._stopping, self._verdict = False, None

    def close(self) -> None:
        """Stop the child process, if any."""
        if self._process is not None:
            self._process.kill()
            self._process.join()
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = None
        self._warm.clear()

    def _started(self) -> Connection:
        if self._process is not None and not self._process.is_alive():
            self.close()  # died between batches (killed from outside)
        if self._process is None or self._conn is None:
            parent_conn, child_conn = multiprocessing.Pipe()
            process = _FORK_SERVER.Process(
                target=_serve, args=(child_conn, os.getpid(), settings()), name="slidelab-job", daemon=True
            )
            try:
                process.start()
            except BaseException:
                parent_conn.close()  # nothing started: the next batch tries afresh
                raise
            finally:
                child_conn.close()
            self._process, self._conn = process, parent_conn
        return self._conn

    def _receive(self, conn: Connection, job: JobInput) -> JobResult | Lost:
        deadline = None
        if job.time_limit is not None:
            deadline = hard_deadline(job.time_limit)
            if (job.domain, job.algorithm) not in self._warm:
                deadline += COMPILE_ALLOWANCE_S
        try:
            if conn.poll(deadline):
                return conn.recv()
        except (EOFError, OSError):
            return self._lost(job)
        assert deadline is not None  # without one, poll waits for the answer however long it takes
        self.close()
        return stamped(JobResult.limit(f"time limit (killed after {deadline:.0f} s)", elapsed_s=deadline), job)

    def _lost(self, job: JobInput) -> JobResult | Lost:
        if self._process is not None:
            self._process.join(1.0)  # its pipe closed as it died: reaped in a moment
        exitcode = self._process.exitcode if self._process else None
        self.close()
        if job.memory_limit is None:
            return Lost(f"the job process died (exit code {exitcode})")
        return stamped(JobResult.limit(f"out of memory (the job process died under its memory cap, exit {exitcode})"), job)


def warm_up_jobs(jobs: list[JobInput]) -> list[JobInput]:
    """What compiles the kernels `jobs` need, to run before a pool fans out: one job of each kind (domain, algorithm,
    heuristic) with no nodes to expand, which only compiles or loads its kernels.

    Each run in one of the pool's processes, side by side: the processes then
    load from numba's cache what the others compiled, rather than each
    compiling the same kernels at once.
    """
    kinds = {(job.domain, job.algorithm, job.params.get("heuristic")): job for job in jobs}
    return [replace(job, max_nodes=0, time_limit=None) for job in kinds.values()]


def _serve(conn: Connection, parent_pid: int, parent_settings: Settings) -> None:
    """The child: configured as its parent is, run each batch it is sent, sending back each job's result."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # and so is a closed terminal (the parent hands the jobs back)
    configure(parent_settings)
    provenance.process()  # the code's identity and this process's speed, measured before any job runs
    while True:
        try:
            jobs = conn.recv()
        except EOFError:
            return
        for job in jobs:
            conn.send(_capped(job))


def _capped(job: JobInput) -> JobResult:
    """`job` run under its memory cap, which bounds what its search adds: its compiled kernels and tables are loaded
    before, outside the cap, by the job with no node to expand (loading the compiler alone maps about 100 MB)."""
    if job.memory_limit is not None:
        run_job(replace(job, max_nodes=0, time_limit=None, memory_limit=None))
    with memory_cap(job.memory_limit):
        return run_job(job)


@contextmanager
def memory_cap(limit: int | None) -> Iterator[None]:
    """This process's address space capped (RLIMIT_AS) at what it maps now plus `limit` bytes, restored after.

    Nothing is capped when `limit` is None.
    """
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _address_space_bytes() + limit
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * _PAGE_BYTES


def die_with_parent(parent_pid: int) -> None:
    """This process killed (SIGKILL) when the thread that started it ends; ended now if `parent_pid` already has."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: the child stops when its pipe closes
    try:
        os.kill(parent_pid, 0)
    except ProcessLookupError:
        os._exit(0)
