"""The warning that a proxy's X-Forwarded-For is not believed (server/api/ratelimit.py),
under `spades serve` itself: once per sending address, never when the proxy is trusted."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import websockets

from tests.realtime.test_socket_limits import log_lines, spades_serve

FORWARDED = {"X-Forwarded-For": "203.0.113.9"}
INFO = {"SPADES_LOG_LEVEL": "INFO"}


def warnings_about_forwarding(log: Path) -> list[dict[str, object]]:
    return [
        line
        for line in log_lines(log.read_text())
        if line.get("level") == "warning" and "X-Forwarded-For" in str(line.get("event"))
    ]


async def requests_through_a_proxy(address: str) -> None:
    """What a reverse proxy on this machine sends: pages, API calls and a table socket,
    each with the player's address in X-Forwarded-For."""
    async with httpx.AsyncClient(base_url=f"http://{address}", headers=FORWARDED) as http:
        assert (await http.get("/")).status_code == 200
        created = await http.post("/api/tables", json={"listed": True})
        assert created.status_code == 201
        assert (await http.get("/api/tables")).status_code == 200
    url = f"ws://{address}/ws/tables/{created.json()['id']}"
    async with websockets.connect(url, additional_headers=FORWARDED) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None, "version": None}))
        assert json.loads(await ws.recv())["type"] == "state"


async def test_forwarded_for_from_an_untrusted_address_is_warned_about_once(tmp_path):
    log = tmp_path / "untrusted" / "serve.log"
    log.parent.mkdir()
    with spades_serve(tmp_path / "untrusted", INFO, log) as address:
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            assert (await http.get("/healthz")).status_code == 200  # no header: nothing said
        assert warnings_about_forwarding(log) == []
        await requests_through_a_proxy(address)
        await requests_through_a_proxy(address)
    [warning] = warnings_about_forwarding(log)
    assert warning["peer"] == "127.0.0.1"
    assert "FORWARDED_ALLOW_IPS=127.0.0.1" in str(warning["event"])
    assert "203.0.113.9" not in json.dumps(warning)  # the player's own address is not logged


async def test_a_trusted_proxy_is_not_warned_about(tmp_path):
    log = tmp_path / "trusted" / "serve.log"
    log.parent.mkdir()
    trusting = INFO | {"FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with spades_serve(tmp_path / "trusted", trusting, log) as address:
        await requests_through_a_proxy(address)
    assert log_lines(log.read_text()), "the server logged nothing"
    assert warnings_about_forwarding(log) == []
