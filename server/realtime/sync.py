"""Keeping a process's rooms in step with the others' writes (several processes, Redis).

Another process's notice of a change reloads the table if we serve it (`on_remote_change`).
While notices cannot arrive (Redis down), the versions of the tables we serve are read
from the database instead (`poll_while_deaf`), so that a table split across processes
keeps playing; when the subscription is back, every room is reloaded (`resync`), since
notices may have been missed.
"""

from __future__ import annotations

import asyncio
import time

import structlog

from server.observability import ERRORS, REMOTE_CHANGES
from server.realtime.changes import TableChanges
from server.realtime.presence import Presence

log = structlog.get_logger(__name__)

# While notices cannot arrive: how often the tables in play are read (a move that crosses
# processes waits half of it on average: players must not feel Redis going), and for how
# long after its last change a table counts as in play.
ACTIVE_POLL_SECONDS = 0.01
ACTIVE_SECONDS = 10.0


class Sync:
    def __init__(self, changes: TableChanges, presence: Presence) -> None:
        self.changes = changes
        self.presence = presence
        # Tables being caught up now: table id -> the newest version heard of.
        self.behind: dict[str, int] = {}

    async def on_remote_change(self, table_id: str, version: int) -> None:
        """Another process changed a table: reload it if we serve it, and broadcast. The
        reload runs beside the notices that follow (one table's slow read never holds up
        another's), and notices heard while it runs are caught up in one more reload. A
        room nothing here needs (no socket, bot, timer or change in progress: one a
        request loaded) is dropped instead, and loaded afresh on its next use, so that a
        process does not reload, move after move, tables whose sockets are elsewhere."""
        room = self.changes.rooms.served.get(table_id)
        if room is None:
            return
        if room.idle_for(time.monotonic()) is not None:
            self.changes.rooms.drop(room)
            return
        if room.sockets.listeners and version > room.stored.version:
            REMOTE_CHANGES.inc()
        running = table_id in self.behind
        self.behind[table_id] = max(version, self.behind.get(table_id, 0))
        if not running:
            self.changes.in_background(self.catch_up(table_id), "sync")

    async def catch_up(self, table_id: str) -> None:
        """Reload a table until it holds the newest version heard of (see
        `on_remote_change`)."""
        try:
            while (version := self.behind.get(table_id)) is not None:
                room = self.changes.rooms.served.get(table_id)
                if room is None:
                    return
                await self.changes.refresh(room, newer=version)
                if room.shown_away():
                    # Another process marked away a seat one of our sockets holds (a race
                    # between its last socket closing and ours opening): it is present.
                    self.changes.in_background(self.presence.restore(room), "presence")
                if self.behind.get(table_id) == version:
                    return
        finally:
            self.behind.pop(table_id, None)

    async def on_watched(self, table_ids: list[str]) -> None:
        """Tables whose notices have just begun to arrive: catch up a change another
        process made between loading them here and listening."""
        for table_id, version in (await self.changes.store.versions(table_ids)).items():
            room = self.changes.rooms.served.get(table_id)
            if room is not None and version > room.stored.version:
                await self.on_remote_change(table_id, version)

    async def poll_while_deaf(self) -> None:
        """With several processes: while notices from the others cannot arrive, read the
        versions of the tables we serve from the database: every `ACTIVE_POLL_SECONDS` those
        in play now (changed within `ACTIVE_SECONDS`: a table split across processes keeps
        its pace), every `settings.outage_poll_seconds` every watched one."""
        settings = self.changes.settings
        every_table = 0.0
        while not self.changes.closing:
            if self.changes.notices.listening:
                await asyncio.sleep(settings.outage_poll_seconds)
                continue
            await asyncio.sleep(ACTIVE_POLL_SECONDS)
            now = time.monotonic()
            everyone = now - every_table >= settings.outage_poll_seconds
            if everyone:
                every_table = now
            try:
                await self.poll_versions(None if everyone else now - ACTIVE_SECONDS)
            except Exception:
                ERRORS.labels(where="store").inc()
                log.warning("table versions not read", exc_info=True)

    async def poll_versions(self, since: float | None = None) -> None:
        """One round of `poll_while_deaf`: reload each watched table that moved on (of
        those changed since the monotonic time `since`, when given)."""
        watched = [
            room.id
            for room in self.changes.rooms.served.values()
            if room.sockets.listeners and (since is None or room.touched >= since)
        ]
        if not watched:
            return
        for table_id, version in (await self.changes.store.versions(watched)).items():
            room = self.changes.rooms.served.get(table_id)
            # Only a table that moved on: an unchanged one would take its lock for nothing,
            # every poll, beside the moves.
            if room is not None and version > room.stored.version:
                await self.on_remote_change(table_id, version)

    async def resync(self) -> None:
        """Notices from other processes may have been missed: reload every table this
        process serves; those that changed are broadcast."""
        for room in list(self.changes.rooms.served.values()):
            try:
                await self.changes.refresh(room)
            except Exception:
                ERRORS.labels(where="store").inc()
                log.exception("table not resynced", table=room.id)
