"""Who is at a table: sockets per seat across processes, grace timers, the host's absence.

A seat is away (`connected: false`, and its grace timer runs) only when no process holds a
socket for it. One process knows its own sockets; with Redis, several processes also share
who holds which seat (`TableNotices.renew_seats`, entries that expire unless renewed).
When a process's last socket for a seat closes, the seat goes away only if no other live
process holds it; a grace timer hands the seat to a bot only after checking the same.
Every third of `settings.presence_expiry_seconds` each process renews its entries and
looks at the seats of its rooms: a seat shown present that no live process holds (its
process died) is marked away, and a seat shown away while one of our sockets holds it (a
race with another process) is marked present again. Every presence change is a seat write
through the hub's one commit path, like any other change.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import structlog

from server.observability import CONNECTED_SOCKETS, ERRORS
from server.realtime.autoplay import playing_again
from server.realtime.errors import TableError
from server.realtime.hosting import next_host
from server.realtime.room import Listener, Room

if TYPE_CHECKING:
    from server.realtime.hub import TableHub

log = structlog.get_logger(__name__)


class Presence:
    """The presence of one hub's rooms; every change goes through `hub._mutate`."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self.settings = hub.settings
        self.notices = hub.notices
        # The role each counted socket was counted under ("player", "spectator").
        self._roles: dict[int, str] = {}

    # -- sockets -------------------------------------------------------------------

    def count(self, listener: Listener, seat: int | None) -> None:
        """Count a socket that said hello, once, under its first role."""
        if id(listener) not in self._roles:
            role = "spectator" if seat is None else "player"
            self._roles[id(listener)] = role
            CONNECTED_SOCKETS.labels(role=role).inc()

    def uncount(self, listener: Listener) -> None:
        CONNECTED_SOCKETS.labels(role=self._roles.pop(id(listener), "spectator")).dec()

    async def mark_present(self, room: Room, seat: int, returning: bool = True) -> None:
        """The seat's player is here. `returning` (their hello): any bot playing for them
        stops; otherwise (a presence repair) only the stand-in for an away player."""
        task = room.grace_tasks.pop(seat, None)
        if task is not None:
            task.cancel()
        current = room.seats[seat]
        stand_in = current.autoplay and (returning or current.autoplay_reason != "timer")
        if not current.connected or stand_in:
            present = replace(current, connected=True)
            await self.hub._write_seat(room, playing_again(present) if stand_in else present)

    async def drop_listener(self, room: Room, listener: Listener) -> None:
        room.listeners.discard(listener)
        self.uncount(listener)
        seat = listener.seat
        if seat is None or seat in room.held_seats():
            return
        if await self.notices.seat_closed(room.id, seat):
            return  # another process still holds a socket for the seat: it stays present
        current = room.seats[seat]
        if current.connected and current.token_hash is not None:
            await self.hub._write_seat(room, replace(current, connected=False))
        self.start_grace(room, seat)

    async def unseat(self, room: Room, seats: set[int]) -> None:
        """The sockets on these emptied seats watch from now on; this process no longer
        holds the seats (for presence across processes)."""
        for listener in room.listeners:
            if listener.seat in seats:
                listener.seat = None
                room.holders.pop(listener, None)
        for seat in seats:
            await self.notices.seat_closed(room.id, seat)

    async def seats_moved(self, room: Room, seats: set[int]) -> None:
        """Presence across processes after sockets moved between these seats."""
        held = room.held_seats()
        await self.notices.renew_seats(
            [(room.id, seat) for seat in sorted(seats & held)],
            self.settings.presence_expiry_seconds,
        )
        for seat in seats - held:
            await self.notices.seat_closed(room.id, seat)

    # -- grace -----------------------------------------------------------------------

    def start_grace(self, room: Room, seat: int) -> None:
        grace = self.settings.grace_seconds
        if grace is not None and room.status == "playing" and seat not in room.grace_tasks:
            room.grace_tasks[seat] = asyncio.create_task(self._grace(room, seat, grace))

    async def _grace(self, room: Room, seat: int, seconds: float) -> None:
        """After the grace time, a bot plays for a player who has not come back. While a
        socket for the seat is open anywhere, the hand-over waits: the process holding it
        marks the seat present (which ends this timer) or, once it closes, away again."""
        await asyncio.sleep(seconds)

        async def hand_over(room: Room) -> bool:
            current = room.seats[seat]
            if (
                current.connected
                or current.autoplay
                or current.token_hash is None
                or room.status != "playing"
            ):
                room.grace_tasks.pop(seat, None)
                return True
            if await self._held_anywhere(room, seat):
                return False
            room.grace_tasks.pop(seat, None)
            await self.hub._write_seat(
                room, replace(current, autoplay=True, autoplay_reason="away")
            )
            return True

        with contextlib.suppress(TableError):
            while not await self.hub._mutate(room, hand_over):
                await asyncio.sleep(self.settings.presence_expiry_seconds / 3)

    # -- across processes --------------------------------------------------------------

    async def _held_anywhere(self, room: Room, seat: int) -> bool:
        """Whether a socket for the seat is open here or, as far as Redis knows, in any
        live process."""
        if seat in room.held_seats():
            return True
        held = await self.notices.seats_held([(room.id, seat)])
        return bool(held and held[0])

    async def restore(self, room: Room) -> None:
        """Seats our sockets hold that the table shows away: present again."""
        for seat in room.shown_away():
            await self.mark_present(room, seat, returning=False)

    async def _mark_gone(self, room: Room, *, seat: int) -> None:
        """A seat shown present whose sockets are gone from every live process (its
        process died): away, and its grace timer starts."""
        current = room.seats[seat]
        if not current.connected or current.token_hash is None:
            return
        if await self._held_anywhere(room, seat):
            return
        await self.hub._write_seat(room, replace(current, connected=False))
        log.info("seat away, its process gone", table=room.id, version=room.version, seat=seat)
        self.start_grace(room, seat)

    async def keep(self) -> None:
        """With several processes: renew our presence entries and repair the seats of our
        rooms, every third of the expiry."""
        while not self.hub.closing:
            await asyncio.sleep(self.settings.presence_expiry_seconds / 3)
            try:
                await self.check()
            except Exception:
                ERRORS.labels(where="presence").inc()
                log.exception("presence check failed")

    async def check(self) -> None:
        """One round of `keep`: renew, then mark away the seats nobody holds and present
        the seats we hold."""
        rooms = list(self.hub.rooms.values())
        held = [(room.id, seat) for room in rooms for seat in room.held_seats()]
        await self.notices.renew_seats(held, self.settings.presence_expiry_seconds)
        unsure = []  # seats shown present that no socket of ours holds
        for room in rooms:
            ours = room.held_seats()
            unsure += [
                (room, seat.seat)
                for seat in room.seats
                if seat.connected and seat.token_hash is not None and seat.seat not in ours
            ]
        counts = await self.notices.seats_held([(room.id, seat) for room, seat in unsure])
        for (room, seat), count in zip(unsure, counts or (), strict=False):
            if count == 0:
                with contextlib.suppress(TableError):
                    await self.hub._mutate(room, partial(self._mark_gone, seat=seat))
        for room in rooms:
            if room.shown_away():
                with contextlib.suppress(TableError):
                    await self.hub._mutate(room, self.restore)

    async def away_unless_held(self, room: Room) -> None:
        """Seats shown present that no socket of this (only) process holds: away, with
        their grace time started."""
        held = room.held_seats()
        gone = [
            replace(seat, connected=False)
            for seat in room.seats
            if seat.connected and seat.token_hash is not None and seat.seat not in held
        ]
        if gone:
            await self.hub._write_seats(room, gone)
            for seat in gone:
                self.start_grace(room, seat.seat)

    # -- the host's absence --------------------------------------------------------------

    def watch_host(self, room: Room) -> None:
        """While the host's seat is away and another player is here, count down to
        handing the role on; stop counting when the host is back."""
        seat = room.hosting.host_seat
        successor = next_host(room.seats, seat) if seat is not None else None
        away = (
            seat is not None
            and room.status != "ended"
            and not room.seats[seat].connected
            and room.seats[seat].token_hash is not None
            and successor is not None
            and room.seats[successor].connected
        )
        task = room.host_task
        if task is not None and not task.done():
            if away:
                return
            task.cancel()
        room.host_task = None
        if away and not self.hub.closing and not room.evicted:
            room.host_task = asyncio.create_task(self._host_away(room))

    async def _host_away(self, room: Room) -> None:
        await asyncio.sleep(self.settings.host_away_seconds)

        async def hand_on(room: Room) -> None:
            seat = room.hosting.host_seat
            if seat is None or room.seats[seat].connected or room.status == "ended":
                return
            successor = next_host(room.seats, seat)
            if successor is None or not room.seats[successor].connected:
                return
            await self.hub._write_seats(room, [], host_seat=successor, host_hash=None)
            log.info("host role passed on", table=room.id, version=room.version, seat=successor)

        room.host_task = None
        with contextlib.suppress(TableError):
            await self.hub._mutate(room, hand_on)
