"""Every core of a machine: `spades serve --workers N` runs N server processes on
internal ports of 127.0.0.1 and HAProxy in front of them on the public address.

HAProxy sends each request to the process its path hashes to (`balance uri path-only`,
`hash-type consistent`), so that every socket of a table (`/ws/tables/<id>`) lands on one
process and its moves never cross Redis. When a process dies its tables hash to the
others (a consistent hash moves only the dead process's share) and their players
reconnect there, resyncing by version as after any drop. Redis carries what still lands
elsewhere: HTTP writes (a seat taken, a rematch) and sockets sent elsewhere by a re-hash.

The health check reads `/healthz`, not `/readyz`: a Redis outage makes every process
unready at once, and sending nobody anywhere would stop tables that can keep playing.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url

from server.settings import Settings

# How often HAProxy asks each process whether it is alive, and after how many failures
# in a row it sends that process's tables elsewhere (a crash is seen within about 2 s).
CHECK_INTER_MS = 1000
CHECK_FALL = 2
# Seconds a stopping worker has to close its sockets (1012) before it is killed.
STOP_SECONDS = 20.0
# Seconds to wait for every worker's /healthz and HAProxy's port at start-up.
START_SECONDS = 120.0
# A process found dead: its connections are closed at once, so its players reconnect.
ON_DOWN = "on-marked-down shutdown-sessions"
DOCS = "docs/operations.md, Every core of a machine"


class Refused(Exception):
    """`spades serve --workers N` cannot run here: the message says why and what to do."""


@dataclass(frozen=True)
class Backend:
    """One server process behind the proxy."""

    name: str
    host: str
    port: int


def haproxy_config(host: str, port: int, backends: Sequence[Backend]) -> str:
    """The HAProxy configuration: the public address in front of `backends`, a table's
    path hashed to one of them, each checked on /healthz. The client's address goes to
    the processes in X-Forwarded-For (they believe it from 127.0.0.1 only)."""
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    servers = "\n".join(
        f"    server {backend.name} {backend.host}:{backend.port}" for backend in backends
    )
    return f"""\
global
    log stderr format short local0 warning
    # No maxconn: HAProxy takes what the file descriptor limit allows.

defaults
    mode http
    log global
    option dontlognull
    option forwardfor
    # A request that could not reach its process is sent to another one.
    option redispatch
    retries 2
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # A WebSocket lives as long as the table: no idle limit beyond the protocol's pings.
    timeout tunnel 24h
    timeout client-fin 5s

frontend spades
    bind {bind}
    default_backend tables

backend tables
    # Every socket of a table (/ws/tables/<id>) on one process; a consistent hash moves
    # only a dead process's tables when it goes.
    balance uri path-only
    hash-type consistent
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter {CHECK_INTER_MS} fall {CHECK_FALL} rise 2 {ON_DOWN}
{servers}
"""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def check(settings: Settings, workers: int, haproxy: str | None) -> None:
    """Refuse, saying why, what `--workers` cannot run without: Redis (the processes tell
    each other of changes through it), a shared database (PostgreSQL: one SQLite file is
    not written by several processes), and HAProxy."""
    if not settings.redis_url:
        raise Refused(
            f"--workers {workers} needs REDIS_URL: the server processes tell each other of "
            f"their changes through Redis (see {DOCS})."
        )
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        raise Refused(
            f"--workers {workers} needs a PostgreSQL DATABASE_URL shared by every process, "
            f"not a SQLite file (see {DOCS})."
        )
    if haproxy is None:
        raise Refused(
            f"--workers {workers} needs HAProxy in front of the processes, and `haproxy` is "
            f"not installed (Debian and Ubuntu: apt-get install haproxy; see {DOCS})."
        )


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _listening(host: str, port: int) -> bool:
    address = "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host
    try:
        with socket.create_connection((address, port), timeout=1):
            return True
    except OSError:
        return False


@dataclass
class Workers:
    """The server processes and the proxy, started, watched and stopped together. A worker
    that dies is started again on its port (HAProxy sends its tables back once it answers);
    the proxy dying stops everything."""

    host: str
    port: int
    count: int
    haproxy: str
    directory: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="spades-")))
    backends: list[Backend] = field(default_factory=list)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    proxy: subprocess.Popen[bytes] | None = None
    stopping: bool = False

    def worker_env(self) -> dict[str, str]:
        env = dict(os.environ)
        # Migrated once before the workers start; the client's address comes from HAProxy.
        env["SPADES_MIGRATE_ON_START"] = "false"
        env.setdefault("FORWARDED_ALLOW_IPS", "127.0.0.1")
        return env

    def start_worker(self, backend: Backend) -> None:
        command = [sys.executable, "-m", "server.cli", "serve", "--worker"]
        command += ["--host", backend.host, "--port", str(backend.port)]
        self.processes[backend.name] = subprocess.Popen(command, env=self.worker_env())

    def start(self) -> None:
        """Every worker, then HAProxy; back once all answer."""
        self.backends = [
            Backend(f"spades{index + 1}", "127.0.0.1", free_port()) for index in range(self.count)
        ]
        for backend in self.backends:
            self.start_worker(backend)
        config = self.directory / "haproxy.cfg"
        config.write_text(haproxy_config(self.host, self.port, self.backends))
        deadline = time.monotonic() + START_SECONDS
        waiting = list(self.backends)
        while waiting:
            self.restart_dead()
            waiting = [backend for backend in waiting if not _healthy(backend.port)]
            if time.monotonic() > deadline:
                raise Refused(f"{len(waiting)} server processes did not start; see the log")
            time.sleep(0.1)
        self.proxy = subprocess.Popen([self.haproxy, "-db", "-f", str(config)])
        while not _listening(self.host, self.port):
            if self.proxy.poll() is not None:
                raise Refused(f"haproxy exited with {self.proxy.returncode}; see the log")
            if time.monotonic() > deadline:
                raise Refused(f"haproxy is not listening on port {self.port}")
            time.sleep(0.05)

    def restart_dead(self) -> None:
        for backend in self.backends:
            process = self.processes.get(backend.name)
            if process is not None and process.poll() is not None and not self.stopping:
                print(
                    f"spades serve: worker {backend.name} exited with {process.returncode}; "
                    "starting it again",
                    file=sys.stderr,
                    flush=True,
                )
                self.start_worker(backend)

    def watch(self) -> int:
        """Until asked to stop (SIGTERM, SIGINT) or the proxy dies; then stop everything."""

        def stop(_signal: int, _frame: object) -> None:
            self.stopping = True

        for stop_signal in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop_signal, stop)
        code = 0
        while not self.stopping:
            if self.proxy is not None and self.proxy.poll() is not None:
                print("spades serve: haproxy exited; stopping", file=sys.stderr, flush=True)
                code = 1
                break
            self.restart_dead()
            time.sleep(0.2)
        self.stop()
        return code

    def stop(self) -> None:
        """SIGTERM to every worker (its sockets are closed with 1012) and to HAProxy."""
        self.stopping = True
        running = [p for p in [*self.processes.values(), self.proxy] if p is not None]
        for process in running:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in running:
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
