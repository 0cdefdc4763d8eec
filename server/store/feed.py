"""PostgreSQL's own notices (LISTEN/NOTIFY): the way table notices travel between server
processes while Redis is down (server/realtime/pubsub.py).

The processes already share the database, so while Redis cannot carry a notice it goes
through the database's channel instead: `notify` sends each text on `CHANNEL`, and
`listen` holds a connection of its own that hears them, for as long as the caller keeps
it. SQLite has no such channel (`DatabaseChannel.of` gives None): processes sharing a
SQLite file read the versions from it instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

# The channel's name; a payload is at most 8,000 bytes (PostgreSQL's limit).
CHANNEL = "spades_tables"
NOTIFY = text("SELECT pg_notify(:channel, :payload)")


class DatabaseChannel:
    """LISTEN/NOTIFY on `CHANNEL` of the PostgreSQL behind `engine`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @classmethod
    def of(cls, engine: AsyncEngine) -> DatabaseChannel | None:
        """The channel of `engine`'s database, if it has one (PostgreSQL)."""
        return cls(engine) if engine.dialect.name == "postgresql" else None

    async def notify(self, payloads: Sequence[str]) -> None:
        """Send each payload, in order, in one transaction: heard once it commits."""
        async with self.engine.connect() as connection:
            for payload in payloads:
                await connection.execute(NOTIFY, {"channel": CHANNEL, "payload": payload})
            await connection.commit()

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[asyncio.Queue[str]]:
        """Hear the channel until the block ends: each payload heard (from any process,
        this one included) is put on the queue yielded."""
        heard: asyncio.Queue[str] = asyncio.Queue()

        def on_notice(_connection: Any, _pid: int, _channel: str, payload: str) -> None:
            heard.put_nowait(payload)

        async with self.engine.connect() as connection:
            raw = await connection.get_raw_connection()
            driver: Any = raw.driver_connection  # asyncpg's own connection
            await driver.add_listener(CHANNEL, on_notice)
            try:
                yield heard
            finally:
                with contextlib.suppress(Exception):
                    await driver.remove_listener(CHANNEL, on_notice)
