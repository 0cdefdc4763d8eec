"""Table-change notices between server processes.

After a process commits a change to a table it publishes `(table id, version)`; every
other process reloads that table from the database and broadcasts to its own sockets.
`LocalNotices` is the single-process case (nothing to tell anyone); `RedisNotices` uses
Redis pub/sub. The database stays the only source of truth: a lost notice only delays
an update until the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import structlog

log = structlog.get_logger(__name__)

CHANNEL = "spades:table-changed"

OnChange = Callable[[str, int], Awaitable[None]]


class TableNotices(Protocol):
    async def publish(self, table_id: str, version: int) -> None: ...

    async def start(self, on_change: OnChange) -> None: ...

    async def close(self) -> None: ...


class LocalNotices:
    """One process: every socket is ours, there is nobody to notify."""

    async def publish(self, table_id: str, version: int) -> None:
        return None

    async def start(self, on_change: OnChange) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisNotices:
    """Redis pub/sub on one channel; a process ignores its own notices."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.origin = secrets.token_hex(8)
        self._task: asyncio.Task[None] | None = None
        self._pubsub: Any = None

    async def publish(self, table_id: str, version: int) -> None:
        notice = json.dumps({"id": table_id, "version": version, "origin": self.origin})
        try:
            await self.redis.publish(CHANNEL, notice)
        except Exception:  # the change is committed; other processes catch up later
            log.warning("redis publish failed", table=table_id, version=version)

    async def start(self, on_change: OnChange) -> None:
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(CHANNEL)
        self._task = asyncio.create_task(self._listen(on_change))

    async def _listen(self, on_change: OnChange) -> None:
        async for message in self._pubsub.listen():
            if message.get("type") != "message":
                continue
            try:
                notice = json.loads(message["data"])
                if notice["origin"] == self.origin:
                    continue
                await on_change(str(notice["id"]), int(notice["version"]))
            except Exception:
                log.exception("table notice failed")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
