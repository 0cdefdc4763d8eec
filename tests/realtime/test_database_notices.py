"""While Redis is down, table notices travel through PostgreSQL's own channel."""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY
from redis.asyncio import Redis

from server.realtime.pubsub import RedisNotices
from server.store.db import create_engine
from server.store.feed import DatabaseChannel
from tests.realtime.test_redis_outage import private_redis  # noqa: F401 (a fixture)
from tests.realtime.test_unheard_notices import Heard, listeners


class Resyncs(Heard):
    """A listener that also counts the reloads of every table it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.resyncs = 0

    async def resync(self) -> None:
        self.resyncs += 1


def by_database() -> float:
    sample = REGISTRY.get_sample_value("spades_table_notices_total", {"outcome": "database"})
    return sample or 0.0


async def until(condition, seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


async def test_sqlite_has_no_channel(tmp_path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}")
    try:
        assert DatabaseChannel.of(engine) is None
    finally:
        await engine.dispose()


async def test_notices_go_through_the_database_while_redis_is_down(
    migrated_postgres_url,
    private_redis,  # noqa: F811
) -> None:
    engine = create_engine(migrated_postgres_url)
    redis = Redis.from_url(private_redis.url)
    changer = RedisNotices.from_url(private_redis.url, DatabaseChannel.of(engine))
    other = RedisNotices.from_url(private_redis.url, DatabaseChannel.of(engine))
    heard = Resyncs()
    try:
        await changer.start(Heard().change, Heard().resync, Heard().watched)
        await other.start(heard.change, heard.resync, heard.watched)
        changer.watch("t1")
        other.watch("t1")
        await listeners(redis, "t1", 2)
        await changer.publish("t1", 3)
        assert await heard.next() == ("t1", 3)
        assert by_database() == 0
        # The other's greeting may bring the changer's newest version again: let it.
        await asyncio.sleep(0.3)
        heard.changes.clear()

        private_redis.stop()
        # Both find their subscription broken and listen on the database instead; once
        # there, each reloads what it serves (what changed while it was deaf).
        await until(lambda: heard.resyncs == 1)
        await until(lambda: changer.listening and other.listening)
        sent_before = by_database()
        for version in (4, 5, 6):
            await changer.publish("t1", version)
            assert await heard.next() == ("t1", version)  # in order, none lost
        assert await changer.flush(5)
        assert by_database() == sent_before + 3

        private_redis.start()
        # Back on Redis: the subscription is made again and every table reloaded.
        await until(lambda: heard.resyncs == 2)
        await listeners(redis, "t1", 2)
        await asyncio.sleep(0.3)  # the greetings again bring the newest version, 6
        assert set(heard.changes) <= {("t1", 6)}
        heard.changes.clear()
        sent_before = by_database()
        await changer.publish("t1", 7)
        assert await heard.next() == ("t1", 7)
        assert await changer.flush(5)
        assert by_database() == sent_before  # Redis carried it
    finally:
        await changer.close()
        await other.close()
        await redis.aclose()
        await engine.dispose()


async def test_without_a_channel_a_process_is_deaf_while_redis_is_down(
    private_redis,  # noqa: F811
) -> None:
    """No database channel (SQLite): the hub reads versions from the database instead."""
    notices = RedisNotices.from_url(private_redis.url)
    try:
        await notices.start(Heard().change, Heard().resync, Heard().watched)
        assert notices.listening
        private_redis.stop()
        await until(lambda: not notices.listening)
        await asyncio.sleep(0.5)
        assert not notices.listening
    finally:
        private_redis.start()
        await notices.close()
