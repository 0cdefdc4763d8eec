"""Caps that fit real networks, through real uvicorn and real clients: one address may be a
classroom's NAT, so a hundred sockets from it play as usual, while a flood of new sockets
from it is refused (1013) without touching the sockets it already holds or other addresses,
and one table takes at most SPADES_WS_PER_TABLE_PER_ADDRESS sockets from one address.

Every client here connects from loopback: 127.0.0.1, or 127.0.0.2 for "another address"
(Linux routes all of 127.0.0.0/8 to loopback). SQLite only: these are about the sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

import httpx
import pytest

from server.api.services import services_of
from server.engine import Rules
from server.settings import Settings
from tests.realtime.players import TableClient, create_table, play_turns, seat_players
from tests.realtime.test_socket_limits import (
    dropped,
    served_again,
    served_with,
    socket_result,
)

OTHER_ADDRESS = "127.0.0.2"


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'db' / 'spades.db'}"


async def test_a_hundred_sockets_from_one_address_play_as_usual(settings):
    """25 tables of four players, all from 127.0.0.1 with the default caps: every socket is
    served and every table plays through its bidding and its first tricks."""
    defaults = Settings()
    assert (defaults.ws_per_address, defaults.ws_new_per_address) == (500, "500/minute")
    assert defaults.ws_per_table_per_address == 100
    refusals = {why: dropped(why) for why in ("per_address", "per_table", "new_per_address")}
    rules = Rules.preset("standard")
    async with served_with(settings) as (app, address):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            tables = [await create_table(http, {"preset": "standard"}) for _ in range(25)]
            players = [await seat_players(http, address, table, 4) for table in tables]
        assert sum(len(table) for table in players) == 100
        assert sum(services_of(app).socket_guard.open.values()) == 100
        started = [table[0].version for table in players]
        # Four bids and eight cards at each table, every act accepted.
        await asyncio.gather(
            *(
                play_turns(clients, rules, lambda m, v=version: m["version"] >= v + 12, rng)
                for clients, version, rng in zip(
                    players, started, (random.Random(n) for n in range(25)), strict=True
                )
            )
        )
        for clients in players:
            for client in clients:
                assert client.close_code is None
                await client.close()
    assert {why: dropped(why) for why in refusals} == refusals


async def flood(address: str, table_id: str, count: int) -> list[tuple[int, str] | None]:
    """`count` new sockets from 127.0.0.1, 50 at a time, each closed once answered."""
    results: list[tuple[int, str] | None] = []
    for start in range(0, count, 50):
        batch = [socket_result(address, table_id) for _ in range(min(50, count - start))]
        results += await asyncio.gather(*batch)
    return results


async def test_a_flood_of_new_sockets_from_one_address_is_refused(settings):
    """Over its budget of new sockets an address is refused (1013) until the window moves;
    a player it already has keeps playing, and another address is served all along."""
    async with served_with(settings, ws_new_per_address="60/minute") as (_app, address):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            table_id = await create_table(http, {"preset": "standard"})
            [player] = await seat_players(http, address, table_id, 1)
        before = dropped("new_per_address")
        started = time.monotonic()
        results = await flood(address, table_id, 300)
        assert time.monotonic() - started < 60, "the window moved during the flood"
        # The player's own socket was the address's first new one.
        served = [result for result in results if result is None]
        refused = [result for result in results if result is not None]
        assert len(served) == 59
        assert set(refused) == {(1013, "too many new connections from your address")}
        assert dropped("new_per_address") == before + len(refused)
        # Closed sockets free no budget: the window does.
        assert await socket_result(address, table_id) is not None
        assert await socket_result(address, table_id, source=OTHER_ADDRESS) is None
        await player.send({"type": "ping"})
        assert (await player.until(lambda m: m["type"] == "pong"))["type"] == "pong"
        assert player.close_code is None
        await player.close()


async def test_the_default_budget_takes_a_classroom_at_once_and_stops_a_flood(settings):
    """The default budget, 500 new sockets a minute per address: a classroom reconnecting
    all at once after a restart fits many times over; the 501st in the minute is refused."""
    async with served_with(settings) as (_app, address):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            table_id = await create_table(http, {"preset": "standard"})
        results = await flood(address, table_id, 510)
        assert results[:500] == [None] * 500
        assert set(results[500:]) == {(1013, "too many new connections from your address")}
        assert await socket_result(address, table_id, source=OTHER_ADDRESS) is None


async def test_one_table_takes_at_most_ws_per_table_per_address_sockets_from_one_address(
    settings,
):
    async with served_with(settings, ws_per_table_per_address=3) as (_app, address):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            first = await create_table(http, {"preset": "standard"})
            second = await create_table(http, {"preset": "standard"})
        watchers = [TableClient(address, first) for _ in range(3)]
        for watcher in watchers:
            await watcher.connect()
        before = dropped("per_table")
        refused = (1013, "too many connections to this table from your address")
        assert await socket_result(address, first) == refused
        assert dropped("per_table") == before + 1
        # Another table, or the same table from another address, is served.
        assert await socket_result(address, second) is None
        assert await socket_result(address, first, source=OTHER_ADDRESS) is None
        # A closed socket frees its place at the table.
        await watchers[0].close()
        await served_again(address, first)
        for watcher in watchers[1:]:
            with contextlib.suppress(Exception):
                await watcher.close()
