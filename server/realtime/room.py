"""A table in memory: what the database says of it, plus its lock and its listeners.

A `Room` is the hub's cache of one table (docs/protocol.md): its seats, version and engine
`Game`, the sockets watching it (`Listener`s) and the tasks that act for it (bots, grace
and turn timers). It answers questions about itself (whose turn a bot must take, who may
use the host controls, whether it is idle). Only the change pipeline changes it
(`server.realtime.changes`); `server.realtime.views` builds what its sockets receive.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import random
import time
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, Protocol

import orjson

from server.engine import Action, Game, Rules
from server.engine.fairness import Deals, NextDeal, commitment
from server.engine.rules import RuleFields
from server.engine.shapes import LastTrick, SeatCard, SeatPart, SteadyView
from server.protocol import (
    ChatLine,
    DealSeeds,
    PublicTable,
    ReviewChoice,
    ServerMessage,
    TableStatus,
    TimerMove,
)
from server.realtime.codec import StateEncoder
from server.realtime.hosting import hash_token, matches
from server.realtime.messages import Encoded
from server.realtime.timer import public_move, utcnow
from server.store.records import (
    Hosting,
    SeatRecord,
    TableFields,
    TableRecord,
    TableSummary,
    table_summary,
)

ROOM_RNG = random.Random()

# The bot that plays for a player who is away past the grace time.
AUTOPLAY_LEVEL = "advanced"


class Listener(Protocol):
    """One socket watching a table: a seat (None for a spectator) and a mailbox."""

    seat: int | None

    def send(self, message: ServerMessage | Encoded) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...


@functools.lru_cache(maxsize=256)
def _rules_of(text: bytes) -> tuple[RuleFields, Rules]:
    rules = orjson.loads(text)
    return rules, Rules.model_validate(rules)


def shared_rules(rules: RuleFields) -> tuple[RuleFields, Rules]:
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


@dataclass(slots=True)
class StoredTable:
    """What the database says of a table, as the change pipeline (`server.realtime.changes`)
    keeps it: only the pipeline writes it, from a record (`load`) or a change it applies."""

    id: str
    name: str
    rules_json: RuleFields
    rules: Rules
    status: TableStatus
    version: int
    game_number: int
    created: datetime
    seats: list[SeatRecord]
    hosting: Hosting
    game: Game | None
    # The next deal's seeds while no game of this table has them: its first game's (from
    # the table's creation), or a game begun before deals had seeds.
    open_deals: Deals | None
    # The moves the turn timer made in the current hand, as everyone may see them.
    timer_moves: list[TimerMove]
    game_id: int | None
    seq: int
    hands_saved: int
    chat: deque[ChatLine]
    series: list[int]

    @classmethod
    def load(cls, record: TableRecord, chat_history: int) -> StoredTable:
        rules_json, rules = shared_rules(record.rules)
        game = load_game(rules, record)
        stored = record.game
        return cls(
            id=record.id,
            name=record.name,
            rules_json=rules_json,
            rules=rules,
            status=record.status,
            version=record.version,
            game_number=record.game_number,
            created=record.created,
            seats=record.seats,
            hosting=record.hosting,
            game=game,
            open_deals=(
                Deals.fresh(record.id, bytes.fromhex(record.deal_key))
                if record.deal_key is not None and (game is None or game.deals is None)
                else None
            ),
            timer_moves=[
                public_move(seat, action)
                for seat, action in (stored.timer_actions if stored else [])
            ],
            game_id=stored.id if stored else None,
            seq=stored.snapshot_seq + len(stored.later_actions) if stored else 0,
            hands_saved=stored.hands_saved if stored else 0,
            chat=deque(record.chat, maxlen=chat_history),
            series=list(record.series),
        )


@dataclass(slots=True)
class RoomTasks:
    """What runs for a table: its bots (`server.realtime.autoplay`), grace and host timers
    (`server.realtime.presence`), and the hints and reviews being thought out
    (`server.realtime.hints`, `server.realtime.advice`)."""

    bot_task: asyncio.Task[None] | None = None
    grace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    # Wakes the bots when the turn timer's deadline passes.
    timer_task: asyncio.Task[None] | None = None
    timer_due: datetime | None = None
    # Hands the host role on after the host has been away for a while.
    host_task: asyncio.Task[None] | None = None
    # Wakes a bot task that stands by while another process drives the bots; made on
    # first use (`bot_nudge`), as most tables of people never have such a task.
    nudge: asyncio.Event | None = None
    # Each seat's latest hint, by the version it was made on: asking again before the
    # table moves gets the same answer, thought out once (hints share the bots' pool).
    hints: dict[int, tuple[int, asyncio.Future[Action]]] = field(default_factory=dict)
    # The expert's review of a finished hand, by game number, hand number and seat,
    # thought out once (`advice`).
    reviews: dict[tuple[int, int, int], asyncio.Future[list[ReviewChoice]]] = field(
        default_factory=dict
    )

    @property
    def bot_nudge(self) -> asyncio.Event:
        if self.nudge is None:
            self.nudge = asyncio.Event()
        return self.nudge

    def busy(self) -> bool:
        """Whether a bot task or a grace timer is still running."""
        return (self.bot_task is not None and not self.bot_task.done()) or any(
            not task.done() for task in self.grace_tasks.values()
        )


@dataclass(slots=True)
class RoomCache:
    """What is kept between a table's changes for its states (`server.realtime.views`
    writes it: the public table, the next deal, the parts of the views that change only
    now and then) and the snapshot's encoder the store's writes use
    (`server.realtime.moves`). `forget` drops what a change may have made stale."""

    # The public table, until the pipeline applies a change to anything but its version
    # and deadline (None: to be made again).
    table_rest: PublicTable | None = None
    # The `fairness` of the states and what it was made from.
    fairness: tuple[tuple[object, ...], NextDeal | None] | None = None
    # The played cards as a view shows them: the game's list they were made from (held,
    # so that `is` cannot be fooled by a new list at a freed one's address), its length.
    played: tuple[list[tuple[int, int]], int, list[SeatCard]] | None = None
    # The last trick as a view shows it, and the game's own it was made from.
    last_trick: tuple[object, LastTrick | None] | None = None
    # The view's keys that change only with the phase, a bid, a finished hand or the end,
    # and what they were made from.
    steady: tuple[tuple[object, ...], SteadyView] | None = None
    # Each seat's own part of the view while it cannot change (a seat not on turn during
    # play, until it plays a card): the game and hand they belong to, and by seat its
    # hand's size, the part and its JSON.
    seat_parts: tuple[object, int, dict[int, tuple[int, SeatPart, bytes]]] | None = None
    state_encoder: StateEncoder = field(default_factory=StateEncoder)

    def forget(self) -> None:
        self.table_rest = None
        self.fairness = None


@dataclass(slots=True)
class RoomSockets:
    """Who is connected to a table in this process (`server.realtime.presence`): its
    sockets, the token hash each seated one said hello with (a re-issued seat drops it),
    and the ones that said hello with the host token."""

    listeners: set[Listener] = field(default_factory=set)
    holders: dict[Listener, str] = field(default_factory=dict)
    host_listeners: set[Listener] = field(default_factory=set)


class Room:
    """A table in memory: what is stored of it, what runs for it, what is kept encoded for
    its sockets, and who is connected, each its own object; plus its lock and its life in
    the hub (`touched`, `evicted`)."""

    __slots__ = ("cache", "evicted", "id", "lock", "sockets", "stored", "tasks", "touched")

    # Bots draw a seed from it for each decision; one for every room (its state is 2.5 KB).
    rng: ClassVar[random.Random] = ROOM_RNG

    def __init__(self, record: TableRecord, chat_history: int) -> None:
        self.lock = asyncio.Lock()
        # The table's id, as stored (the same whatever is loaded again).
        self.id = record.id
        self.stored = StoredTable.load(record, chat_history)
        self.tasks = RoomTasks()
        self.cache = RoomCache()
        self.sockets = RoomSockets()
        if record.deal_seeds is not None:
            self.take_seeds(record.deal_seeds)
        # Set once the hub has dropped this room; whoever still holds it fetches it again.
        self.evicted = False
        self.touched = time.monotonic()

    def load(self, record: TableRecord) -> None:
        """Take the table as stored again (a reload): what is kept encoded goes with it."""
        self.stored = StoredTable.load(record, self.stored.chat.maxlen or 0)
        if record.deal_seeds is not None:
            self.take_seeds(record.deal_seeds)
        self.cache.forget()

    def deals(self) -> Deals | None:
        """Whose seeds make the next deal: the current game's, else the table's own (None:
        neither, for a game begun before deals had seeds)."""
        game = self.stored.game
        if game is not None and game.deals is not None:
            return game.deals
        return self.stored.open_deals

    def next_deal(self) -> NextDeal | None:
        """The next deal as every state shows it."""
        game = self.stored.game
        if game is not None and game.deals is not None:
            return game.next_deal()
        return None if self.stored.open_deals is None else self.stored.open_deals.next_deal(1)

    def take_seeds(self, stored: DealSeeds) -> None:
        """The players' seeds for the next deal as stored, unless they answer an older
        commitment (a deal made since)."""
        deals = self.deals()
        if deals is not None and commitment(deals.keys[-1]) == stored["commitment"]:
            deals.replace_seeds({int(seat): value for seat, value in stored["seeds"].items()})

    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        found = None
        for seat in self.stored.seats:
            # Compare against every seat, in constant time, so timing says nothing.
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = seat.seat
        return found

    def held_seats(self) -> set[int]:
        """The seats a socket of this process holds."""
        return {listener.seat for listener in self.sockets.listeners if listener.seat is not None}

    def shown_away(self) -> list[int]:
        """Seats a socket of this process holds that the table shows away, or played by a
        bot because they were away (a timed-out seat stays with its bot until it acts)."""
        return [
            seat
            for seat in sorted(self.held_seats())
            if not self.stored.seats[seat].connected
            or (
                self.stored.seats[seat].autoplay
                and self.stored.seats[seat].autoplay_reason != "timer"
            )
        ]

    def bot_seat(self, now: datetime | None = None) -> tuple[int, str, str | None] | None:
        """The seat a bot must act for now: (seat, level, cause), where cause is "timer"
        when the turn timer ran out on a person, "autoplay" for an away or timed-out
        player's stand-in, None for the seat's own bot."""
        if self.stored.game is None or self.stored.status != "playing":
            return None
        turn = self.stored.game.turn
        for seat in turn:
            record = self.stored.seats[seat]
            if record.bot is not None:
                return seat, record.bot, None
            if record.autoplay:
                return seat, AUTOPLAY_LEVEL, "autoplay"
        deadline = self.stored.hosting.deadline
        if turn and deadline is not None and (now or utcnow()) >= deadline:
            return turn[0], AUTOPLAY_LEVEL, "timer"
        return None

    def is_host(self, token: str | None) -> bool:
        """Whether `token` is the host token, or the seat token of the host's seat."""
        if matches(token, self.stored.hosting.host_hash):
            return True
        seat = self.stored.hosting.host_seat
        return seat is not None and matches(token, self.stored.seats[seat].token_hash)

    def invited(self, invite: str | None, host_token: str | None) -> bool:
        """Whether someone may sit down or add a bot: any listed table, or the invite (or
        the host's token) of an unlisted one."""
        return (
            self.stored.hosting.listed
            or matches(invite, self.stored.hosting.invite_hash)
            or matches(host_token, self.stored.hosting.host_hash)
        )

    def has_controls(self, listener: Listener) -> bool:
        """Whether this socket may use the host controls (none once the table has ended)."""
        listeners, seat = self.controls()
        return listener in listeners or (seat is not None and listener.seat == seat)

    def controls(self) -> tuple[Collection[Listener], int | None]:
        """Who holds the host controls: the sockets that showed the host's token, and the
        host's seat (whoever sits in it); nobody once the table has ended. A broadcast
        reads them once for all its sockets (`has_controls` answers for one)."""
        if self.stored.status == "ended":
            return (), None
        return self.sockets.host_listeners, self.stored.hosting.host_seat

    def idle_for(self, now: float) -> float | None:
        """Seconds since the room was last used, or None while anything needs it: a
        listener, a change in progress, a bot turn or bot task, a grace timer."""
        if (
            self.sockets.listeners
            or self.lock.locked()
            or self.tasks.busy()
            or self.bot_seat() is not None
            or (self.stored.status == "playing" and self.stored.hosting.deadline is not None)
        ):
            return None
        return now - self.touched

    def summary(self) -> TableSummary:
        game = self.stored.game
        return table_summary(
            TableFields(
                self.stored.id,
                self.stored.name,
                self.stored.rules_json,
                self.stored.status,
                self.stored.version,
                self.stored.game_number,
                self.stored.created,
                self.stored.seats,
            ),
            scores=game.scores if game is not None else [],
            winner=game.winner if game is not None else None,
            hands_played=len(game.hand_results) if game is not None else 0,
            hosting=self.stored.hosting,
            series=self.stored.series,
        )
