"""The table hub: a process's tables, started and stopped, and the commands that change them.

It knows nothing of HTTP or WebSockets: the API layer hands it requests and listeners
(anything with a `seat` and non-blocking `send`/`close`). Each command checks its input
and makes its change through the one change pipeline (`changes.TableChanges.run`), with a
pure change function from `seats`, `controls` or `moves`. Its parts, each in its module
(docs/architecture.md):

- `changes.py`: the pipeline (lock, change, write, apply, broadcast, notice, retry);
- `room.py`, `rooms.py`: a table in memory and the cache of rooms; `views.py`: what sockets get;
- `presence.py`: sockets per seat across processes, grace timers, the host's absence;
- `autoplay.py`, `bots.py`, `hints.py`, `advice.py`: bot and timer moves, the decision pool,
  hints, the expert's reviews of finished hands;
- `sync.py`: notices from other processes, polling while they cannot arrive, resync;
- `pubsub.py`: notices between processes (Redis); `messages.py`: every message, typed.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Any

import structlog

from server.engine import Action, Rules
from server.engine.fairness import new_key
from server.observability import ACTION_LATENCY, ERRORS, OPEN_TABLES, REFUSED_ACTIONS, ROOMS_LOADED
from server.protocol import History, PublicTable
from server.realtime import advice, collector, controls, hints, moves, seats
from server.realtime.autoplay import Autoplay
from server.realtime.bots import decision_pool, warm
from server.realtime.changes import TableChanges
from server.realtime.effects import ChatDraft, Effects
from server.realtime.errors import TableError
from server.realtime.hosting import hash_token, new_id, new_token
from server.realtime.messages import error
from server.realtime.presence import Presence
from server.realtime.pubsub import TableNotices
from server.realtime.room import Listener, Room
from server.realtime.sync import Sync
from server.realtime.views import public_table, room_table
from server.settings import Settings
from server.store.records import Hosting
from server.store.repository import TableStore

log = structlog.get_logger(__name__)

__all__ = ["Listener", "Room", "TableHub"]


class TableHub:
    """Every table this process serves, and the commands that change them."""

    def __init__(self, store: TableStore, settings: Settings, notices: TableNotices) -> None:
        self.store = store
        self.settings = settings
        self.notices = notices
        self.changes = TableChanges(store, notices, settings)
        self.presence = Presence(self.changes)
        self.autoplay = Autoplay(self.changes)
        self.sync = Sync(self.changes, self.presence)
        self.tasks: list[asyncio.Task[None]] = []

    @property
    def closing(self) -> bool:
        return self.changes.closing

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, single_process: bool) -> None:
        """Resume every unfinished game where a bot plays (the others wait in the database
        until someone comes back); a lone process first forgets stale presence."""
        if single_process:
            await self.store.forget_presence()
        self.changes.shared = not single_process
        # Read when scraped: the gauge is this hub's own count, never one that drifts.
        ROOMS_LOADED.set_function(lambda: len(self.rooms))
        await self.notices.start(self.sync.on_remote_change, self.sync.resync, self.sync.on_watched)
        OPEN_TABLES.set(await self.store.count_tables(("waiting", "playing")))
        resumable = await self.store.table_ids(("playing",), limit=1_000_000, with_bots=True)
        for table_id in resumable:
            try:
                room = await self.room(table_id)
            except Exception:
                # One unreadable table must not keep every other table offline.
                ERRORS.labels(where="resume").inc()
                log.exception("game not resumed", table=table_id)
                continue
            log.info("game resumed", table=room.id, version=room.stored.version)
        if self.settings.bot_processes > 0:
            # Every decision process starts now, beside the loop, rather than at the first
            # bot move, hint or timer move (which would wait for the forkserver's imports).
            processes = self.settings.bot_processes
            warming = asyncio.to_thread(warm, decision_pool(processes), processes)
            self.changes.in_background(warming, "bot_pool")
        collector.tune(self.settings)
        self.tasks.append(asyncio.create_task(self.changes.rooms.sweep(lambda: self.closing)))
        if self.changes.shared:
            self.tasks.append(asyncio.create_task(self.presence.keep()))
            self.tasks.append(asyncio.create_task(self.sync.poll_while_deaf()))

    async def shutdown(self) -> None:
        """Stop bots and timers, let in-flight changes finish, close sockets with 1012, and
        give back the store's kept connection."""
        self.changes.closing = True
        for task in self.tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for room in list(self.rooms.values()):
            # Once the lock is free, no change is half done: a bot is asleep or waiting.
            tasks = await self.changes.read(room, stop_tasks)
            for listener in list(room.sockets.listeners):
                await listener.close(1012, "server restarting")
            await asyncio.gather(*tasks, return_exceptions=True)
        await self.store.close()

    # -- reading -----------------------------------------------------------------------------

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms this process serves now, by table id."""
        return self.changes.rooms.served

    async def room(self, table_id: str) -> Room:
        """The room of a table, loaded from the database on first use (or after eviction)."""
        return await self.changes.rooms.get(table_id)

    def evict_idle(self) -> int:
        """Drop every idle room (`Rooms.evict_idle`); returns how many."""
        return self.changes.rooms.evict_idle()

    async def check_presence(self) -> None:
        """One round of presence renewal and repair (`Presence.check`)."""
        await self.presence.check()

    async def poll_versions(self) -> None:
        """One round of reading the served tables' versions (`Sync.poll_versions`)."""
        await self.sync.poll_versions()

    async def lobby(self) -> list[PublicTable]:
        """Open tables and live games, newest first, read from the database: listing a
        table does not load its game."""
        tables = await self.store.summaries(("waiting", "playing"))
        return [public_table(table) for table in tables]

    async def table_info(self, table_id: str) -> PublicTable:
        """Public table info as stored: read under the room's lock, so a change whose
        commit is still under way (or fails) is never shown."""
        return await self.changes.read(await self.room(table_id), room_table)

    async def history(self, table_id: str) -> History:
        room = await self.room(table_id)
        hands = await self.store.hands(room.id, room.stored.game_number)
        return {"id": room.id, "game_number": room.stored.game_number, "hands": hands}

    # -- HTTP-side changes -------------------------------------------------------------------

    async def create_table(
        self,
        name: str | None,
        rules: Rules,
        listed: bool = False,
        turn_seconds: int | None = None,
        hints: bool | None = None,
    ) -> tuple[Room, str, str]:
        """A new table; returns its room, its invite and the host token (each shown once,
        stored only as a hash). Hints are on at friends' (unlisted) tables unless said."""
        table_id = new_id()
        invite, host_token = secrets.token_urlsafe(12), new_token()
        hosts = Hosting(
            listed=listed,
            invite_hash=hash_token(invite),
            host_hash=hash_token(host_token),
            turn_seconds=turn_seconds,
            hints=not listed if hints is None else hints,
        )
        await self.store.create_table(
            table_id,
            name or f"Table {table_id}",
            rules.model_dump(mode="json"),
            rules.players,
            hosts,
            # Its first hand's server seed: the tables' first state shows its commitment.
            new_key().hex(),
        )
        OPEN_TABLES.inc()
        room = await self.room(table_id)
        log.info("table created", table=table_id, version=room.stored.version, listed=listed)
        return room, invite, host_token

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        invite: str | None = None,
        host_token: str | None = None,
        token: str | None = None,
        admitted: bool = False,
        theirs: frozenset[str] = frozenset(),
    ) -> str:
        """Seat a person; returns their token (shown once, stored only as a hash). The
        host's token makes the seat the host's. `token`: the seat token to give (a fresh
        one when None); `admitted`: seated without the invite (a club's member);
        `theirs`: hashes of the member's earlier seat tokens here (`seats.take`)."""
        room = await self.room(table_id)
        token = token or new_token()
        room = await self.changes.run(
            room, seats.take, seat, name, token, invite, host_token, admitted, theirs
        )
        await self.changes.run(room, moves.start_if_full)
        return token

    async def add_bot(
        self,
        table_id: str,
        seat: int,
        level: str,
        invite: str | None = None,
        host_token: str | None = None,
        admitted: bool = False,
    ) -> None:
        """A bot in an empty seat; `admitted`: without the invite (a club night's table)."""
        room = await self.room(table_id)
        room = await self.changes.run(
            room, seats.add_bot, seat, level, invite, host_token, admitted
        )
        await self.changes.run(room, moves.start_if_full)

    # -- a club night's tables (its host's controls checked by the caller) --------------------

    async def reserve_seat(self, table_id: str, seat: int, name: str, token: str) -> None:
        """Keep an empty seat for a night's member, a bot playing for them until they come."""
        room = await self.room(table_id)
        room = await self.changes.run(room, seats.reserve, seat, name, token)
        await self.changes.run(room, moves.start_if_full)

    async def hand_over_seat(self, table_id: str, seat: int, name: str, token: str) -> None:
        """Give a night's seat to its member with the fresh `token` (`controls.hand_over`)."""
        await self.changes.run(await self.room(table_id), controls.hand_over, seat, name, token)

    async def close_table(self, table_id: str) -> None:
        """Close a night's table when the night ends (`controls.close`)."""
        await self.changes.run(await self.room(table_id), controls.close)

    async def leave_seat(self, table_id: str, seat: int, token: str) -> None:
        """The seat's player leaves, or the host removes whoever sits there; before the
        game starts."""
        await self.changes.run(await self.room(table_id), seats.leave, seat, token)

    async def rematch(self, table_id: str, token: str) -> Room:
        return await self.changes.run(await self.room(table_id), moves.rematch, token)

    # -- host controls -----------------------------------------------------------------------

    async def move_seat(self, table_id: str, token: str, seat: int, to: int) -> Room:
        """Before the game: the occupant of `seat` moves to `to`; an occupant there swaps."""
        return await self.changes.run(await self.room(table_id), controls.move, token, seat, to)

    async def stand_in(self, table_id: str, token: str, seat: int) -> Room:
        """During a game: a bot plays for the away player of `seat` until they return."""
        return await self.changes.run(await self.room(table_id), controls.stand_in, token, seat)

    async def reissue_seat(self, table_id: str, token: str, seat: int, name: str | None) -> str:
        """Give a seat to a new person: a fresh token (returned), the old one stops working.
        A bot's seat becomes a person's, the bot playing for them until they arrive."""
        fresh = new_token()
        room = await self.room(table_id)
        await self.changes.run(room, controls.reissue, token, seat, name, fresh)
        return fresh

    async def change_settings(
        self,
        table_id: str,
        token: str,
        *,
        rules: Rules | None = None,
        timer: bool = False,
        turn_seconds: int | None = None,
    ) -> Room:
        """The host's settings, in one change: new rules before the first game (a table
        whose seats are all taken then starts), and the turn timer when `timer` (a
        running countdown starts again from now)."""
        room = await self.room(table_id)
        room = await self.changes.run(room, controls.change, token, rules, timer, turn_seconds)
        if rules is not None:
            room = await self.changes.run(room, moves.start_if_full)
        return room

    async def end_table(self, table_id: str, token: str) -> None:
        """The host closes the table: the game stops, nothing more can be changed."""
        await self.changes.run(await self.room(table_id), controls.end, token)

    # -- socket-side changes -----------------------------------------------------------------

    async def join(
        self, room: Room, listener: Listener, token: str | None, host_token: str | None = None
    ) -> None:
        """A socket said hello: authenticate, mark the seat present, send the state."""
        # A token neither the room nor the database knows is answered as a spectator
        # without reloading the table: bad tokens must not cost the players anything.
        seat = None
        if token and (
            room.seat_for_token(token) is not None
            or await self.store.seat_of_token(room.id, hash_token(token)) is not None
        ):
            seat = await self.changes.seat_of(room, token)
        if token and seat is None:
            listener.send(error("bad_token", "That token holds no seat here; watching."))
        await self.presence.hello(room, listener, seat, token, host_token)

    async def leave(self, room: Room, listener: Listener) -> None:
        """A socket closed: a player's seat stays theirs, shown as disconnected."""
        # A room with listeners is never evicted: the listener is in the room served now,
        # which may have replaced the one the socket was given before its hello.
        room = self.rooms.get(room.id, room)
        if listener not in room.sockets.listeners:
            return
        if self.closing:
            self.presence.closed(room, listener)
            return
        with contextlib.suppress(TableError):
            await self.presence.leave(room, listener)

    async def act(
        self,
        room: Room,
        listener: Listener,
        action: Action,
        act_id: Any = None,
        version: int | None = None,
    ) -> None:
        """A player's move; a refusal goes back to that socket only, as an `error`."""
        started = time.perf_counter()
        try:
            await self.changes.run(room, moves.player_move, listener, action, version)
        except TableError as refusal:
            REFUSED_ACTIONS.labels(code=refusal.code).inc()
            listener.send(error(refusal.code, refusal.message, act_id, refusal.reason))
            return
        ACTION_LATENCY.observe(time.perf_counter() - started)

    async def take_back(self, room: Room, listener: Listener) -> None:
        """`back`: a player on autoplay plays for themselves again."""
        try:
            await self.changes.run(room, seats.take_back, listener.seat)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))

    async def hint(self, room: Room, listener: Listener, hint_id: str | int | None = None) -> None:
        """`hint`: the expert bot's choice from the asking seat's own view (`hints.hint`)."""
        await hints.hint(self.settings, room, listener, hint_id)

    async def review(
        self, room: Room, listener: Listener, hand: int, review_id: str | int | None = None
    ) -> None:
        """`review`: the expert bot's choices beside the asking seat's own in a finished
        hand of this game (`advice.review`); answered when thought out."""
        await advice.review(self.settings, room, listener, hand, review_id)

    async def seed(self, room: Room, listener: Listener, value: str) -> None:
        """`seed`: a seated player's own seed for the next deal (`moves.seed`)."""
        try:
            await self.changes.run(room, moves.seed, listener, value)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))

    async def chat(self, room: Room, listener: Listener, text: str) -> None:
        """A chat line (already checked by `messages.Chat`), stored and sent to everyone."""
        try:
            await self.changes.run(room, say, listener, text)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))


def say(room: Room, listener: Listener, text: str) -> Effects:
    seat = listener.seat
    name = room.stored.seats[seat].name if seat is not None else None
    return Effects(chat=ChatDraft(seat, name or "Spectator", text))


def stop_tasks(room: Room) -> list[asyncio.Task[None]]:
    """Cancel a room's bot, grace, turn-timer and host tasks; the tasks."""
    tasks = [*room.tasks.grace_tasks.values()]
    for task in (room.tasks.bot_task, room.tasks.timer_task, room.tasks.host_task):
        if task is not None:
            tasks.append(task)
    for task in tasks:
        task.cancel()
    return tasks
