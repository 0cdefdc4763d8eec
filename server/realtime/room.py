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
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import orjson

from server.engine import Action, Game, Rules
from server.engine.fairness import Deals, NextDeal, commitment
from server.engine.rules import RuleFields
from server.protocol import ChatLine, DealSeeds, PublicTable, ReviewChoice, ServerMessage, TimerMove
from server.realtime.codec import StateEncoder
from server.realtime.hosting import hash_token, matches
from server.realtime.timer import public_move, utcnow
from server.store.records import Hosting, TableRecord, TableSummary

if TYPE_CHECKING:  # `views` builds what listeners are sent, reading rooms
    from server.realtime.views import Encoded

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


class Room:
    """A table in memory: what the database says, plus its lock and listeners."""

    # Thousands of rooms stay in memory: slots keep each one's attributes in a fixed array
    # (over 30 of them, an instance dict is a table of its own, about 1.6 KB).
    __slots__ = (
        "_bot_nudge",
        "bot_task",
        "chat",
        "created",
        "evicted",
        "fairness",
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
        "open_deals",
        "reviews",
        "rng",
        "rules",
        "rules_json",
        "seats",
        "seq",
        "series",
        "state_encoder",
        "status",
        "table_rest",
        "timer_due",
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
        self.timer_due: datetime | None = None
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
        self.hints: dict[int, tuple[int, asyncio.Future[Action]]] = {}
        # The expert's review of a finished hand, by game number, hand number and seat,
        # thought out once (`advice`).
        self.reviews: dict[tuple[int, int, int], asyncio.Future[list[ReviewChoice]]] = {}
        # Bots draw a seed from it for each decision; one for every room (its state is 2.5 KB).
        self.rng = ROOM_RNG
        self.chat: deque[ChatLine] = deque(maxlen=chat_history)
        # Set once the hub has dropped this room; whoever still holds it fetches it again.
        self.evicted = False
        self.touched = time.monotonic()
        # The public table, kept by `views` until the pipeline applies a change to anything
        # but its version and deadline (None: to be made again).
        self.table_rest: PublicTable | None = None
        # The `fairness` of the states and what it was made from (`views`).
        self.fairness: tuple[tuple[object, ...], NextDeal | None] | None = None
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
        # The next deal's seeds while no game of this table has them: its first game's
        # (from the table's creation), or a game begun before deals had seeds.
        self.open_deals = (
            Deals.fresh(record.id, bytes.fromhex(record.deal_key))
            if record.deal_key is not None and (self.game is None or self.game.deals is None)
            else None
        )
        if record.deal_seeds is not None:
            self.take_seeds(record.deal_seeds)
        self.fairness = None
        # The moves the turn timer made in the current hand, as everyone may see them.
        self.timer_moves: list[TimerMove] = [
            public_move(seat, action)
            for seat, action in (record.game.timer_actions if record.game else [])
        ]
        self.game_id = record.game.id if record.game else None
        self.seq = record.game.snapshot_seq + len(record.game.later_actions) if record.game else 0
        self.hands_saved = record.game.hands_saved if record.game else 0
        self.chat.clear()
        self.chat.extend(record.chat)
        self.series = list(record.series)
        self.table_rest = None

    def deals(self) -> Deals | None:
        """Whose seeds make the next deal: the current game's, else the table's own (None:
        neither, for a game begun before deals had seeds)."""
        game = self.game
        if game is not None and game.deals is not None:
            return game.deals
        return self.open_deals

    def next_deal(self) -> NextDeal | None:
        """The next deal as every state shows it."""
        game = self.game
        if game is not None and game.deals is not None:
            return game.next_deal()
        return None if self.open_deals is None else self.open_deals.next_deal(1)

    def take_seeds(self, stored: DealSeeds) -> None:
        """The players' seeds for the next deal as stored, unless they answer an older
        commitment (a deal made since)."""
        deals = self.deals()
        if deals is not None and commitment(deals.keys[-1]) == stored["commitment"]:
            deals.replace_seeds({int(seat): value for seat, value in stored["seeds"].items()})

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
