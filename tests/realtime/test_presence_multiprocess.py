"""Presence across two server processes on one PostgreSQL database and one Redis: a seat
is away only when no live process holds a socket for it, and only then does its grace
timer hand it to a bot."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import text

from bench.harness.server import LiveServer
from server.realtime.pubsub import CHANNEL, PRESENCE_KEY
from server.store.db import create_engine
from tests.realtime.players import TableClient, create_table
from tests.realtime.test_multiprocess import address

pytestmark = pytest.mark.slow

# Entries expire after 1 s, renewed every third of that: a dead process's seats go away
# within about 1.3 s.
EXPIRY = 1.0
GRACE = 0.2


@asynccontextmanager
async def two_processes(
    migrated_postgres_url: str, redis_url: str, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[LiveServer, LiveServer]]:
    env = {"SPADES_PRESENCE_EXPIRY_SECONDS": str(EXPIRY), **(env or {})}
    first = LiveServer(migrated_postgres_url, redis_url=redis_url, env=env)
    second = LiveServer(migrated_postgres_url, redis_url=redis_url, env=env)
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


@dataclass
class SeatedTable:
    """A standard table on two processes, Ann in seat 0 (her `token`), made through
    `http` (open while the set-up lasts); every client made by `client` is closed after."""

    first: LiveServer
    second: LiveServer
    http: httpx.AsyncClient
    table_id: str
    token: str
    clients: list[TableClient] = field(default_factory=list)

    def client(self, server: LiveServer, token: str | None = None) -> TableClient:
        """A client (not yet connected) of the table through `server`."""
        client = TableClient(address(server), self.table_id, token)
        self.clients.append(client)
        return client

    def watch_and_hold(self) -> tuple[list[TableClient], TableClient, TableClient]:
        """Clients (not yet connected): a spectator on each process, and the seat's player
        through process A and through process B."""
        spectators = [self.client(self.first), self.client(self.second)]
        return spectators, self.client(self.first, self.token), self.client(self.second, self.token)


@asynccontextmanager
async def seated_table(
    migrated_postgres_url: str,
    redis_url: str,
    env: dict[str, str] | None = None,
    made_on_second: bool = False,
) -> AsyncIterator[SeatedTable]:
    """`two_processes` with a table made and Ann seated through the first (or the
    second) process."""
    async with two_processes(migrated_postgres_url, redis_url, env) as (first, second):
        http = httpx.AsyncClient(base_url=(second if made_on_second else first).url)
        table: SeatedTable | None = None
        try:
            table_id = await create_table(http, {"preset": "standard"})
            table = SeatedTable(first, second, http, table_id, await take_seat(http, table_id, 0))
            yield table
        finally:
            for client in table.clients if table is not None else []:
                await client.close()
            await http.aclose()


async def test_a_seat_held_through_another_process_stays_present(migrated_postgres_url, redis_url):
    async with seated_table(migrated_postgres_url, redis_url) as table:
        spectators, through_a, through_b = table.watch_and_hold()
        for spectator in spectators:
            await spectator.connect()
        await through_a.connect()
        for spectator in spectators:
            await spectator.until(lambda m: (s := seat_shown(m, 0)) is not None and s["connected"])
        await through_b.connect()
        present_from = [len(spectator.messages) for spectator in spectators]

        await closed_on(table.first, through_a, barrier=spectators[0])
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


def on_turn(seat: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: (
        m["type"] == "state" and m["state"] is not None and m["state"]["turn"] == [seat]
    )


def autoplayed(seat: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: (shown := seat_shown(m, seat)) is not None and bool(shown.get("autoplay"))


async def fill_with_bots(http: httpx.AsyncClient, table_id: str) -> None:
    """Bots in seats 1-3: the game starts, the bots bid until seat 0 must act."""
    for seat in (1, 2, 3):
        response = await http.post(f"/api/tables/{table_id}/seats/{seat}/bot", json={})
        assert response.status_code in (200, 201), response.text


async def test_no_bot_takes_a_seat_while_another_process_holds_it(migrated_postgres_url, redis_url):
    env = {"SPADES_GRACE_SECONDS": str(GRACE)}
    async with seated_table(migrated_postgres_url, redis_url, env) as table:
        spectators, through_a, through_b = table.watch_and_hold()
        for client in table.clients:
            await client.connect()
        await fill_with_bots(table.http, table.table_id)
        for spectator in spectators:
            await spectator.until(on_turn(0))
        on_turn_from = [len(spectator.messages) for spectator in spectators]

        await closed_on(table.first, through_a, barrier=spectators[0])
        # Five grace times pass with the seat on turn: no bot may act for it.
        await asyncio.sleep(5 * GRACE)
        await spectators[1].send({"type": "chat", "text": "your turn"})
        for spectator, start in zip(spectators, on_turn_from, strict=True):
            await spectator.until(lambda m: m["type"] == "chat" and m["text"] == "your turn")
            seen = spectator.messages[start:]
            assert not [m for m in seen if shows_away(0)(m) or autoplayed(0)(m)]
            assert spectator.state is not None
            assert spectator.state["state"]["bids"][0] is None
            assert spectator.state["table"]["seats"][0] == {
                "seat": 0,
                "name": "Ann",
                "bot": None,
                "connected": True,
            }

        await through_b.close()
        for spectator in spectators:
            await spectator.until(autoplayed(0), timeout=5)
            await spectator.until(
                lambda m: m["type"] == "state" and m["state"]["bids"][0] is not None, timeout=5
            )


async def test_a_grace_timer_waits_while_a_process_holds_the_seat_in_redis(
    migrated_postgres_url, redis_url
):
    """The seat is away here, but Redis says another process holds a socket for it (one
    whose write saying so has not arrived, or that died): the bot takes the seat only
    once that process's entry expires."""
    held_for = 1.5
    env = {"SPADES_GRACE_SECONDS": str(GRACE)}
    # Ann's seat: nobody ever connects for it.
    async with seated_table(migrated_postgres_url, redis_url, env) as table:
        redis = Redis.from_url(redis_url)
        try:
            spectator = table.client(table.first)
            await spectator.connect()
            before = time.monotonic()
            seconds, micros = await redis.time()
            now_ms = seconds * 1000 + micros // 1000
            key = PRESENCE_KEY.format(table.table_id, 0)
            await redis.zadd(key, {"another-process": now_ms + held_for * 1000})
            await fill_with_bots(table.http, table.table_id)  # the game starts: seat 0's grace
            await spectator.until(autoplayed(0), timeout=10)
            waited = time.monotonic() - before
            assert held_for - 0.05 <= waited < held_for + 3, waited
        finally:
            await redis.aclose()


async def test_a_seat_held_by_a_killed_process_goes_away_once_its_entry_expires(
    migrated_postgres_url, redis_url
):
    env = {"SPADES_GRACE_SECONDS": str(GRACE)}
    async with seated_table(migrated_postgres_url, redis_url, env, made_on_second=True) as table:
        crashed, survivor = table.first, table.second
        spectator = table.client(survivor)
        player = table.client(crashed, table.token)
        await spectator.connect()
        await player.connect()
        await fill_with_bots(table.http, table.table_id)
        await spectator.until(on_turn(0))
        assert spectator.state is not None
        assert spectator.state["table"]["seats"][0]["connected"] is True

        await asyncio.to_thread(crashed.kill)
        killed = time.monotonic()
        await spectator.until(shows_away(0), timeout=10)
        gone_after = time.monotonic() - killed
        # Up to one expiry for the entry, a third more for the next look.
        assert gone_after < EXPIRY * 4 / 3 + 1, gone_after
        await spectator.until(autoplayed(0), timeout=5)


async def test_a_seat_marked_away_while_a_socket_holds_it_is_present_again(
    migrated_postgres_url, redis_url
):
    """Two processes race: one marks the seat away (its last socket closed, and it saw no
    other entry yet) while the seat's socket opens on the other. The process holding the
    socket hears of the change and marks the seat present again."""
    async with seated_table(migrated_postgres_url, redis_url) as table:
        table_id = table.table_id
        engine = create_engine(migrated_postgres_url)
        redis = Redis.from_url(redis_url)
        try:
            spectator = table.client(table.second)
            player = table.client(table.first, table.token)
            await spectator.connect()
            await player.connect()
            await spectator.until(lambda m: (s := seat_shown(m, 0)) is not None and s["connected"])

            # The racing process's write, as it would commit and announce it.
            async with engine.begin() as connection:
                version = await connection.scalar(
                    text(
                        "UPDATE tables SET version = version + 1 WHERE id = :id RETURNING version"
                    ),
                    {"id": table_id},
                )
                await connection.execute(
                    text("UPDATE seats SET connected = false WHERE table_id = :id AND seat = 0"),
                    {"id": table_id},
                )
            notice = {"id": table_id, "version": version, "origin": "racing-process"}
            await redis.publish(CHANNEL, json.dumps(notice))

            # The spectator's process may load the away write, or already the repair.
            await spectator.until(
                lambda m: (
                    (s := seat_shown(m, 0)) is not None
                    and s["connected"]
                    and m["version"] > version
                ),
                timeout=5,
            )
        finally:
            await redis.aclose()
            await engine.dispose()
