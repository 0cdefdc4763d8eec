"""The one way in for every change to a table: lock, change, write, apply, broadcast.

`TableChanges.run(room, change, *args)`:
1. takes the room the cache serves now (fetched again if it was evicted), then its lock;
2. calls `change(room, *args)`, a pure function that reads the room (a move may advance
   its engine `Game`) and returns `Effects`, or refuses with a `TableError`;
3. turns the effects into exactly one store call (`update_seats`, `change_rules`,
   `start_game`, `record_action` or `add_chat`); the store raises the table's version
   with an optimistic check;
4. once the write has landed, `apply` changes the room (the only code that does), then
   every socket gets its own `state` (or the chat line), other processes a notice, and the
   followers registered at start-up (bots, turn timer, grace timers, host watch) their turn.

A `VersionConflict` (another process wrote first) reloads the room and calls the change
again; an `Unsure` refusal reloads once and asks again; a `HalfDone` one reloads before
refusing. A move whose write fails is tried again; after the last failure the room is
forgotten (its game is ahead of the database), its sockets are sent away to reconnect, and
it is loaded again in the background.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar

import structlog

from server.engine import Rules
from server.observability import ERRORS, OPEN_TABLES, accepted
from server.protocol import ChatLine
from server.realtime import seats
from server.realtime.effects import Effects
from server.realtime.errors import HalfDone, TableError, Unsure
from server.realtime.messages import chat_message
from server.realtime.moves import timer_moves_after
from server.realtime.pubsub import TableNotices
from server.realtime.room import Listener, Room, shared_rules
from server.realtime.rooms import Rooms
from server.realtime.views import broadcast, tell
from server.settings import Settings
from server.store.action_writes import VersionConflict
from server.store.batch import LandedFailed
from server.store.records import ActionWrite, SeatRecord
from server.store.repository import TableStore

log = structlog.get_logger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

# Calls of a change: conflicts with other processes' writes, and one reload when unsure.
ATTEMPTS = 4
# Pauses between attempts to store a move whose write failed, in seconds.
WRITE_RETRY_DELAYS = (0.05, 0.25, 1.0)
# Pauses before loading a room dropped after a failed write, growing while loading fails.
REVIVE_FIRST, REVIVE_MAX, REVIVE_ATTEMPTS = 0.5, 10.0, 20
OPEN = frozenset(("waiting", "playing"))

Change = Callable[Concatenate[Room, P], Effects]
# Told of every change once it has landed (and of changes with nothing to write).
Follower = Callable[[Room, Effects], None]


class TableChanges:
    """The change pipeline of one process's rooms."""

    def __init__(self, store: TableStore, notices: TableNotices, settings: Settings) -> None:
        self.store = store
        self.rooms = Rooms(store, settings, self.room_loaded, self.room_dropped)
        self.notices = notices
        self.settings = settings
        self.closing = False
        # True when other processes may serve the same tables (Redis).
        self.shared = False
        self.followers: list[Follower] = []
        # Told of each socket of a forgotten room (its `leave` will find no room).
        self.dropped: list[Callable[[Listener], None]] = []
        self.background: set[asyncio.Task[None]] = set()

    def follow(self, follower: Follower) -> None:
        """Register a follower (at start-up): called after every change, in order."""
        self.followers.append(follower)

    # -- the way in ----------------------------------------------------------------------

    async def run(self, room: Room, change: Change[P], *args: P.args, **kwargs: P.kwargs) -> Room:
        """Make one change to the table (see the module's docstring); the room it was made
        in (the one served now)."""
        unsure = False
        for _ in range(ATTEMPTS):
            if room.evicted:  # the room that replaced it after an eviction
                room = await self.rooms.get(room.id)
            async with room.lock:
                if room.evicted:
                    continue
                room.touched = time.monotonic()
                try:
                    effects = change(room, *args, **kwargs)
                    await self._write(room, effects)
                    return room
                except Unsure:
                    if unsure:
                        raise
                    unsure = True
                    await self._reload(room)
                except HalfDone:
                    await self._reload(room)
                    raise
                except VersionConflict:
                    log.info("version conflict", table=room.id, version=room.stored.version)
                    await self._reload(room)
        raise TableError("conflict", "The table changed at the same moment; try again.")

    async def read(self, room: Room, question: Callable[[Room], T]) -> T:
        """`question(room)` under the room's lock: no change is half made meanwhile."""
        while True:
            if room.evicted:
                room = await self.rooms.get(room.id)
            async with room.lock:
                if not room.evicted:
                    return question(room)

    async def seat_of(self, room: Room, token: str) -> int | None:
        """The seat `token` holds; an unknown token may be one another process just gave
        out, so the room is reloaded once before saying no."""

        def find(room: Room) -> int | None:
            return room.seat_for_token(token)

        seat = room.seat_for_token(token)
        if seat is None:
            seat = await self.refresh(room, find)
        return seat

    async def refresh(
        self, room: Room, question: Callable[[Room], T] | None = None, newer: int | None = None
    ) -> T | None:
        """Reload the room from the database (only if it is behind `newer`, when given),
        under its lock, then answer `question`; changes are broadcast."""
        async with room.lock:
            if room.evicted:
                return None
            if newer is None or newer > room.stored.version:
                await self._reload(room)
            return question(room) if question is not None else None

    # -- the one write, and what follows it -------------------------------------------

    async def _write(self, room: Room, effects: Effects) -> None:
        if not effects.writes:
            self._landed(room, effects, room.stored.version)
        elif effects.action is not None:
            await self._store_move(room, effects, effects.action)
        elif effects.chat is not None:
            chat = effects.chat
            line = await self.store.add_chat(
                room.id, room.stored.version, chat.seat, chat.name, chat.text
            )
            self._landed(room, effects, line)
            await self.notices.publish(room.id, room.stored.version)
            return
        elif effects.rules is not None:
            version = await self.store.change_rules(
                room.id,
                room.stored.version,
                effects.rules.model_dump(mode="json"),
                effects.rules.players,
                list(effects.seats),
                **(effects.table or {}),
            )
            self._landed(room, effects, version)
        elif effects.start is not None:
            start = effects.start
            room.stored.game_id, version = await self.store.start_game(
                room.id,
                room.stored.version,
                start.number,
                start.seed,
                start.game.to_state(),
                start.deadline,
            )
            self._landed(room, effects, version)
        else:
            version = await self.store.update_seats(
                room.id, room.stored.version, list(effects.seats), **(effects.table or {})
            )
            self._landed(room, effects, version)
        await self._announce(room, effects)

    def _landed(self, room: Room, effects: Effects, stored: int | ChatLine) -> None:
        """A change has landed (for a move, called from the step that committed it): apply
        it, then every socket hears of it."""
        if isinstance(stored, int):
            written = stored != room.stored.version
            apply(room, effects, stored)
            if effects.sockets is not None:
                effects.sockets(room)
            if written:
                broadcast(room)
        else:
            room.stored.chat.append(stored)
            room.stored.version = stored["version"]
            tell(room, chat_message(stored))
        if effects.then is not None:
            effects.then(room)

    async def _announce(self, room: Room, effects: Effects) -> None:
        """After a change has landed: other processes get a notice, the seats whose
        sockets moved are renewed or released, and the followers do what it asks."""
        if effects.writes:
            await self.notices.publish(room.id, room.stored.version)
        if effects.recount:
            held = room.held_seats()
            await self.notices.renew_seats(
                [(room.id, seat) for seat in sorted(effects.recount & held)],
                self.settings.presence_expiry_seconds,
            )
            for seat in sorted(effects.recount - held):
                await self.notices.seat_closed(room.id, seat)
        for follower in self.followers:
            follower(room, effects)

    def room_loaded(self, room: Room) -> None:
        """A room served from now on: other processes' notices of it are heard."""
        self.notices.watch(room.id)
        self.after_load(room)

    def room_dropped(self, room: Room) -> None:
        """A room no longer served: its notices are not heard any more."""
        self.notices.unwatch(room.id)

    def after_load(self, room: Room) -> None:
        """A room just loaded or reloaded: its followers look at it (a bot turn or a
        countdown may have lost its driver)."""
        for follower in self.followers:
            follower(room, Effects())

    async def _store_move(self, room: Room, effects: Effects, write: ActionWrite) -> None:
        """Commit one move, trying again after a failure that may pass (a busy SQLite
        file, a dropped connection): each attempt is a whole transaction or nothing. A
        commit that did land before its answer was lost shows up as a VersionConflict.
        After the last failure the room is forgotten and the move refused as
        `unavailable`. The move is applied and broadcast from the step that commits it."""

        def landed(version: int) -> None:
            self._landed(room, effects, version)

        for delay in (*WRITE_RETRY_DELAYS, None):
            try:
                await self.store.record_action(write, landed)
                return
            except (VersionConflict, LandedFailed):
                raise
            except Exception as failure:
                retry = delay is not None
                ERRORS.labels(where="store_retry" if retry else "store").inc()
                (log.warning if retry else log.error)(
                    "action not stored, trying again" if retry else "action not stored",
                    table=write.table_id,
                    version=write.old_version,
                    error=type(failure).__name__,
                    # The driver's words ("database is locked"); statement values are
                    # hidden by the engine (hide_parameters), so no card or token shows.
                    reason=str(failure).splitlines()[0][:200] if str(failure) else None,
                )
                if delay is not None:
                    await asyncio.sleep(delay)
                    continue
                self._forget(room)
                raise TableError("unavailable", "The move could not be saved; try again.") from None

    # -- reloading, forgetting, reviving ---------------------------------------------------

    async def _reload(self, room: Room) -> None:
        """The room as the database has it now (under its lock); sockets hear of changes."""
        record = await self.store.load(room.id)
        if record is None:
            return
        seen = room.stored.version
        room.load(record)
        for line in room.stored.chat:
            if line["version"] > seen:
                tell(room, chat_message(line))
        if room.stored.version == seen:
            return
        # Sockets whose token no longer holds their seat (emptied or given to someone new).
        gone = {
            listener.seat
            for listener in room.sockets.listeners
            if listener.seat is not None
            and room.sockets.holders.get(listener) != room.stored.seats[listener.seat].token_hash
        }
        seats.unseat(gone)(room)
        for seat in sorted(gone):
            await self.notices.seat_closed(room.id, seat)
        if room.stored.hosting.host_hash is None:
            room.sockets.host_listeners.clear()
        broadcast(room)
        self.after_load(room)

    def _forget(self, room: Room) -> None:
        """The room's game is ahead of the database (a failed write): drop the room, send
        its sockets away to reconnect, and load it again from the database soon, so that
        its bots and turn timer go on without waiting for somebody to come back."""
        self.rooms.drop(room)
        self.in_background(self._revive(room.id), "store")
        listeners = list(room.sockets.listeners)
        room.sockets.listeners.clear()
        for listener in listeners:
            for dropped in self.dropped:
                dropped(listener)

        async def send_away() -> None:
            for listener in listeners:
                await listener.close(1011, "table reloading, reconnect")

        # As a task, so that the refusal of the move reaches its player before the close.
        self.in_background(send_away(), "store")

    async def _revive(self, table_id: str) -> None:
        delay = REVIVE_FIRST
        for _ in range(REVIVE_ATTEMPTS):
            await asyncio.sleep(delay)
            if self.closing:
                return
            try:
                room = await self.rooms.get(table_id)  # or the room a request loaded meanwhile
            except TableError:
                return
            except Exception:
                ERRORS.labels(where="store").inc()
                log.warning("table not reloaded yet", table=table_id)
                delay = min(delay * 2, REVIVE_MAX)
                continue
            log.info(
                "table reloaded after a failed write", table=table_id, version=room.stored.version
            )
            if not self.shared:  # its sockets were sent away: their seats are away now
                await self.run(room, seats.away_unless_held)
            return

    def in_background(self, work: Awaitable[Any], where: str) -> None:
        """Run `work` as a task kept until it ends; a refusal is dropped, a failure logged
        and counted under `where`."""

        async def run() -> None:
            try:
                await work
            except TableError:
                pass
            except Exception:
                ERRORS.labels(where=where).inc()
                log.exception("background work failed", where=where)

        task = asyncio.get_running_loop().create_task(run())
        self.background.add(task)
        task.add_done_callback(self.background.discard)


def apply(room: Room, effects: Effects, version: int) -> None:
    """A landed change, applied to the room in memory: the only code that changes a room's
    table state (rules, seats, hosting, status, game, version)."""
    room.touched = time.monotonic()
    if version == room.stored.version:  # nothing written: socket steps only
        return
    room.stored.version = version
    status = room.stored.status
    steady = True  # whether the public table but its version and deadline stays as it was
    if effects.rules is not None:
        take_rules(room, effects.rules)
        steady = False
    for seat in effects.seats:
        room.stored.seats[seat.seat] = seat
        steady = False
    if effects.table:
        fields: dict[str, Any] = dict(effects.table)
        room.stored.status = fields.pop("status", room.stored.status)
        if "deal_seeds" in fields:
            room.take_seeds(fields.pop("deal_seeds"))
        if fields:
            room.stored.hosting = replace(room.stored.hosting, **fields)
            if room.stored.hosting.host_hash is None:
                room.sockets.host_listeners.clear()
        steady = set(effects.table) <= {"deadline", "deal_seeds"} and steady
        log.info(
            "table changed",
            table=room.id,
            version=version,
            seats=[seat.seat for seat in effects.seats],
            fields=sorted(effects.table),
        )
    elif effects.seats and effects.action is None:
        log.info(
            "table changed",
            table=room.id,
            version=version,
            seats=[seat.seat for seat in effects.seats],
            fields=[],
        )
    start = effects.start
    if start is not None:
        room.stored.game, room.stored.game_number, room.stored.status = (
            start.game,
            start.number,
            "playing",
        )
        room.stored.open_deals = None
        room.stored.seq, room.stored.hands_saved, room.stored.timer_moves = 0, 0, []
        room.stored.hosting = replace(room.stored.hosting, deadline=start.deadline)
        steady = False
        log.info("game started", table=room.id, version=version, game=start.number)
    move = effects.action
    if move is not None:
        apply_move(room, move)
        steady = steady and not (move.new_hands or move.seats) and move.status == "playing"
    if not steady:
        room.cache.table_rest = None
    if effects.note is not None:
        log.info(effects.note, table=room.id, version=version)
    if (status in OPEN) != (room.stored.status in OPEN):
        OPEN_TABLES.inc() if room.stored.status in OPEN else OPEN_TABLES.dec()


def take_rules(room: Room, rules: Rules) -> None:
    """New rules before the table's first game: its seats follow their number (those
    beyond are empty; new ones come empty) and its tally their sides."""
    room.stored.rules_json, room.stored.rules = shared_rules(rules.model_dump(mode="json"))
    players = rules.players
    held = room.stored.seats[:players]
    room.stored.seats = held + [SeatRecord(seat) for seat in range(len(held), players)]
    room.stored.series = [0] * len(rules.sides)


def apply_move(room: Room, move: ActionWrite) -> None:
    room.stored.seq, room.stored.status = move.seq, move.status
    room.stored.hands_saved += len(move.new_hands)
    if move.deadline != room.stored.hosting.deadline:
        room.stored.hosting = replace(room.stored.hosting, deadline=move.deadline)
    room.stored.timer_moves = (
        []
        if move.new_hands
        else timer_moves_after(room.stored.timer_moves, move.seat, move.action, move.cause)
    )
    for seat in move.seats:
        room.stored.seats[seat.seat] = seat
    accepted(str(move.action.get("type"))).inc()
    if move.status == "over":
        game = room.stored.game
        if game is not None and game.winner is not None:
            room.stored.series[game.winner] += 1
        log.info("game over", table=room.id, version=room.stored.version, winner=move.winner)
