"""SIGTERM to a real uvicorn: every socket hears 1012 ("server restarting"), the process
exits 0 in good time, and every line it logged on the way is JSON without a token."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[2]
# Docker's default stop timeout is 10 s (compose gives 20): shutdown must fit well inside.
EXIT_WITHIN_SECONDS = 8.0

pytestmark = pytest.mark.slow


async def wait_until_healthy(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            assert process.poll() is None, f"server exited early with {process.returncode}"
            try:
                if (await client.get(f"{url}/healthz", timeout=1)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise TimeoutError(f"{url} did not answer /healthz within {timeout}s")


SERVE = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port"]
UVICORN = [
    sys.executable, "-m", "uvicorn", "server.app:app", "--ws", "websockets-sansio",
    "--host", "127.0.0.1", "--port",
]  # fmt: skip
# uvicorn itself re-raises the signal it handled once shutdown is over (exit -15 after a
# clean stop); `spades serve`, which the Docker image runs, turns that into exit 0.
EXPECTED_EXIT = {"spades serve": 0, "uvicorn": -signal.SIGTERM}


@pytest.fixture(params=["spades serve", "uvicorn"])
async def uvicorn_server(request, tmp_path, free_port):
    """A real uvicorn on SQLite, started the way the Docker image does and the plain way."""
    log_path = tmp_path / "server.log"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}",
        "SPADES_LOG_JSON": "true",
        "SPADES_LOG_LEVEL": "INFO",
        "SPADES_BOT_DELAY": "0",
    }
    env.pop("REDIS_URL", None)
    command = [*(SERVE if request.param == "spades serve" else UVICORN), str(free_port)]
    out_path = tmp_path / "server.out"
    with log_path.open("wb") as log, out_path.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=log)
    url = f"http://127.0.0.1:{free_port}"
    try:
        await wait_until_healthy(url, process)
        yield process, url, log_path, EXPECTED_EXIT[request.param]
        if request.param == "spades serve":
            assert out_path.read_text() == f"Spades is running: open {url}/\n"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


async def test_sigterm_closes_sockets_with_1012_and_exits_cleanly(uvicorn_server):
    process, url, log_path, expected_exit = uvicorn_server
    async with httpx.AsyncClient(base_url=url) as client:
        table = (await client.post("/api/tables", json={"rules": {"preset": "standard"}})).json()
        seat = await client.post(
            f"/api/tables/{table['id']}/seats/0", json={"name": "Ann", "invite": table["invite"]}
        )
        token = seat.json()["token"]
    ws_url = url.replace("http", "ws", 1) + f"/ws/tables/{table['id']}"

    async with connect(ws_url) as player, connect(ws_url) as spectator:
        await player.send(json.dumps({"type": "hello", "token": token, "version": None}))
        await spectator.send(json.dumps({"type": "hello", "token": None, "version": None}))
        for socket in (player, spectator):
            first = json.loads(await asyncio.wait_for(socket.recv(), 10))
            assert first["type"] == "state"

        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        for socket in (player, spectator):
            with pytest.raises(ConnectionClosed):
                while True:  # a last presence update may still arrive before the close
                    await asyncio.wait_for(socket.recv(), EXIT_WITHIN_SECONDS)
            assert socket.close_code == 1012, (socket.close_code, socket.close_reason)

    returncode = await asyncio.to_thread(process.wait, EXIT_WITHIN_SECONDS)
    elapsed = time.monotonic() - started
    assert returncode == expected_exit, log_path.read_text()
    assert elapsed < EXIT_WITHIN_SECONDS
    print(f"SIGTERM to exit 0: {elapsed:.2f}s")

    log_lines = [line for line in log_path.read_text().splitlines() if line.strip()]
    assert log_lines, "the server logged nothing"
    records = [json.loads(line) for line in log_lines]  # every line, uvicorn's too, is JSON
    assert {"uvicorn.error"} <= {record.get("logger") for record in records}
    assert records[-1]["event"].startswith("Finished server process")
    assert token not in log_path.read_text()
