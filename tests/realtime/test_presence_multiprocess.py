"""Presence across two server processes on one PostgreSQL database and one Redis: a seat
is away only when no live process holds a socket for it, and only then does its grace
timer hand it to a bot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from server.store.db import create_engine, migrate
from tests.live_server import LiveServer
from tests.realtime.players import TableClient, create_table
from tests.realtime.test_multiprocess import address

pytestmark = pytest.mark.slow

# Entries expire after 1 s, renewed every third of that: a dead process's seats go away
# within about 1.3 s.
EXPIRY = 1.0
GRACE = 0.2


@asynccontextmanager
async def two_processes(
    postgres_url: str, redis_url: str, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[LiveServer, LiveServer]]:
    engine = create_engine(postgres_url)
    await migrate(engine)  # once, before two processes start at the same moment
    await engine.dispose()
    env = {"SPADES_PRESENCE_EXPIRY_SECONDS": str(EXPIRY), **(env or {})}
    first = LiveServer(postgres_url, redis_url=redis_url, env=env)
    second = LiveServer(postgres_url, redis_url=redis_url, env=env)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    try:
        yield first, second
    finally:
        await asyncio.gather(asyncio.to_thread(first.stop), asyncio.to_thread(second.stop))


def seat_shown(message: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """The seat as a state message shows it (None for other messages)."""
    if message["type"] != "state":
        return None
    return message["table"]["seats"][seat]


def shows_away(seat: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: (shown := seat_shown(m, seat)) is not None and not shown["connected"]


def player_sockets(server: LiveServer) -> float:
    metrics = httpx.get(f"{server.url}/metrics").text
    line = next(
        line
        for line in metrics.splitlines()
        if line.startswith('spades_connected_sockets{role="player"}')
    )
    return float(line.rsplit(" ", 1)[1])


async def closed_on(server: LiveServer, client: TableClient, barrier: TableClient) -> None:
    """Close `client`'s socket and return once `server` has dealt with it: the process
    has counted the socket gone, and a chat line said through `barrier` (a spectator on
    the same process, whose change queues behind the close's) came back to it."""
    await client.close()
    while await asyncio.to_thread(player_sockets, server) > 0:
        await asyncio.sleep(0.02)  # polling the process's own count
    await barrier.send({"type": "chat", "text": "after the close"})
    await barrier.until(lambda m: m["type"] == "chat" and m["text"] == "after the close")


async def take_seat(http: httpx.AsyncClient, table_id: str, seat: int) -> str:
    response = await http.post(f"/api/tables/{table_id}/seats/{seat}", json={"name": "Ann"})
    assert response.status_code == 201, response.text
    return response.json()["token"]


async def test_a_seat_held_through_another_process_stays_present(postgres_url, redis_url):
    async with two_processes(postgres_url, redis_url) as (first, second):
        clients: list[TableClient] = []
        try:
            async with httpx.AsyncClient(base_url=first.url) as http:
                table_id = await create_table(http, {"preset": "standard"})
                token = await take_seat(http, table_id, 0)
            spectators = [
                TableClient(address(first), table_id),
                TableClient(address(second), table_id),
            ]
            through_a = TableClient(address(first), table_id, token)
            through_b = TableClient(address(second), table_id, token)
            clients += [*spectators, through_a, through_b]
            for spectator in spectators:
                await spectator.connect()
            await through_a.connect()
            for spectator in spectators:
                await spectator.until(
                    lambda m: (s := seat_shown(m, 0)) is not None and s["connected"]
                )
            await through_b.connect()
            present_from = [len(spectator.messages) for spectator in spectators]

            await closed_on(first, through_a, barrier=spectators[0])
            # Several expiries pass: the renewals keep the seat held, nothing may change.
            await asyncio.sleep(3 * EXPIRY)
            await spectators[1].send({"type": "chat", "text": "still here?"})
            for spectator, start in zip(spectators, present_from, strict=True):
                await spectator.until(lambda m: m["type"] == "chat" and m["text"] == "still here?")
                flickers = [m for m in spectator.messages[start:] if shows_away(0)(m)]
                assert flickers == [], "a spectator saw the seat away while process B held it"
                assert spectator.state is not None
                assert spectator.state["table"]["seats"][0]["connected"] is True

            await through_b.close()
            for spectator in spectators:
                await spectator.until(shows_away(0), timeout=5)
        finally:
            for client in clients:
                await client.close()
