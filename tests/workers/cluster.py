"""A small real cluster for end-to-end tests: `orchestrate worker` processes and the CLI as subprocesses.

A `Cluster` owns one test's fresh PostgreSQL database and one Redis database
number, starts `orchestrate worker` processes against them, runs `orchestrate`
commands, and reads the database with plain SQL. Every process it starts runs in
a process group of its own and gets SIGKILL from the kernel should the test
process die (PR_SET_PDEATHSIG); `close()` kills every group, so nothing outlives
the test. Each process writes stdout and stderr to a log file under the test's
temporary directory; `report()` prints their tails (pytest shows it on failure).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import redis
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from tests.polling import wait_for

# Run the CLI in a child that dies with its parent (the test process), whatever kills the parent.
_BOOT = (
    "import ctypes, signal; ctypes.CDLL(None).prctl(1, signal.SIGKILL);"  # 1 = PR_SET_PDEATHSIG
    "from orchestrator.cli import app; app()"
)
CLI = [sys.executable, "-c", _BOOT]
SLOW_START_S = 300.0  # a cold numba cache compiles the kernels on the first job (~45 s per child)
BOARDS_6X6 = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv")
COMPARED = ("outcome", "moves", "steps", "expanded", "generated", "solution")
# 208 jobs: beam (25 widths x 2 heuristics) and astar (2 heuristics) on 4 boards. The 9x9 ones come first
# and take ~20-150 ms each, the 6x6 ones a few ms: a few seconds of work, enough to break things mid-sweep.
MANY_JOBS = 208
MANY_GRID = ("--algo", "beam,astar", "--k", "100..2500:100", "--heuristic", "blockers,blockers-lb", "--chunk", "1")
MANY_BOARDS = ("Rushhour9x9_4.csv", *BOARDS_6X6)


def _tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as err:
        return f"(no log: {err})"


def _children(pid: int) -> list[int]:
    """The pids whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(10)


class Worker:
    """One `orchestrate worker` process in its own process group."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path, cwd: Path):
        self.name = name
        self.hostname = f"{name}@e2e"
        self.log = log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(argv + [f"--hostname={self.hostname}"], env=env, cwd=cwd,
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until Celery logs `<hostname> ready.` (the worker consumes from the queue)."""

        def ready() -> bool:
            if not self.alive():
                raise AssertionError(f"worker {self.hostname} exited with {self.proc.returncode}:\n{_tail(self.log)}")
            return f"{self.hostname} ready." in self.text()

        wait_for(ready, timeout, f"worker {self.hostname} to be ready", on_timeout=lambda: _tail(self.log))

    def job_processes(self) -> list[int]:
        """The pids of this worker's job processes: the children of its fork server (`workers.runner`)."""
        servers = []
        for pid in _children(self.pid):
            with contextlib.suppress(OSError):
                if b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    servers.append(pid)
        return [pid for server in servers for pid in _children(server)]

    def kill_main(self) -> None:
        """kill -9 of the worker process alone (its job processes must die by themselves)."""
        os.kill(self.pid, signal.SIGKILL)
        self.proc.wait(10)

    def kill(self) -> None:
        """kill -9 of the worker's whole process group."""
        _kill_group(self.proc)

    def __repr__(self) -> str:
        return f"Worker({self.hostname}, pid={self.pid}, alive={self.alive()})"


class Cluster:
    """One test's database, Redis database, workers and CLI runs."""

    def __init__(self, workdir: Path, database_url: str, broker_url: str, env: dict[str, str] | None = None,
                 redis_client: redis.Redis | None = None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.database_url = database_url
        self.broker_url = broker_url
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")}
        self.env.update(SLIDELAB_DATABASE_URL=database_url, SLIDELAB_BROKER_URL=broker_url, PYTHONUNBUFFERED="1",
                        COLUMNS="200", NO_COLOR="1", TERM="dumb", **(env or {}))
        self.workers: list[Worker] = []
        self._groups: list[subprocess.Popen] = []  # every process group started, for close()
        self.logs: list[Path] = []
        self.engine = sa.create_engine(database_url, poolclass=NullPool)
        self.redis = redis_client or redis.Redis.from_url(broker_url)
        self.redis.flushdb()

    # ------------------------------------------------------------------ processes

    def worker(self, name: str, concurrency: int = 1, env: dict[str, str] | None = None, prefix: Sequence[str] = (),
               urls: tuple[str, str] | None = None) -> Worker:
        """Start `orchestrate worker --concurrency N --hostname NAME@e2e` (not waiting for it).

        `prefix` runs it elsewhere (`ip netns exec HOST`), where it reaches the services at `urls` (database, broker).
        """
        database_url, broker_url = urls or (self.database_url, self.broker_url)
        argv = [*prefix, *CLI, "worker", f"--concurrency={concurrency}", "--db", database_url, "--broker", broker_url]
        log = self._log(f"worker-{name}")
        worker = Worker(name, argv, {**self.env, **(env or {})}, log, self.workdir)
        self.workers.append(worker)
        self._groups.append(worker.proc)
        return worker

    def workers_ready(self, *names: str, concurrency: int = 1, env: dict[str, str] | None = None,
                      timeout: float = 60.0) -> list[Worker]:
        """Start one worker per name and wait until each consumes."""
        started = [self.worker(name, concurrency, env) for name in names]
        for worker in started:
            worker.wait_ready(timeout)
        return started

    def orchestrate(self, *args: str, timeout: float = 120.0, check: bool = True,
                    env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """Run `orchestrate ARGS` to its end; its output is logged and returned (AssertionError on failure)."""
        log = self._log(f"cli-{args[0]}")
        with open(log, "wb") as out:
            out.write(f"$ orchestrate {' '.join(args)}\n".encode())
            out.flush()
            proc = subprocess.Popen(CLI + list(args), env={**self.env, **(env or {})}, cwd=self.workdir,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=out,
                                    start_new_session=True)
            self._groups.append(proc)
            try:
                stdout, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                raise AssertionError(f"orchestrate {args[0]} ran over {timeout:.0f} s\n{self.report_text()}") from None
            out.write(b"--- stdout\n" + stdout)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout.decode(errors="replace"), _tail(log))
        if check and done.returncode != 0:
            raise AssertionError(f"orchestrate {' '.join(args)} exited {done.returncode}\n{self.report_text()}")
        return done

    def sweep(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
        """`orchestrate sweep ARGS --db ... --broker ...`."""
        return self.orchestrate("sweep", *args, "--db", self.database_url, "--broker", self.broker_url, timeout=timeout)

    def close(self) -> None:
        """Kill every process group started; forget the Redis database; release the engine."""
        for proc in self._groups:
            _kill_group(proc)
        with contextlib.suppress(redis.RedisError):
            self.redis.flushdb()
        self.redis.close()
        self.engine.dispose()

    # ------------------------------------------------------------------ the database

    def sql(self, query: str, **params: Any) -> list[sa.Row]:
        """The rows of one SQL query on the test's database."""
        with self.engine.connect() as conn:
            return list(conn.execute(sa.text(query), params))

    def scalar(self, query: str, **params: Any) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(sa.text(query), params).scalar()

    def counts(self) -> dict[str, int]:
        """jobs, finished (done), results and jobs with more than one result, across every sweep."""
        row = self.sql(
            "SELECT (SELECT count(*) FROM jobs) AS jobs,"
            " (SELECT count(*) FROM jobs WHERE status = 'done') AS finished,"
            " (SELECT count(*) FROM results) AS results,"
            " (SELECT count(*) FROM (SELECT job_id FROM results GROUP BY job_id HAVING count(*) > 1) AS d) AS doubled"
        )[0]
        return dict(row._mapping)

    def tolerant_counts(self) -> dict[str, int] | None:
        """`counts()`, or None while the database is unreachable."""
        try:
            return self.counts()
        except OperationalError:
            return None

    def wait_finished(self, total: int, timeout: float = SLOW_START_S) -> dict[str, int]:
        """Until `total` jobs are finished (polling through database outages); the counts."""

        def finished() -> dict[str, int] | None:
            counts = self.tolerant_counts()
            return counts if counts and counts["finished"] >= total else None

        return wait_for(finished, timeout, f"{total} finished jobs", interval=0.3,
                        on_timeout=lambda: f"counts: {self.tolerant_counts()}\n{self.report_text()}")

    def running_on(self, job_id: int) -> str | None:
        """The host of the worker running the job, or None while it is not running."""
        row = self.sql("SELECT status, worker_host FROM jobs WHERE id = :id", id=job_id)[0]
        return row.worker_host if row.status == "running" else None

    def holder(self, job_id: int, timeout: float = SLOW_START_S) -> tuple[Worker, Worker]:
        """Once the job runs in a job process: (the worker holding it, the other one)."""
        host = wait_for(lambda: self.running_on(job_id), timeout, f"job {job_id} to run", interval=0.1)
        holding = next(worker for worker in self.workers if worker.hostname == host)
        wait_for(holding.job_processes, 30, f"the job process of {host}")
        return holding, next(worker for worker in self.workers if worker is not holding and worker.alive())

    def results(self, sweep: str | None = None) -> dict[tuple, dict[str, Any]]:
        """Every result keyed by (board id, algorithm, params, seed, repeat), with its job's columns."""
        return results_of(self.engine, sweep)

    # ------------------------------------------------------------------ logs

    def _log(self, stem: str) -> Path:
        path = self.workdir / f"{len(self.logs):02d}-{re.sub(r'[^A-Za-z0-9_.-]', '_', stem)}.log"
        self.logs.append(path)
        return path

    def report_text(self, lines: int = 60) -> str:
        return "\n".join(f"===== {path.name} (last {lines} lines)\n{_tail(path, lines)}" for path in self.logs)

    def report(self) -> None:
        """Print the tail of every log (pytest shows it when the test failed)."""
        print(self.report_text())


def results_of(engine: sa.Engine, sweep: str | None = None) -> dict[tuple, dict[str, Any]]:
    """The results in a database keyed by (board id, algorithm, params, seed, repeat), with their job's columns."""
    query = (
        "SELECT j.board_id, j.algorithm, j.params, j.seed, j.repeat, j.status AS state, j.attempts,"
        " j.worker_host, r.outcome, r.moves, r.steps, r.expanded, r.generated, r.solution, r.reason, r.error"
        " FROM jobs j JOIN results r ON r.job_id = j.id JOIN sweeps s ON s.id = j.sweep_id"
    ) + (" WHERE s.name = :sweep" if sweep is not None else "")
    with engine.connect() as conn:
        rows = conn.execute(sa.text(query), {"sweep": sweep}).all()
    return {(r.board_id, r.algorithm, r.params, r.seed, r.repeat): dict(r._mapping) for r in rows}


def sqlite_sweep(workdir: Path, args: Sequence[str], timeout: float = SLOW_START_S) -> str:
    """Run `orchestrate sweep ARGS` locally (no broker) into a new SQLite file; its URL."""
    path = Path(workdir) / "local.db"
    url = f"sqlite:///{path}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")}
    proc = subprocess.Popen(CLI + ["sweep", *args, "--db", url, "--workers", "2"], env=env, cwd=workdir,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise
    assert proc.returncode == 0, output.decode(errors="replace")
    return url


@contextlib.contextmanager
def fresh_cluster(postgres_server, broker: str, tmp_path: Path) -> Iterator[Cluster]:
    """A cluster on a fresh PostgreSQL database with the schema in place and the broker at `broker`; dropped after."""
    name = f"e2e_{uuid.uuid4().hex[:12]}"
    postgres_server.create_database(name)
    url = make_url(postgres_server.url).set(database=name).render_as_string(hide_password=False)
    made = Cluster(tmp_path / "cluster", url, broker)
    try:
        made.orchestrate("db", "upgrade", "--db", url)
        yield made
    finally:
        made.close()
        made.report()  # shown by pytest only when the test failed
        if not postgres_server.is_running():
            postgres_server.start()  # a test that failed while the server was down must not break the next
        admin = sa.create_engine(make_url(url).set(database="postgres"), poolclass=NullPool, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        finally:
            admin.dispose()


def board_paths(boards_dir, names):
    return [str(boards_dir / name) for name in names]


def status_json(cluster, sweep):
    return json.loads(cluster.orchestrate("status", sweep, "--json", "--db", cluster.database_url).stdout)


def assert_one_result_per_job(cluster, total):
    counts = cluster.counts()
    assert counts == {"jobs": total, "finished": total, "results": total, "doubled": 0}, counts
    assert cluster.scalar("SELECT count(*) FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE r.id IS NULL") == 0
