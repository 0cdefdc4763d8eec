"""The table hub: the commands that change tables, and the one path every change takes.

It knows nothing of HTTP or WebSockets: the API layer hands it requests and listeners
(anything with a `seat` and non-blocking `send`/`close`). Its parts, each in its module:

- `room.py`: a table in memory (`Room`), and the messages it builds for its sockets;
- `rooms.py`: the cache of rooms, loaded on first use and dropped when idle;
- `presence.py`: who is connected, across processes, grace timers, the host's absence;
- `autoplay.py`: the bot driver and the turn timer's moves, with their Redis claims;
- `messages.py`: every WebSocket message, typed; `hosting.py`: invites, host, timer rules;
- `pubsub.py`: notices between processes (Redis).

Each change runs under the room's lock (`_mutate`), one at a time, in one direction:
validate -> engine -> `_commit`: store (the store raises the table's version with an
optimistic check) -> apply to the room -> broadcast a view per listener -> notify other
processes. When another process wrote first, the room is reloaded from the database and
the change is validated again.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

import orjson
import structlog

from server.engine import Action, Game, HandResult, IllegalAction, Rules, TrickPlays
from server.names import bot_name
from server.observability import (
    ACTION_LATENCY,
    ERRORS,
    OPEN_TABLES,
    REFUSED_ACTIONS,
    ROOMS_LOADED,
    accepted,
)
from server.protocol import History, PublicTable, StoredHand
from server.realtime import collector
from server.realtime.autoplay import (
    Autoplay,
    bot_decision,
    decision_pool,
    playing_again,
    seat_after,
    warm,
)
from server.realtime.errors import TableError, no_such_seat
from server.realtime.hosting import (
    fresh_deadline,
    hash_token,
    matches,
    new_token,
    next_deadline,
    next_host,
    public_action,
    utcnow,
)
from server.realtime.messages import (
    HintMessage,
    ServerMessage,
    TimerMove,
    chat_message,
    error,
)
from server.realtime.presence import Presence
from server.realtime.pubsub import TableNotices
from server.realtime.room import Listener, Room, public_table
from server.realtime.rooms import Rooms
from server.settings import Settings
from server.store.batch import LandedFailed
from server.store.repository import (
    ActionWrite,
    ChatLine,
    Hosting,
    SeatRecord,
    TableStore,
    VersionConflict,
)

log = structlog.get_logger(__name__)

T = TypeVar("T")
P = ParamSpec("P")
# What a store write answers: the table's new version, or the stored chat line.
Stored = TypeVar("Stored", int, ChatLine)

WRITE_ATTEMPTS = 3
# Pauses between attempts to store an action whose write failed, in seconds.
WRITE_RETRY_DELAYS = (0.05, 0.25, 1.0)
# Pauses before loading a room dropped after a failed write, growing while loading fails.
REVIVE_FIRST, REVIVE_MAX, REVIVE_ATTEMPTS = 0.5, 10.0, 20
# The bot level whose choice a hint shows.
HINT_LEVEL = "advanced"
# Engine refusals that clients have always seen as codes of their own, not `illegal`.
OWN_CODES = frozenset(("not_your_turn", "game_over"))

__all__ = ["Listener", "Room", "TableHub", "error"]


def hand_fields(
    result: HandResult, timer_moves: list[TimerMove], plays: list[TrickPlays] | None
) -> StoredHand:
    """One engine hand summary as a `hands` row. `sides` keeps the engine's whole
    breakdown (points, score, bags after the hand, contract, taken, bag penalty, nils);
    `plays` every trick of the hand, for its replay."""
    return {
        "dealer": result.get("dealer"),
        "bids": result["bids"],
        "tricks": result["tricks"],
        "deal": result["deal"],
        "sides": result["sides"],
        "timer_moves": timer_moves,
        "plays": plays,
    }


def seated_at(occupant: SeatRecord, seat: int, players: int) -> SeatRecord:
    """`occupant` (or an empty seat) in `seat`; a bot takes the name of its new place."""
    name = bot_name(seat, players) if occupant.bot is not None else occupant.name
    return replace(occupant, seat=seat, name=name)


class TableHub:
    """Every table this process serves; the only code that changes a table."""

    def __init__(self, store: TableStore, settings: Settings, notices: TableNotices) -> None:
        self.store = store
        self.settings = settings
        self.notices = notices
        self.closing = False
        self._rooms = Rooms(store, settings, self._follow)
        self.presence = Presence(self)
        self.autoplay = Autoplay(self)
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
            self.autoplay.schedule(room)
        if self.settings.bot_processes > 0:
            # Every decision process starts now, beside the loop, rather than at the first
            # bot move, hint or timer move (which would wait for the forkserver and its
            # imports: 200 ms and more). Awaited before serving, this made a restart after
            # a SIGKILL slower (1.2-1.3 s to 1.8-2.3 s in the turn timer's restart test).
            processes = self.settings.bot_processes
            warming = asyncio.to_thread(warm, decision_pool(processes), processes)
            self._in_background(warming, "bot_pool")
        collector.tune(self.settings)
        self._sweeper = asyncio.create_task(self._rooms.sweep(lambda: self.closing))
        if self._shared:
            self._presence_keeper = asyncio.create_task(self.presence.keep())
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

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms this process serves now, by table id."""
        return self._rooms.served

    async def room(self, table_id: str) -> Room:
        """The room of a table, loaded from the database on first use (or after eviction)."""
        return await self._rooms.get(table_id)

    def evict_idle(self) -> int:
        """Drop every idle room (`Rooms.evict_idle`); returns how many."""
        return self._rooms.evict_idle()

    async def check_presence(self) -> None:
        """One round of presence renewal and repair (`Presence.check`)."""
        await self.presence.check()

    async def lobby(self) -> list[PublicTable]:
        """Open tables and live games, newest first, read from the database: listing a
        table does not load its game."""
        tables = await self.store.summaries(("waiting", "playing"))
        return [public_table(table) for table in tables]

    async def table_info(self, table_id: str) -> PublicTable:
        """Public table info as stored: read under the room's lock, so a change whose
        commit is still under way (or fails) is never shown."""

        async def read(room: Room) -> PublicTable:
            return room.table()

        return await self._mutate(await self.room(table_id), read)

    async def history(self, table_id: str) -> History:
        room = await self.room(table_id)
        hands = await self.store.hands(room.id, room.game_number)
        return {"id": room.id, "game_number": room.game_number, "hands": hands}

    # -- HTTP-side changes -------------------------------------------------------

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
        table_id = secrets.token_urlsafe(6)
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
        token = new_token()

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
            name = bot_name(current.seat, room.rules.players)
            bot = SeatRecord(current.seat, name=name, bot=level, connected=True)
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
            await self.presence.unseat(room, {seat} & room.held_seats())

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
                listener.seat = swap[listener.seat]  # type: ignore[index]  # in swap: an int
            players = room.rules.players
            try:
                await self._write_seats(
                    room,
                    [seated_at(second, seat, players), seated_at(first, to, players)],
                    host_seat=host,
                )
            except BaseException:
                for listener in moved:
                    listener.seat = swap[listener.seat]  # type: ignore[index]
                raise
            await self.presence.seats_moved(room, {seat, to})
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
        fresh = new_token()

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
            await self.presence.unseat(room, {seat})
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
                await self.presence.drop_listener(room, listener)
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
                await self.presence.mark_present(room, seat)
            listener.seat = seat
            self.presence.count(listener, seat)
            room.listeners.add(listener)
            listener.send(room.welcome(listener))

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
            self.presence.uncount(listener)
            return
        with contextlib.suppress(TableError):
            await self._mutate(room, lambda room: self.presence.drop_listener(room, listener))

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
        try:
            await self._mutate(room, self._move, listener, action, version)
        except TableError as refusal:
            REFUSED_ACTIONS.labels(code=refusal.code).inc()
            listener.send(error(refusal.code, refusal.message, act_id, refusal.reason))
            return
        ACTION_LATENCY.observe(time.perf_counter() - started)

    async def _move(
        self, room: Room, listener: Listener, action: dict[str, Any], version: int | None
    ) -> None:
        """`act` under the room's lock (a method, not a closure made for every move)."""
        if listener.seat is None:
            raise TableError("not_seated", "Spectators cannot play; take a seat first.")
        if version is not None and version != room.version:
            raise TableError("stale", f"The table moved on (version {room.version}); look again.")
        await self._apply(room, listener.seat, action)

    async def take_back(self, room: Room, listener: Listener) -> None:
        """`back`: a player on autoplay plays for themselves again."""

        async def back(room: Room) -> None:
            seat = listener.seat
            if seat is None:
                raise TableError("not_seated", "Spectators have no seat to take back.")
            current = room.seats[seat]
            if not current.autoplay:
                raise TableError("not_autoplay", "No bot is playing for you; play on.")
            await self._write_seat(room, playing_again(current))

        try:
            await self._mutate(room, back)
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message))

    async def hint(self, room: Room, listener: Listener, hint_id: str | int | None = None) -> None:
        """`hint`: the advanced bot's choice from the asking seat's own view, sent to that
        socket alone. Nothing is played and nothing changes, so no lock is taken: the
        view is read at once and the answer names the version it was made on."""
        seat = listener.seat
        game = room.game
        try:
            if seat is None:
                raise TableError("not_seated", "Spectators get no hints; take a seat first.")
            if not room.hosting.hints:
                raise TableError("hints_off", "Hints are off at this table.")
            if game is None or room.status != "playing":
                raise TableError("not_started", "The game has not started yet.")
            if seat not in game.turn:
                raise TableError("not_your_turn", "A hint waits for your turn.")
        except TableError as refusal:
            listener.send(error(refusal.code, refusal.message, hint_id))
            return
        version = room.version
        made = room.hints.get(seat)
        if made is None or made[0] != version:
            view = game.view(seat)
            thinking = bot_decision(
                self.settings.bot_processes, room.rules, view, HINT_LEVEL, room.rng
            )
            made = room.hints[seat] = (version, asyncio.ensure_future(thinking))
        try:
            action = await asyncio.shield(made[1])
        except Exception:
            if room.hints.get(seat) is made:  # the next ask thinks again
                del room.hints[seat]
            ERRORS.labels(where="hint").inc()
            log.exception("hint failed", table=room.id, version=version, seat=seat)
            listener.send(error("unavailable", "No hint right now; try again.", hint_id))
            return
        # The bot's `Action`, as a plain dict from the decision process.
        hint = HintMessage(type="hint", id=hint_id, version=version, action=cast(Action, action))
        listener.send(hint)

    async def chat(self, room: Room, listener: Listener, text: str) -> None:
        """A chat line (already checked by `messages.Chat`), stored and sent to everyone."""

        async def say(room: Room) -> None:
            seat = listener.seat
            name = room.seats[seat].name if seat is not None else None
            line = self.store.add_chat(room.id, room.version, seat, name or "Spectator", text)
            await self._commit(room, line, room.chat.append)

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
            self._in_background(self._mutate(room, self.presence.restore), "presence")

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

    async def _mutate(
        self,
        room: Room,
        change: Callable[Concatenate[Room, P], Awaitable[T]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Run `change(room, *args, **kwargs)` under the lock of the room the hub serves
        now (`room` may have been evicted meanwhile); after a version conflict, reload and
        retry."""
        for _ in range(WRITE_ATTEMPTS):
            if room.evicted:  # the room that replaced it after an eviction
                room = await self._rooms.get(room.id)
            async with room.lock:
                if room.evicted:
                    continue
                room.touched = time.monotonic()
                try:
                    return await change(room, *args, **kwargs)
                except VersionConflict:
                    log.info("version conflict", table=room.id, version=room.version)
                    await self._reload(room)
        raise TableError("conflict", "The table changed at the same moment; try again.")

    async def _forget(self, room: Room) -> None:
        """The room's game is ahead of the database (a failed write): drop the room, send
        its sockets away to reconnect, and load it again from the database soon, so that
        its bots and turn timer go on without waiting for somebody to come back."""
        self._rooms.drop(room)
        self._in_background(self._revive(room.id), "store")
        listeners = list(room.listeners)
        room.listeners.clear()
        for listener in listeners:  # their `leave` will not find them in any room
            self.presence.uncount(listener)

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
                    await self._mutate(room, self.presence.away_unless_held)
            return

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
                self._tell(room, chat_message(line))
        if room.version == seen:
            return
        # Sockets whose token no longer holds their seat (emptied or given to someone new).
        await self.presence.unseat(
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

    # -- the one path of every change: commit, then broadcast --------------------------

    async def _commit(
        self,
        room: Room,
        write: Awaitable[Stored],
        change: Callable[[Stored], None],
    ) -> None:
        """Every change to a table but a move ends here, under its room's lock, once
        validated (a move's `_record` takes the same two halves, `_landed` from the step
        that commits it, then `_announce`).

        `write` stores it: the store raises the table's version and answers with the new
        version (or the stored chat line, which carries it). Only once it has landed does
        `_landed` apply it to the room and tell every socket; then `_announce`."""
        stored = await write
        self._landed(room, change, stored)
        await self._announce(room, follow=isinstance(stored, int))

    def _landed(self, room: Room, change: Callable[[Stored], None], stored: Stored) -> None:
        """A change that has landed: `change` applies the store's answer to the room in
        memory, and every socket hears of it (a chat line as it is, anything else as each
        socket's own `state`). A move's comes here straight from the step that committed
        it (`GroupCommit.submit`'s `landed`)."""
        change(stored)
        room.touched = time.monotonic()
        if isinstance(stored, int):
            room.version = stored
            self._broadcast(room)
        else:
            room.version = stored["version"]
            self._tell(room, chat_message(stored))

    async def _announce(self, room: Room, follow: bool = True) -> None:
        """After a change has landed: other processes get a notice, and (`follow`: not
        after a chat line) bots, the turn timer and the host watch do what it asks."""
        await self.notices.publish(room.id, room.version)
        if follow:
            self._follow(room)

    def _broadcast(self, room: Room) -> None:
        """Each listener gets its own view, computed now (once per seat); the public table
        once for all, each encoded once (`Room.state_frames`)."""
        listeners = list(room.listeners)
        for listener, frame in zip(listeners, room.state_frames(listeners), strict=True):
            listener.send(frame)

    @staticmethod
    def _tell(room: Room, message: ServerMessage) -> None:
        """The same message to every listener of the room."""
        for listener in room.listeners:
            listener.send(message)

    def _follow(self, room: Room) -> None:
        """What a room's new state asks for: bots to move, the turn timer, the host watch."""
        self.autoplay.schedule(room)
        self.autoplay.schedule_timer(room)
        self.presence.watch_host(room)

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
        hosting = dict(table_fields)
        status = hosting.pop("status", None)

        def change(version: int) -> None:
            for seat in seats:
                room.seats[seat.seat] = seat
            if status is not None:
                room.status = status
            if hosting:
                room.hosting = replace(room.hosting, **hosting)
                if room.hosting.host_hash is None:
                    room.host_listeners.clear()
            log.info(
                "table changed",
                table=room.id,
                version=version,
                seats=[seat.seat for seat in seats],
                fields=sorted(hosting) + (["status"] if status else []),
            )

        write = self.store.update_seats(room.id, room.version, seats, **table_fields)
        await self._commit(room, write, change)

    async def _start_if_full(self, room: Room) -> None:
        if room.status == "waiting" and all(seat.name is not None for seat in room.seats):
            await self._start_game(room)

    async def _start_game(self, room: Room) -> None:
        seed = secrets.randbits(62)
        game = Game(room.rules, seed=seed)
        number = room.game_number + 1
        deadline = fresh_deadline(room.hosting.turn_seconds, game.turn, utcnow())

        async def write() -> int:
            room.game_id, version = await self.store.start_game(
                room.id, room.version, number, seed, game.to_state(), deadline
            )
            return version

        def change(version: int) -> None:
            room.game, room.game_number, room.status = game, number, "playing"
            room.seq, room.hands_saved, room.timer_moves = 0, 0, []
            room.hosting = replace(room.hosting, deadline=deadline)
            log.info("game started", table=room.id, version=version, game=number)

        await self._commit(room, write(), change)
        for seat in room.seats:
            # A player who left before the start gets the same grace as one who leaves later.
            if seat.token_hash is not None and not seat.connected:
                self.presence.start_grace(room, seat.seat)

    async def _apply(
        self, room: Room, seat: int, action: dict[str, Any], cause: str | None = None
    ) -> None:
        """Validate with the engine, commit, broadcast. Raises TableError on refusal.
        `cause`: who chose the move when not its player ("timer", "autoplay")."""
        game = room.game
        self._not_ended(room)
        if game is None or room.status == "waiting":
            raise TableError("not_started", "The game has not started yet.")
        turn_before = game.turn  # a list of its own: `turn` makes one each time
        try:
            game.act(seat, cast(Action, action))  # as it came: the engine checks it
        except IllegalAction as refusal:
            # The engine's code is the reason; a few have always been codes of their own.
            code = refusal.code if refusal.code in OWN_CODES else "illegal"
            raise TableError(code, str(refusal), reason=refusal.code) from None
        except Exception:
            # The engine should only raise IllegalAction; rebuild it from the database so a
            # half-applied action cannot survive, and refuse.
            ERRORS.labels(where="engine").inc()
            log.exception("engine failed", table=room.id, version=room.version)
            await self._reload(room)
            raise TableError("illegal", "That action is not possible here.") from None
        await self._record(room, seat, action, cause, turn_before)

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
        changed = seat_after(room.seats[seat], cause)
        deadline = (
            None
            if over or room.hosting.turn_seconds is None
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
            status="over" if over else "playing",
            game_id=room.game_id,
            seq=room.seq + 1,
            seat=seat,
            action=action,
            # A snapshot after each finished hand; resuming replays the log after it. Its
            # JSON as the room's encoder makes it (the JSON column writes a Fragment as it is).
            snapshot=orjson.Fragment(room.state_encoder.json(game)) if results or over else None,
            new_hands=[
                hand_fields(result, timer_moves, game.plays_of(result["hand_number"]))
                for result in results
            ],
            first_hand_number=room.hands_saved + 1,
            winner=game.winner,
            final_scores=game.scores if over else None,
            deadline=deadline,
            cause=cause if cause in ("timer", "autoplay") else None,
            seats=[changed] if changed is not None else [],
        )

        def change(version: int) -> None:
            room.seq, room.status = write.seq, write.status
            room.hands_saved += len(results)
            if deadline != room.hosting.deadline:
                room.hosting = replace(room.hosting, deadline=deadline)
            room.timer_moves = [] if results else timer_moves
            if changed is not None:
                room.seats[seat] = changed
            accepted(str(action.get("type"))).inc()
            if over:
                if game.winner is not None:
                    room.series[game.winner] += 1
                OPEN_TABLES.dec()
                log.info("game over", table=room.id, version=version, winner=game.winner)

        def landed(version: int) -> None:
            self._landed(room, change, version)

        await self._stored_or_forgotten(room, write, landed)
        await self._announce(room)

    async def _stored_or_forgotten(
        self, room: Room, write: ActionWrite, landed: Callable[[int], None]
    ) -> int:
        """Commit one action, trying again after a failure that may pass (a busy SQLite
        file, a dropped connection): each attempt is a whole transaction or nothing. A
        commit that did land before its answer was lost shows up as a VersionConflict.
        After the last failure the room is forgotten (`_forget`) and the move refused as
        `unavailable`. `landed` is called once the action has landed, from the step that
        committed it. (One coroutine, not one for the retries inside another: it is on
        every move's path.)"""
        for delay in (*WRITE_RETRY_DELAYS, None):
            try:
                return await self.store.record_action(write, landed)
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
                await self._forget(room)
                raise TableError("unavailable", "The move could not be saved; try again.") from None
        raise AssertionError("unreachable: the last attempt raises")
