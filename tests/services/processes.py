"""What the throwaway servers share: their process, started on a free port and waited for, and ended for sure."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

TIMEOUT_ENV = "SLIDELAB_TEST_SERVICE_TIMEOUT"
HOST = "127.0.0.1"
PORT_ATTEMPTS = 5  # a free port can be taken by someone else before the server binds it: pick another


class ServiceError(RuntimeError):
    """A throwaway server could not be started or stopped."""


def startup_timeout() -> float:
    """Seconds a server may take to accept connections: ``$SLIDELAB_TEST_SERVICE_TIMEOUT``, else 30."""
    return float(os.environ.get(TIMEOUT_ENV, "30"))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


if sys.platform.startswith("linux"):
    _LIBC = ctypes.CDLL(None, use_errno=True)
    _PR_SET_PDEATHSIG = 1

    def exit_with_parent(sig: int):
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

    def exit_with_parent(sig: int):
        """None: no safety net but the fixtures' teardown on this platform."""
        return None


def log_tail(path: Path, lines: int = 30) -> str:
    """The last `lines` lines of a server's log, or why there are none."""
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        return f"(no log: {err})"
    return "\n".join(text.splitlines()[-lines:])


def wait_until(ready: Callable[[], bool], proc: subprocess.Popen, what: str, log: Path, timeout: float) -> None:
    """Poll `ready()` until it is true; fail early if the server process exits."""
    deadline = time.monotonic() + timeout
    last_error: object = None
    delay = 0.01
    while True:
        if proc.poll() is not None:
            raise ServiceError(
                f"{what} exited with code {proc.returncode} before accepting connections.\n"
                f"Last lines of {log}:\n{log_tail(log)}"
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
                f"Last lines of {log}:\n{log_tail(log)}"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def end_process(proc: subprocess.Popen | None, sig: int, timeout: float = 15) -> None:
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


class ServerProcess:
    """A server process of our own on a port of 127.0.0.1, its output in `log`.

    A subclass sets `log` and `port` (None: a free one is chosen at the first
    start) and says when the server is ready (`_ready`).
    """

    proc: subprocess.Popen | None = None
    port: int | None = None
    log: Path

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs, else None."""
        return self.proc.pid if self.is_running() else None

    def is_running(self) -> bool:
        """True while the server process lives."""
        return self.proc is not None and self.proc.poll() is None

    def _ready(self) -> bool:
        raise NotImplementedError

    def launch(self, command: Callable[[], list[str]], what: str, parent_death_signal: int,
               timeout: float | None = None, **popen) -> None:
        """Run `command()` on `self.port` (a free port, chosen once, if there is none yet) until `_ready()`.

        ServiceError with the log's last lines if it exits or does not get
        ready in time; the server then is killed. `parent_death_signal` is what
        it gets should this process die; `popen`, more arguments of Popen.
        """
        pick_port = self.port is None
        for attempt in range(PORT_ATTEMPTS):
            if pick_port:
                self.port = free_port()
            with open(self.log, "ab") as log:
                log.write(f"--- slidelab: starting on port {self.port}\n".encode())
                log.flush()
                self.proc = subprocess.Popen(
                    command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=exit_with_parent(parent_death_signal),  # noqa: PLW1509
                    **popen,
                )
            try:
                wait_until(self._ready, self.proc, f"{what} on port {self.port}", self.log,
                           timeout or startup_timeout())
                return
            except ServiceError:
                if (pick_port and attempt < PORT_ATTEMPTS - 1 and self.proc.poll() is not None
                        and "address already in use" in log_tail(self.log, 50).lower()):
                    continue  # someone took the port between free_port() and bind()
                end_process(self.proc, signal.SIGKILL)
                raise
