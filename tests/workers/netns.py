"""Hosts for fault tests: Linux network namespaces made by the test, joined to a server namespace by veth pairs.

`Network` makes a namespace `srv` for Redis and PostgreSQL and one per worker
host, each joined to `srv` by a veth pair of its own on a /30 of 10.215.N.0
(addresses that exist only inside these namespaces; no namespace has a route
anywhere else). `cut(host)` takes the server's end of a host's link down, as a
cable cut between them would: the host's packets go nowhere and neither do the
server's (its address is on a bridge that stays up), so connections hang on both
sides and each side's TCP keepalives find the other gone. `restore(host)` brings
it back. The servers also listen on Unix sockets in the
test's temporary directory, which is how the test itself reads them: no traffic
of the test leaves the namespaces. `close()` removes every namespace (its veth
pairs go with it) and kills the servers; namespaces a killed test process left
behind are removed by the next one.

Needs root and `ip`; `unavailable()` says why not, for a skip.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import redis

from tests.services import PostgresServer, redis_executable

PG_PORT, REDIS_PORT = 5432, 6379  # inside `srv`, nobody else's


def unavailable() -> str | None:
    """Why the fault tests cannot run here (None: they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs these tests as root)"
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2)"
    probe = f"sl15probe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None if made.returncode == 0 else f"cannot make a network namespace: {made.stderr.strip()}"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def _exit_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: no server outlives the test process


class Network:
    """A server namespace and worker-host namespaces, each host on a veth pair of its own."""

    def __init__(self, hosts: list[str]) -> None:
        _remove_stale()
        self.tag = f"sl15-{os.getpid()}"
        self.server = f"{self.tag}-srv"
        self.namespaces = [self.server]
        self.links: dict[str, tuple[str, str]] = {}  # host -> (its namespace, the server's end of its link)
        self.addresses: dict[str, tuple[str, str]] = {}  # host -> (its address, the server's address on its link)
        try:
            _ip("netns", "add", self.server)
            _ip("-n", self.server, "link", "set", "lo", "up")
            for index, host in enumerate(hosts, start=1):
                self._add_host(index, host)
        except BaseException:
            self.close()
            raise

    def _add_host(self, index: int, host: str) -> None:
        namespace = f"{self.tag}-{host}"
        here, there = f"sl{os.getpid() % 100000}h{index}", f"sl{os.getpid() % 100000}s{index}"
        _ip("netns", "add", namespace)
        self.namespaces.append(namespace)
        _ip("link", "add", here, "netns", namespace, "type", "veth", "peer", "name", there, "netns", self.server)
        # The server's address sits on a bridge whose one port is the link: with the port down, both ends stay
        # up without a carrier, so each side's packets vanish in silence, as across a cable cut between them.
        bridge = f"{there}b"
        _ip("-n", self.server, "link", "add", bridge, "type", "bridge")
        _ip("-n", self.server, "link", "set", there, "master", bridge)
        mine, servers = f"10.215.{index}.1", f"10.215.{index}.2"
        _ip("-n", namespace, "addr", "add", f"{mine}/30", "dev", here)
        _ip("-n", self.server, "addr", "add", f"{servers}/30", "dev", bridge)
        for name, device in ((namespace, here), (namespace, "lo"), (self.server, there), (self.server, bridge)):
            _ip("-n", name, "link", "set", device, "up")
        self.links[host] = (namespace, there)
        self.addresses[host] = (mine, servers)

    def prefix(self, host: str) -> list[str]:
        """The command prefix that runs a program on `host` (`srv` for the servers' namespace)."""
        return ["ip", "netns", "exec", self.server if host == "srv" else self.links[host][0]]

    def server_address(self, host: str) -> str:
        """The servers' address as `host` reaches them."""
        return self.addresses[host][1]

    def cut(self, host: str) -> None:
        """Cut `host`'s cable: the server's end of its link goes down, the bridge behind it stays up."""
        _ip("-n", self.server, "link", "set", self.links[host][1], "down")

    def restore(self, host: str) -> None:
        """Plug `host`'s cable back in."""
        _ip("-n", self.server, "link", "set", self.links[host][1], "up")

    def close(self) -> None:
        """Remove every namespace made (their veth pairs and processes' links go with them)."""
        for namespace in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        self.namespaces = []


def _remove_stale() -> None:
    """Remove the namespaces a killed test process left behind (named after its pid)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    for name in listed:
        match = re.fullmatch(r"sl15-(\d+)-\w+", name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


class Servers:
    """Redis and PostgreSQL in the server namespace, on its link addresses and on Unix sockets for the test."""

    def __init__(self, network: Network, workdir: Path, redis_password: str = "netns-secret") -> None:
        self.network, self.password = network, redis_password
        self.workdir = Path(workdir)
        self.redis_socket = self.workdir / "redis.sock"
        self.postgres = PostgresServer()  # only its data directory, binaries and account: started below, in `srv`
        self.processes: list[subprocess.Popen] = []

    def start(self) -> None:
        """Start both, and wait until they answer on their Unix sockets."""
        addresses = [self.network.server_address(host) for host in self.network.addresses]
        self._start_redis(addresses)
        self._start_postgres(addresses)

    def _spawn(self, argv: list[str], log: Path, **options) -> subprocess.Popen:
        with open(log, "ab") as out:
            process = subprocess.Popen(self.network.prefix("srv") + argv, stdin=subprocess.DEVNULL, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True,
                                       preexec_fn=_exit_with_parent, **options)  # noqa: PLW1509
        self.processes.append(process)
        return process

    def _start_redis(self, addresses: list[str]) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._spawn([str(redis_executable()), "--port", str(REDIS_PORT), "--bind", *addresses,
                     "--unixsocket", str(self.redis_socket), "--unixsocketperm", "700",
                     "--requirepass", self.password, "--save", "", "--appendonly", "no", "--dir", str(self.workdir)],
                    self.workdir / "redis.log")
        client = redis.Redis(unix_socket_path=str(self.redis_socket), password=self.password)
        _wait(client.ping, "Redis in the server namespace", self.workdir / "redis.log")
        client.close()

    def _start_postgres(self, addresses: list[str]) -> None:
        pg = self.postgres
        pg.initdb()
        with open(pg.datadir / "pg_hba.conf", "a") as hba:
            hba.write("host all all 10.215.0.0/16 trust\n")
        user = pg.os_user
        drop = [] if user is None else ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
        settings = {**pg.settings, "listen_addresses": ",".join(addresses), "unix_socket_directories": str(pg.basedir)}
        command = [str(pg.bin_dir / "postgres"), "-D", str(pg.datadir), "-p", str(PG_PORT)]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        self._spawn(drop + command, pg.log, cwd=pg.basedir, env=pg._env())

        _wait(lambda: self.admin("SELECT 1"), "PostgreSQL in the server namespace", pg.log)

    def admin(self, statement: str) -> bool:
        """Run one statement on the `postgres` database over the Unix socket (CREATE DATABASE, DROP DATABASE)."""
        import psycopg

        with psycopg.connect(host=str(self.postgres.basedir), port=PG_PORT, user="postgres", dbname="postgres",
                             connect_timeout=2, autocommit=True) as conn:
            conn.execute(statement)
        return True

    def database_url(self, name: str, host: str | None = None) -> str:
        """Database `name`'s URL from `host` (over its link), or from the test (None: over the Unix socket)."""
        if host is None:
            return f"postgresql+psycopg://postgres@/{name}?host={self.postgres.basedir}&port={PG_PORT}"
        return f"postgresql+psycopg://postgres@{self.network.server_address(host)}:{PG_PORT}/{name}"

    def broker_url(self, host: str | None = None) -> str:
        """The broker's URL (with its password) from `host` over its link, or from the test (None: the Unix socket)."""
        if host is None:
            return f"redis+socket://:{self.password}@{self.redis_socket}"
        return f"redis://:{self.password}@{self.network.server_address(host)}:{REDIS_PORT}/0"

    def redis_client(self) -> redis.Redis:
        """A client of the broker over its Unix socket, for the test."""
        return redis.Redis(unix_socket_path=str(self.redis_socket), password=self.password)

    def close(self) -> None:
        """Kill both servers; remove PostgreSQL's data."""
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
        shutil.rmtree(self.postgres.basedir, ignore_errors=True)


def _wait(ready, what: str, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if ready():
                return
        except Exception as err:
            if time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
                raise RuntimeError(f"{what} did not start: {err}\n{tail}") from err
        time.sleep(0.2)
