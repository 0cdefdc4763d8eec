"""A real table server in a subprocess (`uvicorn server.app:app --ws websockets-sansio`).

Used by the restart and multi-process tests, and by browser tests:

    with LiveServer(database_url) as server:
        server.url      # "http://127.0.0.1:PORT"
        server.ws_url   # "ws://127.0.0.1:PORT"
        server.kill()   # SIGKILL, as a crash would
        server.start()  # again, same port and database
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """One uvicorn process serving the app on 127.0.0.1 with `bot_delay` 0 by default."""

    def __init__(
        self,
        database_url: str,
        *,
        redis_url: str | None = None,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = port or free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "SPADES_BOT_DELAY": "0",
            "SPADES_HTTP_RATE_LIMIT": "1000/second",
            "SPADES_CHAT_RATE_LIMIT": "1000/second",
            "SPADES_LOG_LEVEL": "WARNING",
            **(env or {}),
        }
        self.env.pop("REDIS_URL", None)
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        self.process: subprocess.Popen[bytes] | None = None
        # A file, not a pipe: a pipe nobody reads would block the server once full.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> LiveServer:
        """Start the process and wait until /healthz answers."""
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "server.app:app",
                "--ws",
                "websockets-sansio",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"server exited with {code}:\n{self.output()}")
            if self._healthy():
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

    def stop(self, timeout: float = 15) -> int | None:
        """SIGTERM and wait: the graceful shutdown path. Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode

    def output(self) -> str:
        """Everything the server wrote to stderr so far."""
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
