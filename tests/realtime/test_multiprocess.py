"""Two server processes on one PostgreSQL database and one Redis: a change made through
one process reaches the sockets of the other."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from redis.asyncio import Redis
from sqlalchemy import text

from bench.harness import metrics
from bench.harness.server import LiveServer
from bench.harness.tables import add_bots, take_seats
from server.realtime.pubsub import BOT_CLAIM_KEY, TABLE_CHANNEL
from server.store.db import create_engine, migrate
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.realtime.players import TableClient, create_table

pytestmark = pytest.mark.slow


def address(server: LiveServer) -> str:
    return server.url.removeprefix("http://")


async def test_a_move_through_process_a_reaches_a_spectator_on_process_b(
    migrated_postgres_url, redis_url
):
    first = LiveServer(migrated_postgres_url, redis_url=redis_url)
    second = LiveServer(migrated_postgres_url, redis_url=redis_url)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    clients: list[TableClient] = []
    try:
        async with httpx.AsyncClient(base_url=first.url) as http_a:
            table_id = await create_table(http_a, {"preset": "standard"})
            spectator = TableClient(address(second), table_id)
            clients.append(spectator)
            await spectator.connect()
            tokens = await take_seats(http_a, table_id)
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


def actions_taken(server: LiveServer) -> float:
    """The process's `spades_actions_total`, summed over action types."""
    metrics = httpx.get(f"{server.url}/metrics").text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith("spades_actions_total{")
    )


async def test_only_one_process_drives_the_bots_of_a_table(own_postgres_url, redis_url):
    """Both processes watch a bot-only table; one drives its bots: it makes every move,
    and no write of one process ever conflicts with a write of the other. (A database of
    its own: each process counts its moves over every table it resumed at its start.)"""
    env = {"SPADES_BOT_DELAY": "0.002", "SPADES_LOG_LEVEL": "INFO"}
    servers = [LiveServer(own_postgres_url, redis_url=redis_url, env=env) for _ in range(2)]
    await asyncio.gather(*(asyncio.to_thread(server.start) for server in servers))
    clients: list[TableClient] = []
    try:
        async with httpx.AsyncClient(base_url=servers[0].url) as http:
            table_id = await create_table(http, {"preset": "standard", "target_score": 100})
            for server in servers:  # both processes hold the room and hear every change
                clients.append(TableClient(address(server), table_id))
                await clients[-1].connect()
            await add_bots(http, table_id)
        for client in clients:
            await client.until(
                lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=90
            )
        taken = sorted([actions_taken(server) for server in servers])
        assert taken[0] == 0 and taken[1] > 52, taken
        redis = Redis.from_url(redis_url)
        assert await redis.exists(BOT_CLAIM_KEY.format(table_id)) == 0  # let go at the end
        await redis.aclose()
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(*(asyncio.to_thread(server.stop) for server in servers))
    for server in servers:
        assert "version conflict" not in server.output()


async def bots_only_table(server: LiveServer) -> str:
    """A short game (to 100) of four bots, created through ``server``; its id."""
    async with httpx.AsyncClient(base_url=server.url) as http:
        table_id = await create_table(http, {"preset": "standard", "target_score": 100})
        await add_bots(http, table_id)
    return table_id


async def test_when_the_process_driving_bots_stops_another_process_takes_over(
    postgres_url, redis_url
):
    engine = create_engine(postgres_url)
    await migrate(engine)
    env = {"SPADES_BOT_DELAY": "0.01"}
    driver = LiveServer(postgres_url, redis_url=redis_url, env=env)
    other = LiveServer(postgres_url, redis_url=redis_url, env=env)
    await asyncio.gather(asyncio.to_thread(driver.start), asyncio.to_thread(other.start))
    spectator: TableClient | None = None
    try:
        table_id = await bots_only_table(driver)
        # The other process loads the table only now: the driver already holds the claim.
        spectator = TableClient(address(other), table_id)
        first = await spectator.connect()
        await spectator.until(lambda m: m["type"] == "state" and m["version"] > first["version"])
        await asyncio.to_thread(driver.stop)
        async with engine.connect() as connection:
            status = await connection.scalar(
                text("SELECT status FROM tables WHERE id = :id"), {"id": table_id}
            )
        assert status == "playing", "the game ended before its driver stopped"

        await spectator.until(
            lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=90
        )
    finally:
        if spectator is not None:
            await spectator.close()
        await engine.dispose()
        await asyncio.gather(asyncio.to_thread(driver.stop), asyncio.to_thread(other.stop))


async def test_a_bot_game_whose_process_died_goes_on_when_another_process_opens_it(
    migrated_postgres_url, redis_url
):
    """SIGKILL leaves the dead process's bot claim in Redis until it expires; a process
    that opens the table afterwards takes the bots over then."""
    env = {"SPADES_BOT_DELAY": "0.01"}
    crashed = LiveServer(migrated_postgres_url, redis_url=redis_url, env=env)
    other = LiveServer(migrated_postgres_url, redis_url=redis_url, env=env)
    await asyncio.gather(asyncio.to_thread(crashed.start), asyncio.to_thread(other.start))
    spectator: TableClient | None = None
    try:
        table_id = await bots_only_table(crashed)
        redis = Redis.from_url(redis_url)
        while not await redis.exists(BOT_CLAIM_KEY.format(table_id)):
            await asyncio.sleep(0.01)  # polling: the bots are moving under its claim
        await redis.aclose()
        crashed.kill()
        spectator = TableClient(address(other), table_id)
        opened = await spectator.connect()
        assert opened["table"]["status"] == "playing"
        await spectator.until(
            lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=90
        )
    finally:
        if spectator is not None:
            await spectator.close()
        await asyncio.gather(asyncio.to_thread(crashed.stop), asyncio.to_thread(other.stop))


async def listening(redis: Redis, table_id: str, processes: int) -> None:
    """Until exactly `processes` processes listen on the table's notice channel."""
    channel = TABLE_CHANNEL.format(table_id)
    async with asyncio.timeout(20):
        while (await redis.pubsub_numsub(channel))[0][1] != processes:
            await asyncio.sleep(0.05)


async def rooms_loaded(server: LiveServer) -> float:
    async with httpx.AsyncClient(base_url=server.url) as http:
        samples = metrics.parse((await http.get("/metrics")).text)
    return metrics.counters(samples, "spades_rooms_loaded").get("", 0.0)


@pytest.fixture
def own_postgres_url(postgres_url: str) -> Iterator[str]:
    """A migrated PostgreSQL database of the test's own: the session's holds other tests'
    unfinished tables, which a process resumes as it starts (their rooms and their bots'
    moves would count in what the test counts)."""
    url = create_postgres_database()

    async def upgrade() -> None:
        engine = create_engine(url)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(upgrade())
    yield url
    drop_postgres_database(url)


async def test_a_process_drops_a_table_whose_sockets_are_elsewhere_instead_of_reloading_it(
    own_postgres_url, redis_url
):
    """Process A made the table and seated its players (so it holds the room) while
    their sockets play through B: A drops the room on B's first notice instead of
    reloading it move after move, and still answers with the table as it is now. Each
    process listens on the table's channel exactly while it holds the room."""
    first = LiveServer(own_postgres_url, redis_url=redis_url)
    second = LiveServer(own_postgres_url, redis_url=redis_url)
    await asyncio.gather(asyncio.to_thread(first.start), asyncio.to_thread(second.start))
    players: list[TableClient] = []
    redis = Redis.from_url(redis_url)
    try:
        async with httpx.AsyncClient(base_url=first.url) as http_a:
            table_id = await create_table(http_a, {"preset": "standard"})
            tokens = await take_seats(http_a, table_id)
            assert await rooms_loaded(first) == 1
            await listening(redis, table_id, 1)  # A, which holds it
            players = [TableClient(address(second), table_id, token) for token in tokens]
            for player in players:
                await player.connect()
            seat = players[0].view["turn"][0]
            await players[seat].send({"type": "act", "action": {"type": "bid", "bid": 3}})
            moved = await players[0].until(
                lambda m: m["type"] == "state" and m["state"]["bids"][seat] == 3
            )
            async with asyncio.timeout(20):
                while await rooms_loaded(first) != 0:
                    await asyncio.sleep(0.05)
            await listening(redis, table_id, 1)  # now B alone: A hears no more of it
            info = (await http_a.get(f"/api/tables/{table_id}")).json()
            assert info["version"] >= moved["version"]
    finally:
        await redis.aclose()
        for player in players:
            await player.close()
        await asyncio.gather(asyncio.to_thread(first.stop), asyncio.to_thread(second.stop))
