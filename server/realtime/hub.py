"""The table hub: the master that applies changes to tables and tells every socket.

It knows nothing of HTTP or WebSockets: the API layer hands it requests and listeners
(anything with a `seat` and non-blocking `send`/`close`). For every table the hub keeps
a `Room` in memory: the table's seats, version and engine `Game`, a lock, and the
listeners watching it.

Each change runs under the room's lock, one at a time, in one direction:
validate -> engine -> commit to the database -> broadcast a view per listener ->
notify other processes. The database commit raises the table's version with an
optimistic check; when another process wrote first, the room is reloaded from the
database and the change is validated again.

Rooms are a cache of the database, not the only copy: a sweeper drops a room nobody
watches, no bot or grace timer needs, untouched for `settings.room_idle_seconds`
(`evict_idle`), and the next request loads it again. A coroutine may still hold the
dropped `Room`; it is marked `evicted` first, and every holder of a room's lock checks
that mark, so a change is always applied to the room the hub serves now (`_mutate`
fetches it again). The lobby reads the database and loads no room.

Presence: a seat is away (`connected: false`, and its grace timer runs) only when no
process holds a socket for it. One process knows its own sockets; with Redis, several
processes also share who holds which seat (`TableNotices.renew_seats`, entries that expire
unless renewed). When a process's last socket for a seat closes, the seat goes away only
if no other live process holds it; a grace timer hands the seat to a bot only after
checking the same. Every third of `settings.presence_expiry_seconds` each process renews
its entries and looks at the seats of its rooms: a seat shown present that no live process
holds (its process died) is marked away, and a seat shown away while one of our sockets
holds it (a race with another process) is marked present again. Every presence change is
a seat write through `_mutate`, like any other change.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import structlog

from server.engine import Game, IllegalAction, Rules
from server.observability import (
    ACTION_LATENCY,
    ACTIONS,
    CONNECTED_SOCKETS,
    ERRORS,
    OPEN_TABLES,
    REFUSED_ACTIONS,
    ROOMS_LOADED,
)
from server.realtime.errors import TableError, no_such_seat, no_such_table
from server.realtime.pubsub import TableNotices
from server.settings import Settings
from server.store.repository import (
    ActionWrite,
    SeatRecord,
    TableRecord,
    TableStore,
    TableSummary,
    VersionConflict,
    iso,
)

log = structlog.get_logger(__name__)

T = TypeVar("T")

# Keys an action dict may carry (CONTRACT.md); anything else is dropped before the
# engine sees it, so the action log stores only what the rules define.
ACTION_KEYS = ("type", "bid", "card", "declare", "cards", "keep")
WRITE_ATTEMPTS = 3
# The bot that plays for a player who is away past the grace time.
AUTOPLAY_LEVEL = "advanced"
# How long a process's claim to drive a table's bots lasts unless renewed (plus bot_delay).
BOT_CLAIM_SECONDS = 5.0
TABLE_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


class Listener(Protocol):
    """One socket watching a table: a seat (None for a spectator) and a mailbox."""

    seat: int | None

    def send(self, message: dict[str, Any]) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...


def hash_token(token: str) -> str:
    """SHA-256 hex of a seat token: the only form in which tokens are stored.

    >>> hash_token("secret")[:16]
    '2bb80d537b1da3e3'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def load_game(rules: Rules, record: TableRecord) -> Game | None:
    """The table's current game: its snapshot, then any actions logged after it."""
    if record.game is None:
        return None
    game = Game.from_state(record.game.snapshot)
    for _seq, seat, action in record.game.later_actions:
        game.act(seat, action)
    return game


class Room:
    """A table in memory: what the database says, plus its lock and listeners."""

    def __init__(self, record: TableRecord, chat_history: int) -> None:
        self.lock = asyncio.Lock()
        self.listeners: set[Listener] = set()
        self.bot_task: asyncio.Task[None] | None = None
        self.grace_tasks: dict[int, asyncio.Task[None]] = {}
        # Wakes a bot task that stands by while another process drives the bots.
        self.bot_nudge = asyncio.Event()
        self.rng = random.Random()
        self.chat: deque[dict[str, Any]] = deque(maxlen=chat_history)
        # Set once the hub has dropped this room; whoever still holds it fetches it again.
        self.evicted = False
        self.touched = time.monotonic()
        self.load(record)

    def load(self, record: TableRecord) -> None:
        self.id = record.id
        self.name = record.name
        self.rules_json = record.rules
        self.rules = Rules.model_validate(record.rules)
        self.status = record.status
        self.version = record.version
        self.game_number = record.game_number
        self.created = record.created
        self.seats = record.seats
        self.game = load_game(self.rules, record)
        self.game_id = record.game.id if record.game else None
        self.seq = record.game.snapshot_seq + len(record.game.later_actions) if record.game else 0
        self.hands_saved = record.game.hands_saved if record.game else 0
        self.chat.clear()
        self.chat.extend(record.chat)

    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        found = None
        for seat in self.seats:
            # Compare against every seat, in constant time, so timing says nothing.
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = seat.seat
        return found

    def held_seats(self) -> set[int]:
        """The seats a socket of this process holds."""
        return {listener.seat for listener in self.listeners if listener.seat is not None}

    def shown_away(self) -> list[int]:
        """Seats a socket of this process holds that the table shows away or autoplayed."""
        return [
            seat
            for seat in sorted(self.held_seats())
            if not self.seats[seat].connected or self.seats[seat].autoplay
        ]

    def bot_seat(self) -> tuple[int, str] | None:
        """The seat a bot must act for now, with the bot's level, if any."""
        if self.game is None or self.status != "playing":
            return None
        for seat in self.game.turn:
            record = self.seats[seat]
            if record.bot is not None:
                return seat, record.bot
            if record.autoplay:
                return seat, AUTOPLAY_LEVEL
        return None

    def idle_for(self, now: float) -> float | None:
        """Seconds since the room was last used, or None while anything needs it: a
        listener, a change in progress, a bot turn or bot task, a grace timer."""
        if (
            self.listeners
            or self.lock.locked()
            or (self.bot_task is not None and not self.bot_task.done())
            or any(not task.done() for task in self.grace_tasks.values())
            or self.bot_seat() is not None
        ):
            return None
        return now - self.touched

    def summary(self) -> TableSummary:
        game = self.game
        return TableSummary(
            id=self.id,
            name=self.name,
            rules=self.rules_json,
            status=self.status,
            version=self.version,
            game_number=self.game_number,
            created=self.created,
            seats=self.seats,
            scores=game.scores if game is not None else [],
            winner=game.winner if game is not None else None,
            hands_played=len(game.hand_results) if game is not None else 0,
        )

    def public(self) -> dict[str, Any]:
        """Public table info (docs/protocol.md): never a token, never a hidden card."""
        return public_table(self.summary())

    def state_message(self, seat: int | None, view: Any) -> dict[str, Any]:
        return {
            "type": "state",
            "version": self.version,
            "seat": seat,
            "state": view,
            "table": self.public(),
        }

    def view(self, seat: int | None) -> Any:
        return self.game.view(seat) if self.game is not None else None


def public_table(table: TableSummary) -> dict[str, Any]:
    """The `table` object of docs/protocol.md, from memory (a room) or the database
    (the lobby): never a token, never a hidden card."""
    return {
        "id": table.id,
        "name": table.name,
        "url": f"/t/{table.id}",
        "rules": table.rules,
        "status": table.status,
        "version": table.version,
        "game_number": table.game_number,
        "seats": [public_seat(seat) for seat in table.seats],
        "scores": table.scores,
        "winner": table.winner,
        "hands_played": table.hands_played,
        "created": iso(table.created),
    }


def public_seat(seat: SeatRecord) -> dict[str, Any]:
    info: dict[str, Any] = {
        "seat": seat.seat,
        "name": seat.name,
        "bot": seat.bot,
        "connected": seat.connected or seat.bot is not None,
    }
    if seat.autoplay:
        info["autoplay"] = True
    return info


def hand_fields(result: dict[str, Any]) -> dict[str, Any]:
    """One engine hand summary as a `hands` row. `sides` keeps the engine's whole
    breakdown (points, score, bags after the hand, contract, taken, bag penalty, nils)."""
    return {
        "dealer": result.get("dealer"),
        "bids": result["bids"],
        "tricks": result["tricks"],
        "deal": result["deal"],
        "sides": result["sides"],
    }


class TableHub:
    """Every table this process serves; the only code that changes a table."""

    def __init__(self, store: TableStore, settings: Settings, notices: TableNotices) -> None:
        self.store = store
        self.settings = settings
        self.notices = notices
        self.rooms: dict[str, Room] = {}
        self.closing = False
        self._loading = asyncio.Lock()
        self._roles: dict[int, str] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        # True when other processes may serve the same tables (Redis): presence is shared.
        self._shared = False
        self._presence_keeper: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------

    async def start(self, single_process: bool) -> None:
        """Resume every unfinished game where a bot plays (the others wait in the database
        until someone comes back); a lone process first forgets stale presence."""
        if single_process:
            await self.store.forget_presence()
        self._shared = not single_process
        # Read when scraped: the gauge is this hub's own count, never one that drifts.
        ROOMS_LOADED.set_function(lambda: len(self.rooms))
        await self.notices.start(self.on_remote_change, self.resync)
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
            log.info("game resumed", table=room.id, version=room.version)
            self._schedule_bots(room)
        self._sweeper = asyncio.create_task(self._sweep_idle_rooms())
        if self._shared:
            self._presence_keeper = asyncio.create_task(self._keep_presence())

    async def shutdown(self) -> None:
        """Stop bots and timers, let in-flight changes finish, close sockets with 1012."""
        self.closing = True
        for task in (self._sweeper, self._presence_keeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in list(self.rooms.values()):
            # Holding the lock, no change is half done: a bot is asleep or waiting.
            async with room.lock:
                tasks = [*room.grace_tasks.values()]
                if room.bot_task is not None:
                    tasks.append(room.bot_task)
                for task in tasks:
                    task.cancel()
                for listener in list(room.listeners):
                    await listener.close(1012, "server restarting")
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- reading -----------------------------------------------------------------

    async def room(self, table_id: str) -> Room:
        """The room of a table, loaded from the database on first use (or after eviction)."""
        room = self.rooms.get(table_id)
        if room is not None:
            room.touched = time.monotonic()
            return room
        if not 0 < len(table_id) <= 16 or not set(table_id) <= TABLE_ID_CHARS:
            raise no_such_table()
        async with self._loading:
            room = self.rooms.get(table_id)
            if room is None:
                record = await self.store.load(table_id)
                if record is None:
                    raise no_such_table()
                room = Room(record, self.settings.chat_history)
                self.rooms[table_id] = room
                # A bot turn waiting here may have lost its driver (a process that died).
                self._schedule_bots(room)
        return room

    async def _current(self, room: Room) -> Room:
        """`room`, or the room that replaced it after an eviction."""
        return await self.room(room.id) if room.evicted else room

    async def lobby(self) -> list[dict[str, Any]]:
        """Open tables and live games, newest first, read from the database: listing a
        table does not load its game."""
        tables = await self.store.summaries(("waiting", "playing"))
        return [public_table(table) for table in tables]

    async def history(self, table_id: str) -> dict[str, Any]:
        room = await self.room(table_id)
        hands = await self.store.hands(room.id, room.game_number)
        return {"id": room.id, "game_number": room.game_number, "hands": hands}

    # -- HTTP-side changes -------------------------------------------------------

    async def create_table(self, name: str | None, rules: Rules) -> Room:
        table_id = secrets.token_urlsafe(6)
        await self.store.create_table(
            table_id, name or f"Table {table_id}", rules.model_dump(mode="json"), rules.players
        )
        OPEN_TABLES.inc()
        room = await self.room(table_id)
        log.info("table created", table=table_id, version=room.version)
        return room

    async def take_seat(self, table_id: str, seat: int, name: str) -> str:
        """Seat a person; returns their token (shown once, stored only as a hash)."""
        room = await self.room(table_id)
        token = secrets.token_urlsafe(24)

        async def take(room: Room) -> None:
            current = self._empty_seat(room, seat)
            taken = SeatRecord(current.seat, name=name, token_hash=hash_token(token))
            await self._write_seat(room, taken)

        await self._mutate(room, take)
        await self._mutate(room, self._start_if_full)
        return token

    async def add_bot(self, table_id: str, seat: int, level: str) -> None:
        room = await self.room(table_id)

        async def seat_bot(room: Room) -> None:
            current = self._empty_seat(room, seat)
            bot = SeatRecord(current.seat, name=f"Bot ({level})", bot=level, connected=True)
            await self._write_seat(room, bot)

        await self._mutate(room, seat_bot)
        await self._mutate(room, self._start_if_full)

    async def leave_seat(self, table_id: str, seat: int, token: str) -> None:
        room = await self.room(table_id)

        async def leave(room: Room) -> None:
            if not 0 <= seat < len(room.seats):
                raise no_such_seat()
            if await self._seat_for(room, token) != seat:
                raise TableError("bad_token", "That token does not hold this seat.", 401)
            if room.status != "waiting":
                raise TableError("started", "The game has started; the seat is kept.", 409)
            await self._write_seat(room, SeatRecord(seat))
            await self._unseat(room, {seat} & room.held_seats())

        await self._mutate(room, leave)

    async def rematch(self, table_id: str, token: str) -> Room:
        room = await self.room(table_id)

        async def again(room: Room) -> Room:
            if await self._seat_for(room, token) is None:
                raise TableError("bad_token", "Only a seated player may ask for a rematch.", 401)
            if room.status != "over":
                raise TableError("not_over", "The game is not over yet.", 409)
            await self._start_game(room)
            OPEN_TABLES.inc()
            return room

        return await self._mutate(room, again)

    # -- socket-side changes -----------------------------------------------------

    async def join(self, room: Room, listener: Listener, token: str | None) -> None:
        """A socket said hello: authenticate, mark the seat present, send the state."""

        async def hello(room: Room) -> None:
            seat = await self._seat_for(room, token) if token else None
            if token and seat is None:
                listener.send(error("bad_token", "That token holds no seat here; watching."))
            if listener in room.listeners and listener.seat != seat:
                await self._drop_listener(room, listener)
            if seat is not None:
                # Counted as present everywhere before anything else can look.
                await self.notices.renew_seats(
                    [(room.id, seat)], self.settings.presence_expiry_seconds
                )
                # Others hear of the arrival first; this socket gets its answer below.
                room.listeners.discard(listener)
                await self._mark_present(room, seat)
            listener.seat = seat
            if id(listener) not in self._roles:
                role = "spectator" if seat is None else "player"
                self._roles[id(listener)] = role
                CONNECTED_SOCKETS.labels(role=role).inc()
            room.listeners.add(listener)
            message = room.state_message(seat, room.view(seat))
            message["chat"] = list(room.chat)
            listener.send(message)

        await self._mutate(room, hello)

    async def leave(self, room: Room, listener: Listener) -> None:
        """A socket closed: a player's seat stays theirs, shown as disconnected."""
        # A room with listeners is never evicted: the listener is in the room served now,
        # which may have replaced the one the socket was given before its hello.
        room = self.rooms.get(room.id, room)
        if listener not in room.listeners:
            return
        if self.closing:
            room.listeners.discard(listener)
            CONNECTED_SOCKETS.labels(role=self._roles.pop(id(listener), "spectator")).dec()
            return
        with contextlib.suppress(TableError):
            await self._mutate(room, lambda room: self._drop_listener(room, listener))

    async def act(
        self,
        room: Room,
        listener: Listener,
        action: dict[str, Any],
        act_id: Any = None,
        version: int | None = None,
    ) -> None:
        """A player's move; a refusal goes back to that socket only, as an `error`."""
        started = time.perf_counter()
        action = {key: action[key] for key in ACTION_KEYS if key in action}

        async def move(room: Room) -> None:
            if listener.seat is None:
                raise TableError("not_seated", "Spectators cannot play; take a seat first.")
            if version is not None and version != room.version:
                raise TableError(
                    "stale", f"The table moved on (version {room.version}); look again."
                )
            await self._apply(room, listener.seat, action)

        try:
            await self._mutate(room, move)
        except TableError as refusal:
            REFUSED_ACTIONS.labels(code=refusal.code).inc()
            listener.send(error(refusal.code, refusal.message, act_id))
            return
        ACTION_LATENCY.observe(time.perf_counter() - started)

    async def chat(self, room: Room, listener: Listener, text: Any) -> None:
        if not isinstance(text, str) or not text.strip():
            listener.send(error("bad_chat", "Say something: the message is empty."))
            return
        text = text.strip()
        limit = self.settings.chat_max_length
        if len(text) > limit:
            listener.send(error("bad_chat", f"Chat messages are at most {limit} characters."))
            return

        async def say(room: Room) -> None:
            seat = listener.seat
            name = room.seats[seat].name if seat is not None else None
            new = room.version + 1
            line = await self.store.add_chat(
                room.id, room.version, new, seat, name or "Spectator", text
            )
            room.version = new
            room.chat.append(line)
            for watcher in room.listeners:
                watcher.send({"type": "chat", **line})
            await self.notices.publish(room.id, new)

        try:
            await self._mutate(room, say)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))

    async def on_remote_change(self, table_id: str, version: int) -> None:
        """Another process changed a table: reload it if we serve it, and broadcast."""
        room = self.rooms.get(table_id)
        if room is None:
            return
        async with room.lock:
            if not room.evicted and version > room.version:
                await self._reload(room)
        if room.shown_away():
            # Another process marked away a seat one of our sockets holds (a race between
            # its last socket closing and ours opening): the seat is present.
            self._in_background(self._mutate(room, self._restore_presence), "presence")

    async def resync(self) -> None:
        """Notices from other processes may have been missed (Redis was unreachable):
        reload every table this process serves; those that changed are broadcast."""
        for room in list(self.rooms.values()):
            try:
                async with room.lock:
                    if not room.evicted:
                        await self._reload(room)
            except Exception:
                ERRORS.labels(where="store").inc()
                log.exception("table not resynced", table=room.id)

    # -- the one way a change is made ----------------------------------------------

    async def _mutate(self, room: Room, change: Callable[[Room], Awaitable[T]]) -> T:
        """Run `change(room)` under the lock of the room the hub serves now (`room` may
        have been evicted meanwhile); after a version conflict, reload and retry."""
        for _ in range(WRITE_ATTEMPTS):
            room = await self._current(room)
            async with room.lock:
                if room.evicted:
                    continue
                room.touched = time.monotonic()
                try:
                    return await change(room)
                except VersionConflict:
                    log.info("version conflict", table=room.id, version=room.version)
                    await self._reload(room)
        raise TableError("conflict", "The table changed at the same moment; try again.")

    def _drop_room(self, room: Room) -> None:
        """Stop serving `room`: whoever still holds it must fetch the table again."""
        room.evicted = True
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]

    def evict_idle(self) -> int:
        """Drop every room idle for `settings.room_idle_seconds`; returns how many.

        Synchronous on purpose: between the idle check (which includes "nobody holds the
        lock") and the drop, no other coroutine runs. One that was already waiting for the
        lock finds the room marked evicted and fetches the table again."""
        now = time.monotonic()
        limit = self.settings.room_idle_seconds
        evicted = 0
        for room in list(self.rooms.values()):
            idle = room.idle_for(now)
            if idle is not None and idle >= limit:
                self._drop_room(room)
                evicted += 1
                log.info("room evicted", table=room.id, version=room.version, idle=round(idle))
        return evicted

    async def _sweep_idle_rooms(self) -> None:
        interval = min(max(self.settings.room_idle_seconds / 2, 0.01), 30.0)
        while not self.closing:
            await asyncio.sleep(interval)
            try:
                self.evict_idle()
            except Exception:
                ERRORS.labels(where="sweeper").inc()
                log.exception("room sweep failed")

    async def _forget(self, room: Room) -> None:
        """The room's game is ahead of the database (a failed write): drop the room so the
        next request loads it afresh, and send its sockets away to reconnect."""
        self._drop_room(room)
        listeners = list(room.listeners)
        room.listeners.clear()
        for listener in listeners:  # their `leave` will not find them in any room
            CONNECTED_SOCKETS.labels(role=self._roles.pop(id(listener), "spectator")).dec()

        async def send_away() -> None:
            for listener in listeners:
                await listener.close(1011, "table reloading, reconnect")

        # As a task, so that the refusal of the move reaches its player before the close.
        self._in_background(send_away(), "store")

    async def _seat_for(self, room: Room, token: str) -> int | None:
        """The seat of a token; an unknown token may be one another process just gave
        out, so look again in the database before saying no."""
        seat = room.seat_for_token(token)
        if seat is None:
            await self._reload(room)
            seat = room.seat_for_token(token)
        return seat

    async def _reload(self, room: Room) -> None:
        record = await self.store.load(room.id)
        if record is None:
            return
        seen = room.version
        room.load(record)
        for line in room.chat:
            if line["version"] > seen:
                for listener in room.listeners:
                    listener.send({"type": "chat", **line})
        if room.version == seen:
            return
        await self._unseat(room, {s for s in room.held_seats() if room.seats[s].token_hash is None})
        self._broadcast(room)
        self._schedule_bots(room)

    async def _unseat(self, room: Room, seats: set[int]) -> None:
        """The sockets on these emptied seats watch from now on; this process no longer
        holds the seats (for presence across processes)."""
        for listener in room.listeners:
            if listener.seat in seats:
                listener.seat = None
        for seat in seats:
            await self.notices.seat_closed(room.id, seat)

    def _broadcast(self, room: Room) -> None:
        """Each listener gets its own view, computed now (once per seat)."""
        views: dict[int | None, Any] = {}
        for listener in room.listeners:
            seat = listener.seat
            if seat not in views:
                views[seat] = room.view(seat)
            listener.send(room.state_message(seat, views[seat]))

    async def _committed(self, room: Room) -> None:
        """After a commit: broadcast, tell other processes, let bots move."""
        room.touched = time.monotonic()
        self._broadcast(room)
        await self.notices.publish(room.id, room.version)
        self._schedule_bots(room)

    def _empty_seat(self, room: Room, seat: int) -> SeatRecord:
        if not 0 <= seat < len(room.seats):
            raise no_such_seat()
        current = room.seats[seat]
        if current.name is not None:
            raise TableError("seat_taken", "That seat is taken.", 409)
        return current

    async def _write_seat(self, room: Room, seat: SeatRecord) -> None:
        new = room.version + 1
        await self.store.update_seat(room.id, room.version, new, seat)
        room.seats[seat.seat] = seat
        room.version = new
        log.info("seat changed", table=room.id, version=new, seat=seat.seat)
        await self._committed(room)

    async def _start_if_full(self, room: Room) -> None:
        if room.status == "waiting" and all(seat.name is not None for seat in room.seats):
            await self._start_game(room)

    async def _start_game(self, room: Room) -> None:
        seed = secrets.randbits(62)
        game = Game(room.rules, seed=seed)
        new = room.version + 1
        number = room.game_number + 1
        room.game_id = await self.store.start_game(
            room.id, room.version, new, number, seed, game.to_state()
        )
        room.game, room.game_number, room.version, room.status = game, number, new, "playing"
        room.seq, room.hands_saved = 0, 0
        log.info("game started", table=room.id, version=new, game=number)
        await self._committed(room)
        for seat in room.seats:
            # A player who left before the start gets the same grace as one who leaves later.
            if seat.token_hash is not None and not seat.connected:
                self._start_grace(room, seat.seat)

    async def _apply(self, room: Room, seat: int, action: dict[str, Any]) -> None:
        """Validate with the engine, commit, broadcast. Raises TableError on refusal."""
        game = room.game
        if game is None or room.status == "waiting":
            raise TableError("not_started", "The game has not started yet.")
        if room.status == "over":
            raise TableError("game_over", "The game is over.")
        if seat not in game.turn:
            raise TableError("not_your_turn", "It is not your turn.")
        try:
            game.act(seat, action)
        except IllegalAction as refusal:
            raise TableError("illegal", str(refusal)) from None
        except Exception:
            # The engine should only raise IllegalAction; rebuild it from the database so a
            # half-applied action cannot survive, and refuse.
            ERRORS.labels(where="engine").inc()
            log.exception("engine failed", table=room.id, version=room.version)
            await self._reload(room)
            raise TableError("illegal", "That action is not possible here.") from None
        await self._record(room, seat, action)

    async def _record(self, room: Room, seat: int, action: dict[str, Any]) -> None:
        game = room.game
        assert game is not None and room.game_id is not None
        results = game.hand_results[room.hands_saved :]
        over = game.winner is not None or game.phase == "over"
        write = ActionWrite(
            table_id=room.id,
            old_version=room.version,
            new_version=room.version + 1,
            status="over" if over else "playing",
            game_id=room.game_id,
            seq=room.seq + 1,
            seat=seat,
            action=action,
            # A snapshot after each finished hand; resuming replays the log after it.
            snapshot=game.to_state() if results or over else None,
            new_hands=[hand_fields(result) for result in results],
            first_hand_number=room.hands_saved + 1,
            winner=game.winner,
            final_scores=game.scores if over else None,
        )
        try:
            await self.store.record_action(write)
        except VersionConflict:
            raise
        except Exception as failure:
            ERRORS.labels(where="store").inc()
            log.error(
                "action not stored",
                table=room.id,
                version=room.version,
                error=type(failure).__name__,
            )
            await self._forget(room)
            raise TableError("unavailable", "The move could not be saved; try again.") from None
        room.version, room.seq, room.status = write.new_version, write.seq, write.status
        room.hands_saved += len(results)
        ACTIONS.labels(type=str(action.get("type"))).inc()
        if over:
            OPEN_TABLES.dec()
            log.info("game over", table=room.id, version=room.version, winner=game.winner)
        await self._committed(room)

    # -- presence and bots -------------------------------------------------------

    async def _mark_present(self, room: Room, seat: int) -> None:
        task = room.grace_tasks.pop(seat, None)
        if task is not None:
            task.cancel()
        current = room.seats[seat]
        if not current.connected or current.autoplay:
            present = SeatRecord(
                seat, current.name, current.token_hash, current.bot, connected=True
            )
            await self._write_seat(room, present)

    async def _drop_listener(self, room: Room, listener: Listener) -> None:
        room.listeners.discard(listener)
        CONNECTED_SOCKETS.labels(role=self._roles.pop(id(listener), "spectator")).dec()
        seat = listener.seat
        if seat is None or seat in room.held_seats():
            return
        if await self.notices.seat_closed(room.id, seat):
            return  # another process still holds a socket for the seat: it stays present
        current = room.seats[seat]
        if current.connected and current.token_hash is not None:
            away = SeatRecord(seat, current.name, current.token_hash, current.bot, False, False)
            await self._write_seat(room, away)
        self._start_grace(room, seat)

    def _start_grace(self, room: Room, seat: int) -> None:
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
            await self._write_seat(
                room,
                SeatRecord(seat, current.name, current.token_hash, current.bot, False, True),
            )
            return True

        with contextlib.suppress(TableError):
            while not await self._mutate(room, hand_over):
                await asyncio.sleep(self.settings.presence_expiry_seconds / 3)

    async def _held_anywhere(self, room: Room, seat: int) -> bool:
        """Whether a socket for the seat is open here or, as far as Redis knows, in any
        live process."""
        if seat in room.held_seats():
            return True
        held = await self.notices.seats_held([(room.id, seat)])
        return bool(held and held[0])

    async def _restore_presence(self, room: Room) -> None:
        for seat in room.shown_away():
            await self._mark_present(room, seat)

    async def _mark_gone(self, room: Room, seat: int) -> None:
        """A seat shown present whose sockets are gone from every live process (its
        process died): away, and its grace timer starts."""
        current = room.seats[seat]
        if not current.connected or current.token_hash is None:
            return
        if await self._held_anywhere(room, seat):
            return
        away = SeatRecord(seat, current.name, current.token_hash, current.bot, False, False)
        await self._write_seat(room, away)
        log.info("seat away, its process gone", table=room.id, version=room.version, seat=seat)
        self._start_grace(room, seat)

    async def _keep_presence(self) -> None:
        """With several processes: renew our presence entries and repair the seats of our
        rooms, every third of the expiry."""
        while not self.closing:
            await asyncio.sleep(self.settings.presence_expiry_seconds / 3)
            try:
                await self.check_presence()
            except Exception:
                ERRORS.labels(where="presence").inc()
                log.exception("presence check failed")

    async def check_presence(self) -> None:
        """One round of `_keep_presence`: renew, then mark away the seats nobody holds and
        present the seats we hold."""
        rooms = list(self.rooms.values())
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
                    await self._mutate(room, lambda room, seat=seat: self._mark_gone(room, seat))
        for room in rooms:
            if room.shown_away():
                with contextlib.suppress(TableError):
                    await self._mutate(room, self._restore_presence)

    def _in_background(self, work: Awaitable[Any], where: str) -> None:
        """Run `work` as a task the hub keeps until it ends; a refusal is dropped, a
        failure logged and counted under `where`."""

        async def run() -> None:
            try:
                await work
            except TableError:
                pass
            except Exception:
                ERRORS.labels(where=where).inc()
                log.exception("background work failed", where=where)

        task = asyncio.get_running_loop().create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _schedule_bots(self, room: Room) -> None:
        if self.closing or room.evicted or room.bot_seat() is None:
            return
        if room.bot_task is None or room.bot_task.done():
            room.bot_task = asyncio.create_task(self._drive_bots(room))
        else:
            room.bot_nudge.set()  # a task standing by for another process looks again

    async def _drive_bots(self, room: Room) -> None:
        """Play every bot turn of a table, one action at a time, until a person must act.

        With several processes only the holder of the table's bot claim acts; the others
        stand by, their rooms following through notices, and take over when the claim
        is let go or expires (`TableNotices.claim_bots`)."""
        claim = BOT_CLAIM_SECONDS + self.settings.bot_delay
        driving = False
        try:
            while not self.closing:
                room.bot_nudge.clear()
                await asyncio.sleep(self.settings.bot_delay)
                driving = await self.notices.claim_bots(room.id, claim)
                async with room.lock:
                    turn = None if room.evicted else room.bot_seat()
                    going = turn is not None
                    if turn is not None and driving:
                        going = await self._bot_turn(room, *turn)
                    if not going:
                        if driving:
                            await self.notices.release_bots(room.id)
                            driving = False
                        room.bot_task = None
                        return
                if not driving:
                    # Look again when the table changes, or when the claim may have expired.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(claim / 2):
                            await room.bot_nudge.wait()
        finally:
            if driving:  # cancelled at shutdown: let another process take over at once
                await self.notices.release_bots(room.id)

    async def _bot_turn(self, room: Room, seat: int, level: str) -> bool:
        """One bot action, under the room's lock; False when the bots must stop."""
        from server.engine.bots import choose_action

        assert room.game is not None
        view = room.game.view(seat)
        try:
            # In a worker thread: an advanced decision takes tens of milliseconds, which
            # other tables' moves should not wait for. The room stays locked meanwhile,
            # and the bot reads only its view (a fresh dict) and the room's own rng.
            action = await asyncio.to_thread(choose_action, room.rules, view, level, room.rng)
        except Exception:
            ERRORS.labels(where="bot").inc()
            log.exception("bot failed", table=room.id, version=room.version)
            action = room.game.legal(seat)[0]
        try:
            await self._bot_act(room, seat, action)
        except VersionConflict:
            log.info("version conflict", table=room.id, version=room.version, seat=seat)
            await self._reload(room)
        except TableError:
            return False
        return True

    async def _bot_act(self, room: Room, seat: int, action: dict[str, Any]) -> None:
        """Apply a bot's choice; a refused choice is a bot bug: play the first legal action."""
        try:
            await self._apply(room, seat, action)
        except TableError as refusal:
            if room.evicted:  # the write failed and the room was dropped (`_forget`)
                raise
            ERRORS.labels(where="bot").inc()
            log.error("bot refused", table=room.id, version=room.version, code=refusal.code)
            assert room.game is not None
            await self._apply(room, seat, room.game.legal(seat)[0])


def error(code: str, message: str, act_id: Any = None) -> dict[str, Any]:
    return {"type": "error", "id": act_id, "code": code, "message": message}
