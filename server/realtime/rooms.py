"""The rooms one process serves: loaded from the database on first use, dropped when idle.

Rooms are a cache of the database, not the only copy: a sweeper drops a room nobody
watches, no bot or grace timer needs, untouched for `settings.room_idle_seconds`
(`evict_idle`), and the next request loads it again. A coroutine may still hold the
dropped `Room`; it is marked `evicted` first, and every holder of a room's lock checks
that mark, so a change is always applied to the room the hub serves now (the hub's
`_mutate` fetches it again). The lobby reads the database and loads no room.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from server.observability import ERRORS
from server.realtime.errors import no_such_table
from server.realtime.hosting import is_id
from server.realtime.room import Room
from server.settings import Settings
from server.store.repository import TableStore

log = structlog.get_logger(__name__)


class Rooms:
    """The room cache: table id -> `Room`. `on_load` sees every room just loaded (a bot
    turn or a countdown in it may have lost its driver, a process that died); `on_drop`
    every room no longer served."""

    def __init__(
        self,
        store: TableStore,
        settings: Settings,
        on_load: Callable[[Room], None],
        on_drop: Callable[[Room], None],
    ) -> None:
        self.store = store
        self.settings = settings
        self.on_load = on_load
        self.on_drop = on_drop
        self.served: dict[str, Room] = {}
        self._loading = asyncio.Lock()

    async def get(self, table_id: str) -> Room:
        """The room of a table, loaded from the database on first use (or after eviction)."""
        room = self.served.get(table_id)
        if room is not None:
            room.touched = time.monotonic()
            return room
        if not is_id(table_id):
            raise no_such_table()
        async with self._loading:
            room = self.served.get(table_id)
            if room is None:
                record = await self.store.load(table_id)
                if record is None:
                    raise no_such_table()
                room = Room(record, self.settings.chat_history)
                self.served[table_id] = room
                self.on_load(room)
        return room

    def drop(self, room: Room) -> None:
        """Stop serving `room`: whoever still holds it must fetch the table again."""
        room.evicted = True
        if self.served.get(room.id) is room:
            del self.served[room.id]
            self.on_drop(room)

    def evict_idle(self) -> int:
        """Drop every room idle for `settings.room_idle_seconds`; returns how many.

        Synchronous on purpose: between the idle check (which includes "nobody holds the
        lock") and the drop, no other coroutine runs. One that was already waiting for the
        lock finds the room marked evicted and fetches the table again."""
        now = time.monotonic()
        limit = self.settings.room_idle_seconds
        evicted = 0
        for room in list(self.served.values()):
            idle = room.idle_for(now)
            if idle is not None and idle >= limit:
                self.drop(room)
                evicted += 1
                log.info(
                    "room evicted", table=room.id, version=room.stored.version, idle=round(idle)
                )
        return evicted

    async def sweep(self, closing: Callable[[], bool]) -> None:
        """Evict idle rooms now and then, until `closing()`."""
        interval = min(max(self.settings.room_idle_seconds / 2, 0.01), 30.0)
        while not closing():
            await asyncio.sleep(interval)
            try:
                self.evict_idle()
            except Exception:
                ERRORS.labels(where="sweeper").inc()
                log.exception("room sweep failed")
