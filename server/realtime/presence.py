"""Who is at a table: sockets per seat across processes, grace timers, the host's absence.

A seat is away (`connected: false`, and its grace timer runs) only when no process holds a
socket for it. One process knows its own sockets; with Redis, several processes also share
who holds which seat (`TableNotices.renew_seats`, entries that expire unless renewed).
When a process's last socket for a seat closes, the seat goes away only if no other live
process holds it; a grace timer hands the seat to a bot only after checking the same.
Every third of `settings.presence_expiry_seconds` each process renews its entries and
looks at the seats of its rooms: a seat shown present that no live process holds (its
process died) is marked away, and a seat shown away while one of our sockets holds it (a
race with another process) is marked present again. Every presence change is a seat change
(`server.realtime.seats`) made through the change pipeline, like any other.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from server.observability import CONNECTED_SOCKETS, ERRORS
from server.realtime import controls, seats, views
from server.realtime.changes import TableChanges
from server.realtime.effects import Effects
from server.realtime.errors import TableError
from server.realtime.hosting import hash_token, host_away, matches
from server.realtime.messages import error
from server.realtime.room import Listener, Room

log = structlog.get_logger(__name__)


class Presence:
    """The presence of one process's rooms; every change goes through `changes.run`."""

    def __init__(self, changes: TableChanges) -> None:
        self.changes = changes
        self.settings = changes.settings
        self.notices = changes.notices
        # The role each counted socket was counted under ("player", "spectator").
        self.roles: dict[int, str] = {}
        changes.follow(self.followed)
        changes.dropped.append(self.uncount)

    # -- sockets ---------------------------------------------------------------------------

    def count(self, listener: Listener, seat: int | None) -> None:
        """Count a socket that said hello, once, under its first role."""
        if id(listener) not in self.roles:
            role = "spectator" if seat is None else "player"
            self.roles[id(listener)] = role
            CONNECTED_SOCKETS.labels(role=role).inc()

    def uncount(self, listener: Listener) -> None:
        CONNECTED_SOCKETS.labels(role=self.roles.pop(id(listener), "spectator")).dec()

    async def hello(
        self,
        room: Room,
        listener: Listener,
        seat: int | None,
        token: str | None,
        host_token: str | None,
    ) -> None:
        """A socket said hello holding `seat` (None: watching): it is counted, its seat
        shown present (others hear of the arrival first), and it gets its `state`."""
        if listener in room.sockets.listeners and listener.seat != seat:
            await self.leave(room, listener)  # the same socket, now for another seat
        if seat is None and listener not in room.sockets.listeners and self.watchers_full(room):
            listener.send(
                error("too_many_watchers", "This table has as many watchers as it can take.")
            )
            await listener.close(1013, "too many watchers")
            return
        if seat is not None:
            # Counted as present everywhere before anything else can look.
            await self.notices.renew_seats([(room.id, seat)], self.settings.presence_expiry_seconds)
        await self.changes.run(room, self.arrival, listener, seat, token, host_token)

    def arrival(
        self,
        room: Room,
        listener: Listener,
        seat: int | None,
        token: str | None,
        host_token: str | None,
    ) -> Effects:
        if seat is not None and token is not None and room.seat_for_token(token) != seat:
            seat = None  # the seat changed hands meanwhile: watching

        def arrive(room: Room) -> None:
            if matches(host_token, room.stored.hosting.host_hash):
                room.sockets.host_listeners.add(listener)
            else:
                room.sockets.host_listeners.discard(listener)
            if seat is not None and token is not None:
                room.sockets.holders[listener] = hash_token(token)
            room.sockets.listeners.discard(listener)  # the others' news first; its own state below

        def welcome(room: Room) -> None:
            listener.seat = seat
            self.count(listener, seat)
            room.sockets.listeners.add(listener)
            listener.send(views.welcome(room, listener))

        here = seats.present(room, seat) if seat is not None else Effects()
        return Effects(seats=here.seats, ungrace=here.ungrace, sockets=arrive, then=welcome)

    def watchers_full(self, room: Room) -> bool:
        watchers = sum(1 for listener in room.sockets.listeners if listener.seat is None)
        return watchers >= self.settings.spectators_per_table

    async def leave(self, room: Room, listener: Listener) -> None:
        """A socket is gone: it stops being counted, and its seat goes away when no socket
        holds it any more, here or in another live process."""
        seat = listener.seat
        room = await self.changes.run(room, self.departure, listener)
        if seat is None or seat in room.held_seats():
            return
        if await self.notices.seat_closed(room.id, seat):
            return  # another process still holds a socket for the seat: it stays present
        await self.changes.run(room, seats.away, seat)

    def departure(self, room: Room, listener: Listener) -> Effects:
        return Effects(sockets=lambda room: self.closed(room, listener))

    def closed(self, room: Room, listener: Listener) -> None:
        """A socket is gone from the room (as a change, or at shut-down): forgotten."""
        room.sockets.listeners.discard(listener)
        room.sockets.host_listeners.discard(listener)
        room.sockets.holders.pop(listener, None)
        self.uncount(listener)

    # -- grace -----------------------------------------------------------------------------

    def followed(self, room: Room, effects: Effects) -> None:
        """After every change: grace timers start and stop as it says; the host watch."""
        for seat in effects.ungrace:
            task = room.tasks.grace_tasks.pop(seat, None)
            if task is not None:
                task.cancel()
        for seat in effects.grace:
            self.start_grace(room, seat)
        self.watch_host(room)

    def start_grace(self, room: Room, seat: int) -> None:
        grace = self.settings.grace_seconds
        if (
            grace is not None
            and room.stored.status == "playing"
            and seat not in room.tasks.grace_tasks
        ):
            room.tasks.grace_tasks[seat] = asyncio.create_task(self.grace(room, seat, grace))

    async def grace(self, room: Room, seat: int, seconds: float) -> None:
        """After the grace time, a bot plays for a player who has not come back. While a
        socket for the seat is open anywhere, the hand-over waits: the process holding it
        marks the seat present (which ends this timer) or, once it closes, away again."""
        await asyncio.sleep(seconds)
        try:
            while seats.needs_stand_in(room.stored.seats[seat], room.stored.status):
                if not await self.held_anywhere(room, seat):
                    with contextlib.suppress(TableError):
                        await self.changes.run(room, seats.grace_over, seat)
                    return
                await asyncio.sleep(self.settings.presence_expiry_seconds / 3)
        finally:
            if room.tasks.grace_tasks.get(seat) is asyncio.current_task():
                del room.tasks.grace_tasks[seat]

    # -- across processes ------------------------------------------------------------------

    async def held_anywhere(self, room: Room, seat: int) -> bool:
        """Whether a socket for the seat is open here or, as far as Redis knows, in any
        live process."""
        if seat in room.held_seats():
            return True
        held = await self.notices.seats_held([(room.id, seat)])
        return bool(held and held[0])

    async def restore(self, room: Room) -> None:
        """Seats our sockets hold that the table shows away: present again."""
        for seat in room.shown_away():
            with contextlib.suppress(TableError):
                await self.changes.run(room, seats.present, seat, False)

    async def keep(self) -> None:
        """With several processes: renew our presence entries and repair the seats of our
        rooms, every third of the expiry."""
        while not self.changes.closing:
            await asyncio.sleep(self.settings.presence_expiry_seconds / 3)
            try:
                await self.check()
            except Exception:
                ERRORS.labels(where="presence").inc()
                log.exception("presence check failed")

    async def check(self) -> None:
        """One round of `keep`: renew, then mark away the seats nobody holds and present
        the seats we hold."""
        rooms = list(self.changes.rooms.served.values())
        held = [(room.id, seat) for room in rooms for seat in room.held_seats()]
        await self.notices.renew_seats(held, self.settings.presence_expiry_seconds)
        unsure = []  # seats shown present that no socket of ours holds
        for room in rooms:
            ours = room.held_seats()
            unsure += [
                (room, seat.seat)
                for seat in room.stored.seats
                if seat.connected and seat.token_hash is not None and seat.seat not in ours
            ]
        counts = await self.notices.seats_held([(room.id, seat) for room, seat in unsure])
        for (room, seat), count in zip(unsure, counts or (), strict=False):
            if count == 0 and not await self.held_anywhere(room, seat):
                with contextlib.suppress(TableError):
                    await self.changes.run(room, seats.away, seat, "seat away, its process gone")
        for room in rooms:
            if room.shown_away():
                await self.restore(room)

    # -- the host's absence ----------------------------------------------------------------

    def watch_host(self, room: Room) -> None:
        """While the host's seat is away and another player is here, count down to
        handing the role on; stop counting when the host is back."""
        away = host_away(room.stored.hosting, room.stored.seats, room.stored.status) is not None
        task = room.tasks.host_task
        if task is not None and not task.done():
            if away:
                return
            task.cancel()
        room.tasks.host_task = None
        if away and not self.changes.closing and not room.evicted:
            room.tasks.host_task = asyncio.create_task(self.host_gone(room))

    async def host_gone(self, room: Room) -> None:
        await asyncio.sleep(self.settings.host_away_seconds)
        room.tasks.host_task = None
        with contextlib.suppress(TableError):
            await self.changes.run(room, controls.pass_host)
