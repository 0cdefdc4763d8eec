"""Two server processes on one PostgreSQL database and one Redis: a change made through
one process reaches the sockets of the other."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from server.store.db import create_engine, migrate
from tests.live_server import LiveServer
from tests.realtime.players import TableClient, create_table

pytestmark = pytest.mark.slow


def address(server: LiveServer) -> str:
    return server.url.removeprefix("http://")


async def test_a_move_through_process_a_reaches_a_spectator_on_process_b(postgres_url, redis_url):
    engine = create_engine(postgres_url)
    await migrate(engine)  # once, before two processes start at the same moment
    await engine.dispose()
    first = LiveServer(postgres_url, redis_url=redis_url)
    second = LiveServer(postgres_url, redis_url=redis_url)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    clients: list[TableClient] = []
    try:
        async with httpx.AsyncClient(base_url=first.url) as http_a:
            table_id = await create_table(http_a, {"preset": "standard"})
            spectator = TableClient(address(second), table_id)
            clients.append(spectator)
            await spectator.connect()
            tokens = []
            for seat in range(4):
                response = await http_a.post(
                    f"/api/tables/{table_id}/seats/{seat}", json={"name": f"P{seat}"}
                )
                tokens.append(response.json()["token"])
            started = await spectator.until(
                lambda m: m["type"] == "state" and m["table"]["status"] == "playing"
            )
            seat = started["state"]["turn"][0]

            # The player on turn plays through process A.
            player = TableClient(address(first), table_id, tokens[seat])
            clients.append(player)
            await player.connect()
            await player.send({"type": "act", "action": {"type": "bid", "bid": 4}, "id": "x"})
            seen = await spectator.until(
                lambda m: m["type"] == "state" and m["state"]["bids"][seat] == 4
            )
            assert seen["version"] == player.version or seen["version"] >= player.version - 1
            assert seen["state"]["hand"] is None

            # And the next player acts through process B; process A's socket hears of it.
            following = seen["state"]["turn"][0]
            other = TableClient(address(second), table_id, tokens[following])
            clients.append(other)
            await other.connect()
            await other.send({"type": "act", "action": {"type": "bid", "bid": 2}})
            await player.until(
                lambda m: m["type"] == "state" and m["state"]["bids"][following] == 2
            )

            # Chat crosses processes too.
            await other.send({"type": "chat", "text": "gg"})
            line = await player.until(lambda m: m["type"] == "chat")
            assert line["text"] == "gg" and line["seat"] == following

            # Both processes agree on the table, read from the database.
            info_a = (await http_a.get(f"/api/tables/{table_id}")).json()
        async with httpx.AsyncClient(base_url=second.url) as http_b:
            info_b = (await http_b.get(f"/api/tables/{table_id}")).json()
        assert info_a["version"] == info_b["version"]
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(asyncio.to_thread(first.stop), asyncio.to_thread(second.stop))
