"""A table's change notices are published only while another process listens on its
channel: two `RedisNotices` on the real Redis, one holding a table alone, then a second
coming to listen (it greets, and hears the newest version at once), then leaving."""

from __future__ import annotations

import asyncio
import uuid

from prometheus_client import REGISTRY
from redis.asyncio import Redis

from server.realtime.pubsub import TABLE_CHANNEL, RedisNotices


def notices(outcome: str) -> float:
    return REGISTRY.get_sample_value("spades_table_notices_total", {"outcome": outcome}) or 0.0


class Heard:
    """What one process's listener passed on."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, int]] = []
        self.arrived = asyncio.Event()

    async def change(self, table_id: str, version: int) -> None:
        self.changes.append((table_id, version))
        self.arrived.set()

    async def resync(self) -> None:
        return None

    async def watched(self, tables: list[str]) -> None:
        return None

    async def next(self) -> tuple[str, int]:
        async with asyncio.timeout(10):
            while not self.changes:
                self.arrived.clear()
                await self.arrived.wait()
        return self.changes.pop(0)


async def listeners(redis: Redis, table_id: str, count: int) -> None:
    async with asyncio.timeout(10):
        while (await redis.pubsub_numsub(TABLE_CHANNEL.format(table_id)))[0][1] != count:
            await asyncio.sleep(0.02)


async def test_a_table_held_by_one_process_publishes_nothing_until_another_listens(redis_url):
    table = f"t-{uuid.uuid4().hex}"
    redis = Redis.from_url(redis_url)
    holder, newcomer = RedisNotices.from_url(redis_url), RedisNotices.from_url(redis_url)
    held, new = Heard(), Heard()
    try:
        await holder.start(held.change, held.resync, held.watched)
        holder.watch(table)
        await listeners(redis, table, 1)

        # Alone: the first notice reaches only the holder itself, the next ones are not sent.
        sent, unheard = notices("sent"), notices("unheard")
        for version in (1, 2, 3):
            await holder.publish(table, version)
            assert await holder.flush(10)
        assert notices("sent") - sent == 1
        assert notices("unheard") - unheard == 2

        # Another process comes to listen: it greets, and the holder answers with its
        # newest version (published by nobody so far), then publishes every change again.
        await newcomer.start(new.change, new.resync, new.watched)
        newcomer.watch(table)
        assert await new.next() == (table, 3)
        await holder.publish(table, 4)
        assert await new.next() == (table, 4)
        await holder.publish(table, 5)
        assert await new.next() == (table, 5)
        assert held.changes == []  # nobody changed the table but the holder

        # The newcomer leaves: after one notice heard by the holder alone, quiet again.
        newcomer.unwatch(table)
        await listeners(redis, table, 1)
        sent, unheard = notices("sent"), notices("unheard")
        for version in (6, 7):
            await holder.publish(table, version)
            assert await holder.flush(10)
        assert (notices("sent") - sent, notices("unheard") - unheard) == (1, 1)
        assert new.changes == []
    finally:
        for side in (holder, newcomer):
            await side.close()
            await side.redis.aclose()
        await redis.aclose()
