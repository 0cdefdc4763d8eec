"""The one way a benchmark or a test starts a server process: `LiveServer`, a uvicorn
subprocess on 127.0.0.1 serving the table server (or the relay, `RELAY_APP`, or another
ASGI app); `Proxy`, HAProxy in front of several of them with the configuration `spades
serve --workers` writes; and `database`, the database it runs on: a given URL, a scratch
PostgreSQL database, or a fresh SQLite file.

    with LiveServer(database_url) as server:
        server.url      # "http://127.0.0.1:PORT"
        server.ws_url   # "ws://127.0.0.1:PORT"
        server.kill()   # SIGKILL, as a crash would
        server.start()  # again, same port and database
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from types import TracebackType

import psutil

ROOT = Path(__file__).resolve().parents[2]
SPADES_APP = "server.app:app"
RELAY_APP = "bench.relay:app"  # the bare relay the load benchmark compares against
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
POSTGRES_AT = "postgresql+asyncpg://postgres@127.0.0.1:5432/"
# py-spy's output by the profile file's suffix (a flame graph otherwise).
PROFILE_FORMATS = {".json": "speedscope", ".txt": "raw"}


def serve_options(deflate: bool = False) -> list[str]:
    """uvicorn's options as `spades serve` (server/cli.py) gives them: an 8 KiB frame
    limit and no per-message deflate (`deflate`: uvicorn's own, on); uvicorn's own lines
    at warnings only."""
    options = ["--ws-max-size", "8192", "--log-level", "warning"]
    return options if deflate else [*options, "--ws-per-message-deflate", "false"]


def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LiveServer:
    """One uvicorn process (`--ws websockets-sansio`, then `options`) serving `app` on
    127.0.0.1; bots at delay 0, HTTP writes and chat at up to 1000/s a client, unless
    `env` says otherwise. `profile`: under `py-spy record`, written there on `stop`.
    `root`: the project it runs from (this checkout unless a test gives a copy)."""

    def __init__(
        self,
        database_url: str | None = None,
        *,
        app: str = SPADES_APP,
        redis_url: str | None = None,
        port: int | None = None,
        env: dict[str, str] | None = None,
        options: Sequence[str] = (),
        profile: Path | None = None,
        root: Path = ROOT,
    ) -> None:
        self.root = root
        self.port = port or free_port()
        self.command = [sys.executable, "-m", "uvicorn", app, "--ws", "websockets-sansio"]
        self.command += [*options, "--host", "127.0.0.1", "--port", str(self.port)]
        if profile is not None:
            kind = PROFILE_FORMATS.get(profile.suffix, "flamegraph")
            record = [py_spy(), "record", "--nonblocking", "--format", kind, "-o", str(profile)]
            self.command = [*record, "--", *self.command]
        self.profile = profile
        self.env = {
            **os.environ,
            "SPADES_BOT_DELAY": "0",
            "SPADES_HTTP_RATE_LIMIT": "1000/second",
            "SPADES_CHAT_RATE_LIMIT": "1000/second",
            "SPADES_LOG_LEVEL": "WARNING",
            **(env or {}),
        }
        if database_url is not None:
            self.env["DATABASE_URL"] = database_url
        self.env.pop("REDIS_URL", None)  # one process alone unless told: no pub/sub
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        self.process: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None  # the server's own (py-spy's child under a profile)
        # A file, not a pipe: a pipe nobody reads would block the server once full.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> LiveServer:
        """Start the process and wait until /healthz answers."""
        self.process = subprocess.Popen(
            self.command, cwd=self.root, env=self.env, stdout=self.log, stderr=self.log
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"server exited with {code}:\n{self.output()}")
            if self._healthy():
                self.pid = self.process.pid
                if self.profile is not None:
                    self.pid = psutil.Process(self.process.pid).children()[0].pid
                return self
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(f"server not ready on port {self.port} within {timeout}s")

    def _healthy(self) -> bool:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        try:
            connection.request("GET", "/healthz")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash or an OOM kill."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self, timeout: float = 60) -> int | None:
        """SIGTERM to the server and wait: the graceful shutdown path (under py-spy, the
        profile is written and py-spy exits too). Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid or self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode

    def output(self) -> str:
        """Everything the server wrote so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


class Proxy:
    """HAProxy on 127.0.0.1 in front of `servers`, configured as `spades serve --workers`
    configures it (server/workers.py): a table's path hashed to one of them."""

    def __init__(self, servers: Sequence[LiveServer], haproxy: str = "haproxy") -> None:
        from server.workers import Backend, haproxy_config

        self.port = free_port()
        self.directory = tempfile.TemporaryDirectory()
        self.config = Path(self.directory.name) / "haproxy.cfg"
        backends = [
            Backend(f"spades{index + 1}", "127.0.0.1", server.port)
            for index, server in enumerate(servers)
        ]
        self.config.write_text(haproxy_config("127.0.0.1", self.port, backends))
        self.command = [haproxy, "-db", "-f", str(self.config)]
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the proxy)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Proxy:
        """Start HAProxy and wait until it answers /healthz through a server."""
        self.process = subprocess.Popen(self.command, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.log.seek(0)
                output = self.log.read().decode(errors="replace")
                raise RuntimeError(f"haproxy exited with {self.process.returncode}:\n{output}")
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
            try:
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    return self
            except OSError:
                pass
            finally:
                connection.close()
            time.sleep(0.05)
        self.stop()
        raise TimeoutError(f"haproxy not ready on port {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.directory.cleanup()


def redis_pid(url: str) -> int:
    """The pid of the Redis server at `url` (on this machine), as it says itself."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def py_spy() -> str:
    found = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if found is None:
        raise SystemExit("profiling needs py-spy: .venv/bin/pip install -e '.[bench]'")
    return found


@contextlib.contextmanager
def served(server: LiveServer) -> Iterator[LiveServer]:
    """`server` started, stopped on the way out; its log's last lines on stderr if the
    run fails."""
    try:
        yield server.start()
    except Exception:
        print(f"server log (last lines):\n{server.output()[-3000:]}", file=sys.stderr)
        raise
    finally:
        server.stop()


async def admin(sql: str) -> None:
    """One statement on the local PostgreSQL server's maintenance database."""
    import asyncpg

    connection = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@contextlib.asynccontextmanager
async def database(
    url: str | None = None, postgres: bool = False, prefix: str = "spades_bench"
) -> AsyncIterator[str]:
    """The database URL of a run: `url` as given; with `postgres`, a scratch database on
    127.0.0.1:5432 (created, dropped afterwards); otherwise a fresh SQLite file."""
    if url:
        yield url
    elif postgres:
        name = f"{prefix}_{secrets.token_hex(4)}"
        await admin(f'CREATE DATABASE "{name}"')
        try:
            yield POSTGRES_AT + name
        finally:
            await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite+aiosqlite:///{directory}/{prefix}.db"
