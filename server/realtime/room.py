"""A table in memory: what the database says of it, plus its lock and its listeners.

A `Room` is the hub's cache of one table (docs/protocol.md): its seats, version and engine
`Game`, the sockets watching it (`Listener`s) and the tasks that act for it (bots, grace
and turn timers). It answers questions about itself (whose turn a bot must take, who may
use the host controls, whether it is idle) and builds the messages each socket receives;
only the hub changes it.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import random
import time
from collections import deque
from collections.abc import Collection, Iterator, Mapping
from datetime import datetime
from typing import Any, Protocol, cast

import orjson

from server.engine import Game, Rules, View
from server.realtime.codec import PublicEncoder, SeatEncoder, StateEncoder
from server.realtime.hosting import (
    hash_token,
    iso_ms,
    matches,
    now_iso_ms,
    public_action,
    utcnow,
)
from server.realtime.messages import (
    PROTOCOL_VERSION,
    PublicSeat,
    PublicTable,
    ServerMessage,
    StateMessage,
    TimerMove,
)
from server.store.repository import ChatLine, Hosting, SeatRecord, TableRecord, TableSummary, iso

ROOM_RNG = random.Random()

# The bot that plays for a player who is away past the grace time.
AUTOPLAY_LEVEL = "advanced"


class Listener(Protocol):
    """One socket watching a table: a seat (None for a spectator) and a mailbox."""

    seat: int | None

    def send(self, message: ServerMessage) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...


class Frame(Mapping[str, Any]):
    """A message as the JSON made once for all the sockets it goes to: the socket layer
    sends `payload` (UTF-8) as it is. Read as a mapping (a listener in the process that
    looks into it), it is that JSON decoded, on first use: exactly what a socket receives."""

    __slots__ = ("_message", "_text", "payload")

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self._message: dict[str, Any] | None = None
        self._text: str | None = None

    @property
    def text(self) -> str:
        """`payload` as text, decoded on first use (a socket written to directly never
        needs it)."""
        if self._text is None:
            self._text = self.payload.decode()
        return self._text

    def _decoded(self) -> dict[str, Any]:
        if self._message is None:
            self._message = orjson.loads(self.payload)
        return self._message

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


@functools.lru_cache(maxsize=256)
def _rules_of(text: bytes) -> tuple[dict[str, Any], Rules]:
    rules = orjson.loads(text)
    return rules, Rules.model_validate(rules)


def shared_rules(rules: dict[str, Any]) -> tuple[dict[str, Any], Rules]:
    """The rules as stored and as the engine reads them, one pair for every room with the
    same rules (a Rules model is about 3 KB; both are read-only)."""
    return _rules_of(orjson.dumps(rules))


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

    # Thousands of rooms stay in memory: slots keep each one's attributes in a fixed array
    # (over 30 of them, an instance dict is a table of its own, about 1.6 KB).
    __slots__ = (
        "_bot_nudge",
        "_table_key",
        "_table_rest",
        "bot_task",
        "chat",
        "created",
        "evicted",
        "game",
        "game_id",
        "game_number",
        "grace_tasks",
        "hands_saved",
        "hints",
        "holders",
        "host_listeners",
        "host_task",
        "hosting",
        "id",
        "listeners",
        "lock",
        "name",
        "public_encoder",
        "rng",
        "rules",
        "rules_json",
        "seat_encoder",
        "seats",
        "seq",
        "series",
        "state_encoder",
        "status",
        "timer_moves",
        "timer_task",
        "touched",
        "version",
    )

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
        # Wakes a bot task that stands by while another process drives the bots; made on
        # first use (`bot_nudge`), as most tables of people never have such a task.
        self._bot_nudge: asyncio.Event | None = None
        # Each seat's latest hint, by the version it was made on: asking again before the
        # table moves gets the same answer, thought out once (hints share the bots' pool).
        self.hints: dict[int, tuple[int, asyncio.Future[dict[str, Any]]]] = {}
        # Bots draw a seed from it for each decision; one for every room (its state is 2.5 KB).
        self.rng = ROOM_RNG
        self.chat: deque[ChatLine] = deque(maxlen=chat_history)
        # Set once the hub has dropped this room; whoever still holds it fetches it again.
        self.evicted = False
        self.touched = time.monotonic()
        # The public table's JSON but its version and deadline (`table_json`), and what it
        # was made of: rebuilt when a seat, the status, the score... changes, not per move.
        self._table_key: tuple[Any, ...] | None = None
        self._table_rest = b""
        self.public_encoder = PublicEncoder()
        self.seat_encoder = SeatEncoder()
        self.state_encoder = StateEncoder()
        self.load(record)

    def load(self, record: TableRecord) -> None:
        self.id = record.id
        self.name = record.name
        self.rules_json, self.rules = shared_rules(record.rules)
        self.status = record.status
        self.version = record.version
        self.game_number = record.game_number
        self.created = record.created
        self.seats = record.seats
        self.hosting: Hosting = record.hosting
        self.game = load_game(self.rules, record)
        # The moves the turn timer made in the current hand, as everyone may see them.
        self.timer_moves: list[TimerMove] = [
            {"seat": seat, "action": public_action(action)}
            for seat, action in (record.game.timer_actions if record.game else [])
        ]
        self.game_id = record.game.id if record.game else None
        self.seq = record.game.snapshot_seq + len(record.game.later_actions) if record.game else 0
        self.hands_saved = record.game.hands_saved if record.game else 0
        self.chat.clear()
        self.chat.extend(record.chat)
        self.series = list(record.series)

    @property
    def bot_nudge(self) -> asyncio.Event:
        if self._bot_nudge is None:
            self._bot_nudge = asyncio.Event()
        return self._bot_nudge

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
        listeners, seat = self.controls()
        return listener in listeners or (seat is not None and listener.seat == seat)

    def controls(self) -> tuple[Collection[Listener], int | None]:
        """Who holds the host controls: the sockets that showed the host's token, and the
        host's seat (whoever sits in it); nobody once the table has ended. A broadcast
        reads them once for all its sockets (`has_controls` answers for one)."""
        if self.status == "ended":
            return (), None
        return self.host_listeners, self.hosting.host_seat

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
            series=self.series,
        )

    def public(self) -> dict[str, Any]:
        """The public table as the HTTP answers hold it (the same dict as `table`)."""
        return cast("dict[str, Any]", self.table())

    def table(self) -> PublicTable:
        """Public table info (docs/protocol.md): never a token, never a hidden card."""
        return public_table(self.summary())

    def table_json(self, deadline: str | None) -> bytes:
        """`table()` as JSON (the same object; its keys in another order). Only what
        changes with every move, the version and `deadline` (the hosting's, as `iso_ms`
        gives it), is spliced into JSON kept from the last change of anything else."""
        game = self.game
        hosting = self.hosting
        key = (
            self.name,
            self.status,
            self.game_number,
            tuple(self.seats),
            tuple(self.series),
            self.rules_json,
            hosting.listed,
            hosting.host_seat,
            hosting.turn_seconds,
            hosting.hints,
            # Scores and the winner change only with a finished hand (or a new game).
            game,
            len(game.hand_results) if game is not None else 0,
            game.winner if game is not None else None,
        )
        if key != self._table_key:
            table = cast("dict[str, Any]", self.table())
            del table["version"], table["deadline"]
            self._table_key, self._table_rest = key, orjson.dumps(table)[1:]
        return b'{"version":%d,"deadline":%s,%s' % (
            self.version,
            b"null" if deadline is None else b'"%s"' % deadline.encode(),
            self._table_rest,
        )

    def state_message(
        self, listener: Listener, view: View | None, table: PublicTable | None = None
    ) -> StateMessage:
        """One socket's `state`: its view, the public table (built once per broadcast and
        passed in), the timer, and whether it holds the host's controls."""
        return {
            "type": "state",
            "version": self.version,
            "seat": listener.seat,
            "state": view,
            "table": table if table is not None else self.table(),
            "host": self.has_controls(listener),
            "deadline": iso_ms(self.hosting.deadline),
            "server_time": now_iso_ms(),
            "timer_moves": self.timer_moves,
        }

    def state_frames(self, listeners: list[Listener]) -> list[StateMessage]:
        """The `state` of each of `listeners` after a change, each as a `Frame`, in their
        order. JSON is made once per change for the public part (the table, the timer),
        once per seat for its view, and spliced: sockets of the same seat and host role
        share one frame (spectators all share theirs)."""
        server_time = now_iso_ms()
        deadline = iso_ms(self.hosting.deadline)
        # The message's keys after the view (the table, the timer), its braces dropped
        # but the last, spliced in from their JSON.
        shared = b"".join(
            (
                b'"table":',
                self.table_json(deadline),
                orjson.dumps(
                    {
                        "deadline": deadline,
                        "server_time": server_time,
                        "timer_moves": self.timer_moves,
                    }
                ).replace(b"{", b",", 1),
            )
        )
        head = b'{"type":"state","version":%d,"seat":' % self.version
        game = self.game
        # The part of the view every seat shares, made and encoded once per change (the
        # keys that move, braces dropped, and the steady ones); each seat's own part
        # (`seat_part`, kept by `SeatEncoder` while it cannot change) goes in front of it.
        public: tuple[bytes | memoryview, ...] = ()
        if game is not None:
            moving, steady = self.public_encoder.parts(game)
            public = (b",", memoryview(moving)[1:-1], b",", steady)
        # What follows a seat's part, the same for every socket but for its host flag:
        # joined once per flag, not once per frame.
        tails: dict[bool, bytes] = {}
        # A Frame stands for its StateMessage: a mapping of the same keys, read lazily.
        frames: dict[tuple[int | None, bool], Frame] = {}
        answer: list[Any] = []
        host_listeners, host_seat = self.controls()
        for listener in listeners:
            # `has_controls(listener)`, its reading made once above.
            seat = listener.seat
            host = listener in host_listeners or (seat is not None and seat == host_seat)
            frame = frames.get((seat, host))
            if frame is None:
                # The keys of `state_message`, each frame joined at once from its parts,
                # as bytes (the socket layer writes them as they are).
                tail = tails.get(host)
                if tail is None:
                    host_json = b',"host":true,' if host else b',"host":false,'
                    tail = tails[host] = b"".join((*public, host_json, shared))
                seat_json = b"null" if seat is None else b"%d" % seat
                view = b"null" if game is None else self.seat_encoder.open_json(game, seat)
                frame = frames[(seat, host)] = Frame(
                    b"".join((head, seat_json, b',"state":', view, tail))
                )
            answer.append(frame)
        return answer

    def welcome(self, listener: Listener) -> StateMessage:
        """The answer to a socket's `hello`: its state, the chat so far, the protocol."""
        message = self.state_message(listener, self.view(listener.seat))
        message["chat"] = list(self.chat)
        message["protocol"] = PROTOCOL_VERSION
        return message

    def view(self, seat: int | None) -> View | None:
        return self.game.view(seat) if self.game is not None else None


def public_table(table: TableSummary) -> PublicTable:
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
        "series": table.series,
        "hints": table.hosting.hints,
    }


def public_seat(seat: SeatRecord) -> PublicSeat:
    info: PublicSeat = {
        "seat": seat.seat,
        "name": seat.name,
        "bot": seat.bot,
        "connected": seat.connected or seat.bot is not None,
    }
    if seat.autoplay:
        info["autoplay"] = True
        info["autoplay_reason"] = seat.autoplay_reason or "away"
    return info
