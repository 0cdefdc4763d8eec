"""HAProxy in front of two server processes (PostgreSQL and Redis), configured as `spades
serve --workers` configures it: the four players of a table land on one process, their
moves never cross to the other, and when that process is killed (SIGKILL) they reconnect
through the proxy to the other one with nothing lost, and the game plays on."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import websockets

from bench.harness import metrics
from bench.harness.server import LiveServer, Proxy
from bench.harness.tables import take_seats
from server.engine import Rules
from tests.realtime.players import TableClient, create_table, play_turns

pytestmark = pytest.mark.slow

RULES = {"preset": "standard", "target_score": 100}
REJOIN_SECONDS = 60.0


async def figures(server: LiveServer) -> tuple[float, float]:
    """A process's player sockets open and the other processes' changes it applied."""
    async with httpx.AsyncClient(base_url=server.url) as http:
        samples = await metrics.scrape(http)
    assert samples is not None
    players = metrics.counters(samples, "spades_connected_sockets", by="role").get("player", 0)
    remote = metrics.counters(samples, "spades_remote_changes_total").get("", 0)
    return players, remote


async def rejoin(player: TableClient) -> dict[str, Any]:
    """Reconnect through the proxy with the last version held, until a process takes it
    (the proxy may still try the dead one until its health check says so)."""
    async with asyncio.timeout(REJOIN_SECONDS):
        while True:
            try:
                return await player.connect(version=player.version)
            except (OSError, websockets.InvalidStatus, websockets.ConnectionClosed, TimeoutError):
                await asyncio.sleep(0.2)


async def test_a_tables_players_share_a_process_and_move_together_when_it_dies(
    migrated_postgres_url, redis_url, haproxy
):
    servers = [
        LiveServer(migrated_postgres_url, redis_url=redis_url),
        LiveServer(migrated_postgres_url, redis_url=redis_url),
    ]
    await asyncio.gather(*(asyncio.to_thread(server.start) for server in servers))
    proxy = Proxy(servers, haproxy)
    players: list[TableClient] = []
    try:
        await asyncio.to_thread(proxy.start)
        async with httpx.AsyncClient(base_url=proxy.url) as http:
            table_id = await create_table(http, RULES)
            tokens = await take_seats(http, table_id)
            players = [TableClient(proxy.address, table_id, token) for token in tokens]
            for player in players:  # one after another: a rotation would split them
                await player.connect()
            rules = Rules.model_validate(RULES)

            # All four sockets on one process, none on the other.
            counts = [await figures(server) for server in servers]
            assert sorted(players for players, _ in counts) == [0, 4], counts
            holder = next(i for i, (players, _) in enumerate(counts) if players == 4)
            remote_before = counts[holder][1]

            def mid_hand(message: dict[str, Any]) -> bool:
                view = message["state"]
                return sum(view["tricks_won"]) >= 3 and len(view["trick"]) == 2

            await play_turns(players, rules, done=mid_hand)
            # Every move was made where every socket is: none reached them across Redis.
            assert (await figures(servers[holder]))[1] == remote_before
            before = {player.state["seat"]: player.state for player in players}
            last_version = max(player.version for player in players)

            servers[holder].kill()
            for player in players:
                await player.close()
            for player in players:
                back = await rejoin(player)
                assert back["version"] >= last_version
                assert back["state"] == before[back["seat"]]["state"]
            survivor = servers[1 - holder]
            assert (await figures(survivor))[0] == 4

            # The game plays on there: the hand is finished, every trick of it kept.
            await play_turns(players, rules, done=lambda m: m["table"]["hands_played"] >= 1)
            history = (await http.get(f"/api/tables/{table_id}/history")).json()
            assert sum(history["hands"][0]["tricks"]) == 13
    finally:
        for player in players:
            await player.close()
        proxy.stop()
        await asyncio.gather(*(asyncio.to_thread(server.stop) for server in servers))
