"""Moves nobody at the table makes by hand: bots, stand-ins for away players, the turn timer.

One task per room (`Autoplay.schedule`) plays every bot turn, one move at a time, until a
person must act. Each decision is made outside the room's lock, from the view of the move
it follows, and played through the change pipeline (`moves.bot_move`), which refuses it as
stale if the table moved on meanwhile. With several processes only the holder of the
table's bot claim acts (`TableNotices.claim_bots`, a Redis lock that expires unless
renewed); the others stand by, their rooms following through notices, and take over when
the claim is let go or expires. When the turn timer's deadline passes (`schedule_timer`),
the same driver makes the move for the seat on turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import datetime

import structlog

from server.engine import Action, View
from server.observability import BOT_DECISIONS, ERRORS
from server.realtime import moves
from server.realtime.bots import bot_decision, first_legal
from server.realtime.changes import TableChanges
from server.realtime.effects import Effects
from server.realtime.errors import TableError
from server.realtime.room import Room
from server.realtime.timer import utcnow

log = structlog.get_logger(__name__)

# How long a process's claim to drive a table's bots lasts unless renewed (plus bot_delay).
BOT_CLAIM_SECONDS = 5.0

# A bot's turn: (seat, level, cause), as `Room.bot_seat` names it.
Turn = tuple[int, str, str | None]


class Autoplay:
    """The bot driver and the turn timer of one process's rooms."""

    def __init__(self, changes: TableChanges) -> None:
        self.changes = changes
        self.settings = changes.settings
        self.notices = changes.notices
        changes.follow(self.followed)

    def followed(self, room: Room, effects: Effects) -> None:
        """After every change: bots to move, the turn timer to count down."""
        self.schedule(room)
        self.schedule_timer(room)

    def schedule(self, room: Room) -> None:
        """Start the room's bot driver when a bot must act (or nudge one standing by)."""
        if self.changes.closing or room.evicted or room.bot_seat() is None:
            return
        if room.tasks.bot_task is None or room.tasks.bot_task.done():
            room.tasks.bot_task = asyncio.create_task(self.drive(room))
        else:
            room.tasks.bot_nudge.set()  # a task standing by for another process looks again

    async def drive(self, room: Room) -> None:
        """Play every bot turn of a table, one move at a time, until a person must act;
        with several processes, only while holding the table's bot claim."""
        claim = BOT_CLAIM_SECONDS + self.settings.bot_delay
        driving = False
        try:
            while not self.changes.closing:
                room.tasks.bot_nudge.clear()
                pending = room.bot_seat()
                if pending is None or pending[2] != "timer":
                    # A bot pauses like a person would; a timed-out move has waited enough.
                    await asyncio.sleep(self.settings.bot_delay)
                driving = await self.notices.claim_bots(room.id, claim)
                turn = None if room.evicted else room.bot_seat()
                going = turn is not None
                if turn is not None and driving:
                    going = await self.turn(room, turn)
                if not going:
                    if driving:
                        await self.notices.release_bots(room.id)
                        driving = False
                    room.tasks.bot_task = None
                    return
                if not driving:
                    # Look again when the table changes, or when the claim may have expired.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(claim / 2):
                            await room.tasks.bot_nudge.wait()
        finally:
            if driving:  # cancelled at shutdown: let another process take over at once
                await self.notices.release_bots(room.id)

    async def turn(self, room: Room, turn: Turn) -> bool:
        """One bot move; False when the bots must stop."""
        seat, level, _cause = turn
        seen = await self.changes.read(room, lambda room: seen_by(room, turn))
        if seen is None:
            return True  # the turn has passed meanwhile: look again
        seq, view = seen
        try:
            started = time.perf_counter()
            action = await bot_decision(
                self.settings.bot_processes, room.stored.rules, view, level, room.rng
            )
            BOT_DECISIONS.labels(level=level, phase=view["phase"]).observe(
                time.perf_counter() - started
            )
        except Exception:
            ERRORS.labels(where="bot").inc()
            log.exception("bot failed", table=room.id, version=room.stored.version)
            action = None
        try:
            if action is not None:
                try:
                    await self.changes.run(room, moves.bot_move, turn, seq, action)
                    return True
                except TableError as refusal:
                    if refusal.code in ("stale", "unavailable") or room.evicted:
                        raise
                    # A refused choice is a bot bug: play the first legal move instead.
                    ERRORS.labels(where="bot").inc()
                    log.error(
                        "bot refused", table=room.id, version=room.stored.version, code=refusal.code
                    )
            await self.changes.run(room, moves.bot_move, turn, seq, fallback(room, seat))
        except TableError as refusal:
            return refusal.code == "stale" and not room.evicted
        return True

    # -- the turn timer --------------------------------------------------------------------

    def schedule_timer(self, room: Room) -> None:
        """Wake the bots when the current deadline passes (a new deadline replaces the
        wait for the old one)."""
        deadline = room.stored.hosting.deadline
        task = room.tasks.timer_task
        if task is not None and not task.done():
            if room.tasks.timer_due == deadline:
                return
            task.cancel()
        room.tasks.timer_task = None
        if (
            self.changes.closing
            or room.evicted
            or deadline is None
            or room.stored.status != "playing"
        ):
            return
        room.tasks.timer_task = asyncio.create_task(self.await_deadline(room, deadline))
        room.tasks.timer_due = deadline

    async def await_deadline(self, room: Room, deadline: datetime) -> None:
        # The event loop's clock and the wall clock drift apart: wait until the wall clock
        # has passed the deadline, then let the bot driver make the move.
        while (left := (deadline - utcnow()).total_seconds()) >= 0:
            await asyncio.sleep(left + 0.01)
        self.schedule(room)


def seen_by(room: Room, turn: Turn) -> tuple[int, View] | None:
    """What a bot sees for its turn: the number of the last move, and its seat's view;
    None when it is no longer that bot's turn."""
    if room.stored.game is None or room.bot_seat() != turn:
        return None
    return room.stored.seq, room.stored.game.view(turn[0])


def fallback(room: Room, seat: int) -> Action:
    assert room.stored.game is not None
    return first_legal(room.stored.game, seat)
