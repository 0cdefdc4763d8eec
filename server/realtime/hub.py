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
import hmac
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

import structlog

from server.engine import Game, IllegalAction, Rules
from server.names import unprintable
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
from server.realtime.hosting import (
    TIMEOUTS_TO_AUTOPLAY,
    fresh_deadline,
    hash_token,
    iso_ms,
    matches,
    next_deadline,
    next_host,
    public_action,
    utcnow,
)
from server.realtime.pubsub import TableNotices
from server.settings import Settings
from server.store.repository import (
    ActionWrite,
    Hosting,
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
# Pauses between attempts to store an action whose write failed, in seconds.
WRITE_RETRY_DELAYS = (0.05, 0.25, 1.0)
# Pauses before loading a room dropped after a failed write, growing while loading fails.
REVIVE_FIRST, REVIVE_MAX, REVIVE_ATTEMPTS = 0.5, 10.0, 20
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
        # Wakes the bots when the turn timer's deadline passes.
        self.timer_task: asyncio.Task[None] | None = None
        # Hands the host role on after the host has been away for a while.
        self.host_task: asyncio.Task[None] | None = None
        # The token hash each seated socket said hello with (a re-issued seat drops it),
        # and the sockets that said hello with the host token.
        self.holders: dict[Listener, str] = {}
        self.host_listeners: set[Listener] = set()
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
        self.hosting: Hosting = record.hosting
        self.game = load_game(self.rules, record)
        # The moves the turn timer made in the current hand, as everyone may see them.
        self.timer_moves = [
            {"seat": seat, "action": public_action(action)}
            for seat, action in (record.game.timer_actions if record.game else [])
        ]
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
        """Seats a socket of this process holds that the table shows away, or played by a
        bot because they were away (a timed-out seat stays with its bot until it acts)."""
        return [
            seat
            for seat in sorted(self.held_seats())
            if not self.seats[seat].connected
            or (self.seats[seat].autoplay and self.seats[seat].autoplay_reason != "timer")
        ]

    def bot_seat(self, now: datetime | None = None) -> tuple[int, str, str | None] | None:
        """The seat a bot must act for now: (seat, level, cause), where cause is "timer"
        when the turn timer ran out on a person, "autoplay" for an away or timed-out
        player's stand-in, None for the seat's own bot."""
        if self.game is None or self.status != "playing":
            return None
        turn = self.game.turn
        for seat in turn:
            record = self.seats[seat]
            if record.bot is not None:
                return seat, record.bot, None
            if record.autoplay:
                return seat, AUTOPLAY_LEVEL, "autoplay"
        deadline = self.hosting.deadline
        if turn and deadline is not None and (now or utcnow()) >= deadline:
            return turn[0], AUTOPLAY_LEVEL, "timer"
        return None

    def is_host(self, token: str | None) -> bool:
        """Whether `token` is the host token, or the seat token of the host's seat."""
        if matches(token, self.hosting.host_hash):
            return True
        seat = self.hosting.host_seat
        return seat is not None and matches(token, self.seats[seat].token_hash)

    def invited(self, invite: str | None, host_token: str | None) -> bool:
        """Whether someone may sit down or add a bot: any listed table, or the invite (or
        the host's token) of an unlisted one."""
        return (
            self.hosting.listed
            or matches(invite, self.hosting.invite_hash)
            or matches(host_token, self.hosting.host_hash)
        )

    def has_controls(self, listener: Listener) -> bool:
        """Whether this socket may use the host controls (none once the table has ended)."""
        seat = self.hosting.host_seat
        if self.status == "ended":
            return False
        return listener in self.host_listeners or (seat is not None and listener.seat == seat)

    def idle_for(self, now: float) -> float | None:
        """Seconds since the room was last used, or None while anything needs it: a
        listener, a change in progress, a bot turn or bot task, a grace timer."""
        if (
            self.listeners
            or self.lock.locked()
            or (self.bot_task is not None and not self.bot_task.done())
            or any(not task.done() for task in self.grace_tasks.values())
            or self.bot_seat() is not None
            or (self.status == "playing" and self.hosting.deadline is not None)
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
            hosting=self.hosting,
        )

    def public(self) -> dict[str, Any]:
        """Public table info (docs/protocol.md): never a token, never a hidden card."""
        return public_table(self.summary())

    def state_message(
        self, listener: Listener, view: Any, table: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One socket's `state`: its view, the public table (built once per broadcast and
        passed in), the timer, and whether it holds the host's controls."""
        return {
            "type": "state",
            "version": self.version,
            "seat": listener.seat,
            "state": view,
            "table": table if table is not None else self.public(),
            "host": self.has_controls(listener),
            "deadline": iso_ms(self.hosting.deadline),
            "server_time": iso_ms(utcnow()),
            "timer_moves": self.timer_moves,
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
        "listed": table.hosting.listed,
        "host_seat": table.hosting.host_seat,
        "turn_seconds": table.hosting.turn_seconds,
        "deadline": iso_ms(table.hosting.deadline),
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
        info["autoplay_reason"] = seat.autoplay_reason or "away"
    return info


def hand_fields(result: dict[str, Any], timer_moves: list[dict[str, Any]]) -> dict[str, Any]:
    """One engine hand summary as a `hands` row. `sides` keeps the engine's whole
    breakdown (points, score, bags after the hand, contract, taken, bag penalty, nils)."""
    return {
        "dealer": result.get("dealer"),
        "bids": result["bids"],
        "tricks": result["tricks"],
        "deal": result["deal"],
        "sides": result["sides"],
        "timer_moves": timer_moves,
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
        self._version_poller: asyncio.Task[None] | None = None

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
            self._version_poller = asyncio.create_task(self._poll_while_deaf())

    async def shutdown(self) -> None:
        """Stop bots and timers, let in-flight changes finish, close sockets with 1012."""
        self.closing = True
        for task in (self._sweeper, self._presence_keeper, self._version_poller):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in list(self.rooms.values()):
            # Holding the lock, no change is half done: a bot is asleep or waiting.
            async with room.lock:
                tasks = [*room.grace_tasks.values()]
                for task in (room.bot_task, room.timer_task, room.host_task):
                    if task is not None:
                        tasks.append(task)
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
                # A bot turn or a countdown waiting here may have lost its driver (a process
                # that died).
                self._follow(room)
        return room

    async def _current(self, room: Room) -> Room:
        """`room`, or the room that replaced it after an eviction."""
        return await self.room(room.id) if room.evicted else room

    async def lobby(self) -> list[dict[str, Any]]:
        """Open tables and live games, newest first, read from the database: listing a
        table does not load its game."""
        tables = await self.store.summaries(("waiting", "playing"))
        return [public_table(table) for table in tables]

    async def table_info(self, table_id: str) -> dict[str, Any]:
        """Public table info as stored: read under the room's lock, so a change whose
        commit is still under way (or fails) is never shown."""

        async def read(room: Room) -> dict[str, Any]:
            return room.public()

        return await self._mutate(await self.room(table_id), read)

    async def history(self, table_id: str) -> dict[str, Any]:
        room = await self.room(table_id)
        hands = await self.store.hands(room.id, room.game_number)
        return {"id": room.id, "game_number": room.game_number, "hands": hands}

    # -- HTTP-side changes -------------------------------------------------------

    async def create_table(
        self, name: str | None, rules: Rules, listed: bool = False, turn_seconds: int | None = None
    ) -> tuple[Room, str, str]:
        """A new table; returns its room, its invite and the host token (each shown once,
        stored only as a hash)."""
        table_id = secrets.token_urlsafe(6)
        invite, host_token = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
        hosts = Hosting(
            listed=listed,
            invite_hash=hash_token(invite),
            host_hash=hash_token(host_token),
            turn_seconds=turn_seconds,
        )
        await self.store.create_table(
            table_id,
            name or f"Table {table_id}",
            rules.model_dump(mode="json"),
            rules.players,
            hosts,
        )
        OPEN_TABLES.inc()
        room = await self.room(table_id)
        log.info("table created", table=table_id, version=room.version, listed=listed)
        return room, invite, host_token

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        invite: str | None = None,
        host_token: str | None = None,
    ) -> str:
        """Seat a person; returns their token (shown once, stored only as a hash). The
        host's token makes the seat the host's."""
        room = await self.room(table_id)
        token = secrets.token_urlsafe(24)

        async def take(room: Room) -> None:
            self._check_invite(room, invite, host_token)
            current = self._empty_seat(room, seat)
            taken = SeatRecord(current.seat, name=name, token_hash=hash_token(token))
            host = {"host_seat": seat} if matches(host_token, room.hosting.host_hash) else {}
            await self._write_seats(room, [taken], **host)

        await self._mutate(room, take)
        await self._mutate(room, self._start_if_full)
        return token

    async def add_bot(
        self,
        table_id: str,
        seat: int,
        level: str,
        invite: str | None = None,
        host_token: str | None = None,
    ) -> None:
        room = await self.room(table_id)

        async def seat_bot(room: Room) -> None:
            self._check_invite(room, invite, host_token)
            current = self._empty_seat(room, seat)
            bot = SeatRecord(current.seat, name=f"Bot ({level})", bot=level, connected=True)
            await self._write_seat(room, bot)

        await self._mutate(room, seat_bot)
        await self._mutate(room, self._start_if_full)

    async def leave_seat(self, table_id: str, seat: int, token: str) -> None:
        """The seat's player leaves, or the host removes whoever sits there; before the
        game starts."""
        room = await self.room(table_id)

        async def leave(room: Room) -> None:
            if not 0 <= seat < len(room.seats):
                raise no_such_seat()
            if await self._seat_for(room, token) != seat and not room.is_host(token):
                raise TableError(
                    "bad_token", "Only the seat's player or the host can empty this seat.", 401
                )
            if room.status != "waiting":
                raise TableError("started", "The game has started; the seat is kept.", 409)
            if room.seats[seat].name is None:
                raise TableError("seat_empty", "That seat is already empty.", 409)
            host = self._host_after_leaving(room, seat)
            await self._write_seats(room, [SeatRecord(seat)], **host)
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

    # -- host controls -------------------------------------------------------------

    async def move_seat(self, table_id: str, token: str, seat: int, to: int) -> Room:
        """Before the game: the occupant of `seat` moves to `to`; an occupant there swaps."""
        room = await self.room(table_id)

        async def move(room: Room) -> Room:
            await self._host_check(room, token, "move players")
            self._seat_range(room, seat)
            self._seat_range(room, to)
            if room.status != "waiting":
                raise TableError("started", "Players can only move before the game starts.", 409)
            if room.seats[seat].name is None:
                raise TableError("seat_empty", "Nobody sits in that seat.", 409)
            if seat == to:
                raise TableError("same_seat", "Choose another seat to move to.", 409)
            first, second = room.seats[seat], room.seats[to]
            swap = {seat: to, to: seat}
            host_seat = room.hosting.host_seat
            host = swap.get(host_seat, host_seat) if host_seat is not None else None
            # The sockets follow their players, so that the broadcast shows each its seat.
            moved = [listener for listener in room.listeners if listener.seat in swap]
            for listener in moved:
                listener.seat = swap[listener.seat]
            try:
                await self._write_seats(
                    room, [replace(second, seat=seat), replace(first, seat=to)], host_seat=host
                )
            except BaseException:
                for listener in moved:
                    listener.seat = swap[listener.seat]
                raise
            await self._seats_moved(room, {seat, to})
            return room

        return await self._mutate(room, move)

    async def stand_in(self, table_id: str, token: str, seat: int) -> Room:
        """During a game: a bot plays for the away player of `seat` until they return."""
        room = await self.room(table_id)

        async def stand(room: Room) -> Room:
            await self._host_check(room, token, "hand a seat to a bot")
            current = self._seat_range(room, seat)
            if room.status != "playing":
                raise TableError("not_playing", "A bot can stand in only during a game.", 409)
            if current.token_hash is None:
                raise TableError("not_a_person", "No player sits in that seat.", 409)
            if current.connected:
                raise TableError(
                    "present",
                    f"{current.name} is at the table; a bot only plays for a player who is away.",
                    409,
                )
            if current.autoplay:
                raise TableError("autoplay", "A bot already plays for that seat.", 409)
            task = room.grace_tasks.pop(seat, None)
            if task is not None:
                task.cancel()
            await self._write_seat(room, replace(current, autoplay=True, autoplay_reason="away"))
            log.info("host handed a seat to a bot", table=room.id, version=room.version, seat=seat)
            return room

        return await self._mutate(room, stand)

    async def reissue_seat(self, table_id: str, token: str, seat: int, name: str | None) -> str:
        """Give a seat to a new person: a fresh token (returned), the old one stops working.
        A bot's seat becomes a person's, the bot playing for them until they arrive."""
        room = await self.room(table_id)
        fresh = secrets.token_urlsafe(24)

        async def reissue(room: Room) -> None:
            await self._host_check(room, token, "give a seat to someone new")
            self._not_ended(room)
            current = self._seat_range(room, seat)
            if current.name is None:
                raise TableError(
                    "seat_empty", "That seat is empty: anyone with the invite can take it.", 409
                )
            playing = room.status == "playing"
            was_bot = current.bot is not None
            given = replace(
                current,
                name=name or (f"Player {seat + 1}" if was_bot else current.name),
                token_hash=hash_token(fresh),
                bot=None,
                connected=False,
                autoplay=current.autoplay or (playing and was_bot),
                autoplay_reason=current.autoplay_reason
                or ("away" if playing and was_bot else None),
                timeouts=0,
            )
            # The old token's sockets watch from now on (before the broadcast of the change).
            for listener in room.listeners:
                if listener.seat == seat:
                    listener.send(
                        error("bad_token", "The host gave your seat to someone else; watching.")
                    )
            await self._unseat(room, {seat})
            await self._write_seat(room, given)
            log.info("seat re-issued", table=room.id, version=room.version, seat=seat)

        await self._mutate(room, reissue)
        return fresh

    async def set_timer(self, table_id: str, token: str, turn_seconds: int | None) -> Room:
        """Change the turn timer; a running countdown starts again from now."""
        room = await self.room(table_id)

        async def change(room: Room) -> Room:
            await self._host_check(room, token, "change the turn timer")
            self._not_ended(room)
            turn = room.game.turn if room.game is not None and room.status == "playing" else []
            deadline = fresh_deadline(turn_seconds, turn, utcnow())
            await self._write_seats(room, [], turn_seconds=turn_seconds, deadline=deadline)
            return room

        return await self._mutate(room, change)

    async def end_table(self, table_id: str, token: str) -> None:
        """The host closes the table: the game stops, nothing more can be changed."""
        room = await self.room(table_id)

        async def end(room: Room) -> None:
            await self._host_check(room, token, "end the table")
            self._not_ended(room)
            was_open = room.status in ("waiting", "playing")
            await self._write_seats(room, [], status="ended", deadline=None)
            if was_open:
                OPEN_TABLES.dec()
            for task in room.grace_tasks.values():
                task.cancel()
            room.grace_tasks.clear()
            log.info("table ended by its host", table=room.id, version=room.version)

        await self._mutate(room, end)

    async def _host_check(self, room: Room, token: str | None, what: str) -> None:
        """Refuse (403) unless `token` carries the host's controls; an unknown token may be
        one another process just gave out, so look again in the database first."""
        if room.is_host(token):
            return
        await self._reload(room)
        if not room.is_host(token):
            raise TableError("not_host", f"Only the host can {what}.", 403)

    @staticmethod
    def _check_invite(room: Room, invite: str | None, host_token: str | None) -> None:
        if not room.invited(invite, host_token):
            raise TableError(
                "no_invite",
                "This table is private: open the invite link from its host to sit down.",
                403,
            )

    @staticmethod
    def _not_ended(room: Room) -> None:
        if room.status == "ended":
            raise TableError("ended", "The host ended this table.", 409)

    @staticmethod
    def _seat_range(room: Room, seat: int) -> SeatRecord:
        if not 0 <= seat < len(room.seats):
            raise no_such_seat()
        return room.seats[seat]

    @staticmethod
    def _host_after_leaving(room: Room, seat: int) -> dict[str, Any]:
        """Table fields to write when `seat` is emptied: the host role passes on if it was
        the host's (the host token then stops working); nothing otherwise."""
        if room.hosting.host_seat != seat:
            return {}
        successor = next_host(room.seats, seat)
        if successor is None:
            return {"host_seat": None}  # nobody else sits: the host token keeps the role
        return {"host_seat": successor, "host_hash": None}

    # -- socket-side changes -----------------------------------------------------

    async def join(
        self, room: Room, listener: Listener, token: str | None, host_token: str | None = None
    ) -> None:
        """A socket said hello: authenticate, mark the seat present, send the state."""
        # A token neither the room nor the database knows is answered as a spectator
        # without reloading the table: bad tokens must not cost the players anything.
        known = False
        if token:
            known = room.seat_for_token(token) is not None or (
                await self.store.seat_of_token(room.id, hash_token(token)) is not None
            )

        async def hello(room: Room) -> None:
            seat = await self._seat_for(room, token) if token and known else None
            if token and seat is None:
                listener.send(error("bad_token", "That token holds no seat here; watching."))
            if seat is None and listener not in room.listeners and self._watchers_full(room):
                listener.send(
                    error("too_many_watchers", "This table has as many watchers as it can take.")
                )
                await listener.close(1013, "too many watchers")
                return
            if listener in room.listeners and listener.seat != seat:
                await self._drop_listener(room, listener)
            if matches(host_token, room.hosting.host_hash):
                room.host_listeners.add(listener)
            else:
                room.host_listeners.discard(listener)
            if seat is not None and token is not None:
                room.holders[listener] = hash_token(token)
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
            message = room.state_message(listener, room.view(seat))
            message["chat"] = list(room.chat)
            listener.send(message)

        await self._mutate(room, hello)

    def _watchers_full(self, room: Room) -> bool:
        watchers = sum(1 for listener in room.listeners if listener.seat is None)
        return watchers >= self.settings.spectators_per_table

    async def leave(self, room: Room, listener: Listener) -> None:
        """A socket closed: a player's seat stays theirs, shown as disconnected."""
        # A room with listeners is never evicted: the listener is in the room served now,
        # which may have replaced the one the socket was given before its hello.
        room = self.rooms.get(room.id, room)
        if listener not in room.listeners:
            return
        room.host_listeners.discard(listener)
        room.holders.pop(listener, None)
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
            listener.send(error(refusal.code, refusal.message, act_id, refusal.reason))
            return
        ACTION_LATENCY.observe(time.perf_counter() - started)

    async def take_back(self, room: Room, listener: Listener) -> None:
        """`back`: a player on autoplay plays for themselves again."""

        async def back(room: Room) -> None:
            seat = listener.seat
            if seat is None:
                raise TableError("not_seated", "Spectators have no seat to take back.")
            current = room.seats[seat]
            if not current.autoplay:
                raise TableError("not_autoplay", "No bot is playing for you; play on.")
            await self._write_seat(room, self._playing_again(current))

        try:
            await self._mutate(room, back)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))

    async def chat(self, room: Room, listener: Listener, text: Any) -> None:
        if not isinstance(text, str) or not text.strip():
            listener.send(error("bad_chat", "Say something: the message is empty."))
            return
        text = text.strip()
        limit = self.settings.chat_max_length
        if len(text) > limit:
            listener.send(error("bad_chat", f"Chat messages are at most {limit} characters."))
            return
        refused = unprintable(text)
        if refused is not None:
            listener.send(
                error("bad_message", f"Chat may not contain control characters ({refused}).")
            )
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

    async def _poll_while_deaf(self) -> None:
        """With several processes: while notices from the others cannot arrive (Redis
        down), read the versions of the tables we serve from the database, so that a
        table split across processes keeps playing and every socket converges."""
        while not self.closing:
            await asyncio.sleep(self.settings.outage_poll_seconds)
            if self.notices.listening:
                continue
            try:
                await self.poll_versions()
            except Exception:
                ERRORS.labels(where="store").inc()
                log.warning("table versions not read", exc_info=True)

    async def poll_versions(self) -> None:
        """One round of `_poll_while_deaf`: reload each watched table that moved on."""
        watched = [room.id for room in self.rooms.values() if room.listeners]
        if not watched:
            return
        for table_id, version in (await self.store.versions(watched)).items():
            await self.on_remote_change(table_id, version)

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

    async def _store_action(self, write: ActionWrite) -> None:
        """Commit one action, trying again after a failure that may pass (a busy SQLite
        file, a dropped connection): each attempt is a whole transaction or nothing. A
        commit that did land before its answer was lost shows up as a VersionConflict."""
        for delay in (*WRITE_RETRY_DELAYS, None):
            try:
                await self.store.record_action(write)
                return
            except VersionConflict:
                raise
            except Exception as failure:
                if delay is None:
                    raise
                ERRORS.labels(where="store_retry").inc()
                log.warning(
                    "action not stored, trying again",
                    table=write.table_id,
                    version=write.old_version,
                    error=type(failure).__name__,
                    # The driver's words ("database is locked"); statement values are
                    # hidden by the engine (hide_parameters), so no card or token shows.
                    reason=str(failure).splitlines()[0][:200] if str(failure) else None,
                )
                await asyncio.sleep(delay)

    async def _forget(self, room: Room) -> None:
        """The room's game is ahead of the database (a failed write): drop the room, send
        its sockets away to reconnect, and load it again from the database soon, so that
        its bots and turn timer go on without waiting for somebody to come back."""
        self._drop_room(room)
        self._in_background(self._revive(room.id), "store")
        listeners = list(room.listeners)
        room.listeners.clear()
        for listener in listeners:  # their `leave` will not find them in any room
            CONNECTED_SOCKETS.labels(role=self._roles.pop(id(listener), "spectator")).dec()

        async def send_away() -> None:
            for listener in listeners:
                await listener.close(1011, "table reloading, reconnect")

        # As a task, so that the refusal of the move reaches its player before the close.
        self._in_background(send_away(), "store")

    async def _revive(self, table_id: str) -> None:
        delay = REVIVE_FIRST
        for _ in range(REVIVE_ATTEMPTS):
            await asyncio.sleep(delay)
            if self.closing:
                return
            try:
                room = await self.room(table_id)  # or the room a request loaded meanwhile
            except TableError:
                return
            except Exception:
                ERRORS.labels(where="store").inc()
                log.warning("table not reloaded yet", table=table_id)
                delay = min(delay * 2, REVIVE_MAX)
                continue
            log.info("table reloaded after a failed write", table=table_id, version=room.version)
            if not self._shared:  # its sockets were sent away: their seats are away now
                with contextlib.suppress(TableError):
                    await self._mutate(room, self._away_unless_held)
            return

    async def _away_unless_held(self, room: Room) -> None:
        """Seats shown present that no socket of this (only) process holds: away, with
        their grace time started."""
        held = room.held_seats()
        gone = [
            replace(seat, connected=False)
            for seat in room.seats
            if seat.connected and seat.token_hash is not None and seat.seat not in held
        ]
        if gone:
            await self._write_seats(room, gone)
            for seat in gone:
                self._start_grace(room, seat.seat)

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
        # Sockets whose token no longer holds their seat (emptied or given to someone new).
        await self._unseat(
            room,
            {
                listener.seat
                for listener in room.listeners
                if listener.seat is not None
                and room.holders.get(listener) != room.seats[listener.seat].token_hash
            },
        )
        if room.hosting.host_hash is None:
            room.host_listeners.clear()
        self._broadcast(room)
        self._follow(room)

    async def _unseat(self, room: Room, seats: set[int]) -> None:
        """The sockets on these emptied seats watch from now on; this process no longer
        holds the seats (for presence across processes)."""
        for listener in room.listeners:
            if listener.seat in seats:
                listener.seat = None
                room.holders.pop(listener, None)
        for seat in seats:
            await self.notices.seat_closed(room.id, seat)

    async def _seats_moved(self, room: Room, seats: set[int]) -> None:
        """Presence across processes after sockets moved between these seats."""
        held = room.held_seats()
        await self.notices.renew_seats(
            [(room.id, seat) for seat in sorted(seats & held)],
            self.settings.presence_expiry_seconds,
        )
        for seat in seats - held:
            await self.notices.seat_closed(room.id, seat)

    def _broadcast(self, room: Room) -> None:
        """Each listener gets its own view, computed now (once per seat); the public table
        once for all."""
        views: dict[int | None, Any] = {}
        table = room.public()
        for listener in room.listeners:
            seat = listener.seat
            if seat not in views:
                views[seat] = room.view(seat)
            listener.send(room.state_message(listener, views[seat], table))

    async def _committed(self, room: Room) -> None:
        """After a commit: broadcast, tell other processes, let bots and timers move."""
        room.touched = time.monotonic()
        self._broadcast(room)
        await self.notices.publish(room.id, room.version)
        self._follow(room)

    def _follow(self, room: Room) -> None:
        """What a room's new state asks for: bots to move, the turn timer, the host watch."""
        self._schedule_bots(room)
        self._schedule_timer(room)
        self._watch_host(room)

    def _empty_seat(self, room: Room, seat: int) -> SeatRecord:
        self._not_ended(room)
        if not 0 <= seat < len(room.seats):
            raise no_such_seat()
        current = room.seats[seat]
        if current.name is not None:
            raise TableError("seat_taken", "That seat is taken.", 409)
        return current

    async def _write_seat(self, room: Room, seat: SeatRecord) -> None:
        await self._write_seats(room, [seat])

    async def _write_seats(self, room: Room, seats: list[SeatRecord], **table_fields: Any) -> None:
        """Store seats and table fields (`status`, or those of `Hosting`) as one change."""
        new = room.version + 1
        await self.store.update_seats(room.id, room.version, new, seats, **table_fields)
        for seat in seats:
            room.seats[seat.seat] = seat
        room.version = new
        status = table_fields.pop("status", None)
        if status is not None:
            room.status = status
        if table_fields:
            room.hosting = replace(room.hosting, **table_fields)
            if room.hosting.host_hash is None:
                room.host_listeners.clear()
        log.info(
            "table changed",
            table=room.id,
            version=new,
            seats=[seat.seat for seat in seats],
            fields=sorted(table_fields) + (["status"] if status else []),
        )
        await self._committed(room)

    async def _start_if_full(self, room: Room) -> None:
        if room.status == "waiting" and all(seat.name is not None for seat in room.seats):
            await self._start_game(room)

    async def _start_game(self, room: Room) -> None:
        seed = secrets.randbits(62)
        game = Game(room.rules, seed=seed)
        new = room.version + 1
        number = room.game_number + 1
        deadline = fresh_deadline(room.hosting.turn_seconds, game.turn, utcnow())
        room.game_id = await self.store.start_game(
            room.id, room.version, new, number, seed, game.to_state(), deadline
        )
        room.game, room.game_number, room.version, room.status = game, number, new, "playing"
        room.seq, room.hands_saved, room.timer_moves = 0, 0, []
        room.hosting = replace(room.hosting, deadline=deadline)
        log.info("game started", table=room.id, version=new, game=number)
        await self._committed(room)
        for seat in room.seats:
            # A player who left before the start gets the same grace as one who leaves later.
            if seat.token_hash is not None and not seat.connected:
                self._start_grace(room, seat.seat)

    async def _apply(
        self, room: Room, seat: int, action: dict[str, Any], cause: str | None = None
    ) -> None:
        """Validate with the engine, commit, broadcast. Raises TableError on refusal.
        `cause`: who chose the move when not its player ("timer", "autoplay")."""
        game = room.game
        self._not_ended(room)
        if game is None or room.status == "waiting":
            raise TableError("not_started", "The game has not started yet.")
        if room.status == "over":
            raise TableError("game_over", "The game is over.")
        if seat not in game.turn:
            raise TableError("not_your_turn", "It is not your turn.")
        turn_before = list(game.turn)
        try:
            game.act(seat, action)
        except IllegalAction as refusal:
            raise TableError("illegal", str(refusal), reason=refusal.code) from None
        except Exception:
            # The engine should only raise IllegalAction; rebuild it from the database so a
            # half-applied action cannot survive, and refuse.
            ERRORS.labels(where="engine").inc()
            log.exception("engine failed", table=room.id, version=room.version)
            await self._reload(room)
            raise TableError("illegal", "That action is not possible here.") from None
        await self._record(room, seat, action, cause, turn_before)

    def _seat_after(self, current: SeatRecord, cause: str | None) -> SeatRecord | None:
        """The seat's record after a move (None: unchanged): a timed-out move counts, and
        the second in a row puts the seat on autoplay; the player's own move clears both."""
        if current.bot is not None or cause == "autoplay":
            return None
        if cause == "timer":
            timeouts = current.timeouts + 1
            if timeouts >= TIMEOUTS_TO_AUTOPLAY:
                return replace(current, timeouts=timeouts, autoplay=True, autoplay_reason="timer")
            return replace(current, timeouts=timeouts)
        if current.timeouts or current.autoplay:
            return self._playing_again(current)
        return None

    @staticmethod
    def _playing_again(current: SeatRecord) -> SeatRecord:
        return replace(current, timeouts=0, autoplay=False, autoplay_reason=None)

    async def _record(
        self,
        room: Room,
        seat: int,
        action: dict[str, Any],
        cause: str | None,
        turn_before: list[int],
    ) -> None:
        game = room.game
        assert game is not None and room.game_id is not None
        results = game.hand_results[room.hands_saved :]
        over = game.winner is not None or game.phase == "over"
        timer_moves = room.timer_moves
        if cause == "timer":
            timer_moves = [*timer_moves, {"seat": seat, "action": public_action(action)}]
        changed = self._seat_after(room.seats[seat], cause)
        deadline = (
            None
            if over
            else next_deadline(
                room.hosting.turn_seconds,
                room.hosting.deadline,
                turn_before,
                seat,
                list(game.turn),
                utcnow(),
            )
        )
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
            new_hands=[hand_fields(result, timer_moves) for result in results],
            first_hand_number=room.hands_saved + 1,
            winner=game.winner,
            final_scores=game.scores if over else None,
            deadline=deadline,
            cause=cause if cause in ("timer", "autoplay") else None,
            seats=[changed] if changed is not None else [],
        )
        try:
            await self._store_action(write)
        except VersionConflict:
            raise
        except Exception as failure:
            ERRORS.labels(where="store").inc()
            log.error(
                "action not stored",
                table=room.id,
                version=room.version,
                error=type(failure).__name__,
                reason=str(failure).splitlines()[0][:200] if str(failure) else None,
            )
            await self._forget(room)
            raise TableError("unavailable", "The move could not be saved; try again.") from None
        room.version, room.seq, room.status = write.new_version, write.seq, write.status
        room.hands_saved += len(results)
        room.hosting = replace(room.hosting, deadline=deadline)
        room.timer_moves = [] if results else timer_moves
        if changed is not None:
            room.seats[seat] = changed
        ACTIONS.labels(type=str(action.get("type"))).inc()
        if over:
            OPEN_TABLES.dec()
            log.info("game over", table=room.id, version=room.version, winner=game.winner)
        await self._committed(room)

    # -- presence and bots -------------------------------------------------------

    async def _mark_present(self, room: Room, seat: int, returning: bool = True) -> None:
        """The seat's player is here. `returning` (their hello): any bot playing for them
        stops; otherwise (a presence repair) only the stand-in for an away player."""
        task = room.grace_tasks.pop(seat, None)
        if task is not None:
            task.cancel()
        current = room.seats[seat]
        stand_in = current.autoplay and (returning or current.autoplay_reason != "timer")
        if not current.connected or stand_in:
            present = replace(current, connected=True)
            await self._write_seat(room, self._playing_again(present) if stand_in else present)

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
            await self._write_seat(room, replace(current, connected=False))
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
            await self._write_seat(room, replace(current, autoplay=True, autoplay_reason="away"))
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
            await self._mark_present(room, seat, returning=False)

    async def _mark_gone(self, room: Room, seat: int) -> None:
        """A seat shown present whose sockets are gone from every live process (its
        process died): away, and its grace timer starts."""
        current = room.seats[seat]
        if not current.connected or current.token_hash is None:
            return
        if await self._held_anywhere(room, seat):
            return
        await self._write_seat(room, replace(current, connected=False))
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
                pending = room.bot_seat()
                if pending is None or pending[2] != "timer":
                    # A bot pauses like a person would; a timed-out move has waited enough.
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

    async def _bot_turn(self, room: Room, seat: int, level: str, cause: str | None) -> bool:
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
            await self._bot_act(room, seat, action, cause)
        except VersionConflict:
            log.info("version conflict", table=room.id, version=room.version, seat=seat)
            await self._reload(room)
        except TableError:
            return False
        return True

    async def _bot_act(
        self, room: Room, seat: int, action: dict[str, Any], cause: str | None
    ) -> None:
        """Apply a bot's choice; a refused choice is a bot bug: play the first legal action."""
        try:
            await self._apply(room, seat, action, cause)
        except TableError as refusal:
            if room.evicted:  # the write failed and the room was dropped (`_forget`)
                raise
            ERRORS.labels(where="bot").inc()
            log.error("bot refused", table=room.id, version=room.version, code=refusal.code)
            assert room.game is not None
            await self._apply(room, seat, room.game.legal(seat)[0], cause)

    # -- the turn timer and the host's absence -----------------------------------------

    def _schedule_timer(self, room: Room) -> None:
        """Wake the bots when the current deadline passes (a new deadline replaces the
        wait for the old one)."""
        deadline = room.hosting.deadline
        task = room.timer_task
        if task is not None and not task.done():
            if getattr(task, "deadline", None) == deadline:
                return
            task.cancel()
        room.timer_task = None
        if self.closing or room.evicted or deadline is None or room.status != "playing":
            return
        room.timer_task = asyncio.create_task(self._await_deadline(room, deadline))
        room.timer_task.deadline = deadline  # type: ignore[attr-defined]

    async def _await_deadline(self, room: Room, deadline: datetime) -> None:
        # The event loop's clock and the wall clock drift apart: wait until the wall clock
        # has passed the deadline, then let the bot driver make the move.
        while (left := (deadline - utcnow()).total_seconds()) >= 0:
            await asyncio.sleep(left + 0.01)
        self._schedule_bots(room)

    def _watch_host(self, room: Room) -> None:
        """While the host's seat is away and another player is here, count down to
        handing the role on; stop counting when the host is back."""
        seat = room.hosting.host_seat
        away = (
            seat is not None
            and room.status != "ended"
            and not room.seats[seat].connected
            and room.seats[seat].token_hash is not None
            and next_host(room.seats, seat) is not None
            and room.seats[next_host(room.seats, seat)].connected  # type: ignore[index]
        )
        task = room.host_task
        if task is not None and not task.done():
            if away:
                return
            task.cancel()
        room.host_task = None
        if away and not self.closing and not room.evicted:
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
            await self._write_seats(room, [], host_seat=successor, host_hash=None)
            log.info("host role passed on", table=room.id, version=room.version, seat=successor)

        room.host_task = None
        with contextlib.suppress(TableError):
            await self._mutate(room, hand_on)


def error(code: str, message: str, act_id: Any = None, reason: str | None = None) -> dict[str, Any]:
    """An `error` message; `reason` (the engine's refusal code) only when there is one."""
    message_fields = {"type": "error", "id": act_id, "code": code, "message": message}
    return message_fields | {"reason": reason} if reason is not None else message_fields
